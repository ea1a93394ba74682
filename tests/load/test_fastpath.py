"""The fast front-matter path gives exactly what the full YAML loader and Pydantic give.

``octui.load.fastpath`` is an optimisation: whenever it answers, its answer must equal
the slow path's value and types; when it is unsure it must answer ``None``.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from campaign import DERANDOMIZE, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from octui.bundle.jsonout import dumps_indent2
from octui.core.validation import FrontMatter
from octui.load.fastpath import _flat, _mapping, _NotSimple, fast_fields, fast_mapping
from octui.load.frontmatter import parse_file, split_front_matter
from octui.load.parsed import ParsedFile
from octui.load.strict_yaml import YamlError, load_yaml
from octui.synth.repository import generate, render

SETTINGS = settings(
    max_examples=examples(300),
    deadline=None,
    derandomize=DERANDOMIZE,
    suppress_health_check=[HealthCheck.too_slow],
)


def slow_mapping(text: str) -> Any:
    try:
        return load_yaml(text)
    except YamlError as exc:
        return exc


def slow_fields(data: dict[str, Any]) -> dict[str, Any] | None:
    try:
        model = FrontMatter.model_validate(FrontMatter.coerce_enums(dict(data)))
    except Exception:
        return None
    return model.model_dump(exclude=set(model.model_extra or ()))


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types, all the way down (1 == True == 1.0 is not enough)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if a != a and b != b:  # NaN
        return True
    return bool(a == b)


def check(text: str) -> bool:
    """Assert the fast path agrees with the slow one; True when the fast path answered."""
    fast = fast_mapping(text)
    if fast is None:
        return False
    slow = slow_mapping(text)
    assert isinstance(slow, dict), (text, slow)
    assert same(fast, slow), (text, fast, slow)
    return True


SCALAR_TEXTS = (
    [
        "a", "abc", "policies.refunds", "x@2", "yes", "No", "on", "OFF", "true", "null", "~",
        "Null", "0", "12", "-3", "0x1f", "0o17", "017", "1_000", "12:30", "1.5", ".5", "1e3",
        "1.0e+3", ".inf", ".NaN", "2026-01-01", "2026-02-30", "2026-01-01T10:00:00Z",
        "2026-01-01 10:00:00 +02:00", "2026-01-01T10:00:00+25:00", "9999-12-31T23:00:00-05:00",
        "a b c", "C#", "a #b", "a: b", "a:", "a:b", '"quoted"', '"esc \\" q"', '"tab \\t"',
        "'single'", "'it''s'", "'open", '"open', "[a, b]", "[]", "[ ]", "[a,,b]", "[a, [b]]",
        "[yes, 1, 2026-01-01]", "[a b, c]", "{a: 1}", "&x a", "*x", "!!str 1", "|", ">", "-",
        "- a", "?", "@x", "`x", "%x", "é", "naïve café", "=", "<<", "x\u00a0", "\u2028",
        "1:2:3", "0b101", "+12", "1.", "-.inf",
    ]
)  # fmt: skip
#: the edges of what YAML's scanner, resolver and constructors accept
EDGE_SCALAR_TEXTS = (
    [
        "k" * 1024, "v" * 1025, "a " * 600, "a\tb", "a ", "a  # c", "'a' # c", '"a" #c',
        "a#b", "#", "a:b", "a :b", "a\u00a0#b", "2026-01-01 12:00", "2026-01-01 12:00:00",
        "2026-01-01t10:00:00z", "0001-01-01T00:00:00+01:00", "0x10", "0o7", "0b2", "1e+3",
        "+.inf", ".Inf", "1__0", "._", "190:20:30", "Yes", "Y", "n", "NULL", "~a", "-a", "?a",
        ":a", "---", "...", "--- a", "a...", "\x85", "a\x85b", "a\u2028b", "a\u2029b",
        "\ufeffa", "a\ufeff", "\u3000a", "\U0001f600", '""', "''", '" a "', "' a '",
        '"\\\\"', '"\\\""', "'\\'", "'a' b", '"a" b', "[a, b,]", "[,]", "[a: b]",
        "[a #b]", "[-a]", "[~, null]", "[" + "x" * 1025 + "]", "1" + "0" * 5000,
    ]
)  # fmt: skip
EVERY_SCALAR_TEXT = SCALAR_TEXTS + EDGE_SCALAR_TEXTS


def mostly(common: list[str], edges: list[str]) -> st.SearchStrategy[str]:
    """One of ``common`` three times in four, else one of ``edges``: a document with one or
    two odd spots is answered by the fast path often enough for the comparison to bite."""
    return st.one_of(*[st.sampled_from(common)] * 3, st.sampled_from(edges))


SCALARS = mostly(SCALAR_TEXTS, EDGE_SCALAR_TEXTS)
LITERAL_LINES = ["  text", "  more: x", "   deeper", "", " ", "  ", "    ", "  # not a comment",
                 " one", "x: 1", "\ttab", "  trailing  ", "---", "...", "  ---", "# c",
                 "  a\u2028b", "  \x85", "  " + "t" * 1100]  # fmt: skip
KEYS = mostly(
    ["id", "title", "tags", "version", "yes", "null", "on", "a-b", "_x", "Key", "access", "id"],
    ["Off", "NULL", "a_", "k" * 1024, "k" * 1025],
)
#: what separates a key from its value (YAML needs a space after the colon)
SEPARATORS = mostly([": "], [":  ", ":", " : ", ":\u00a0"])
#: what may follow a value on its line
TAILS = mostly([""], [" ", "  ", "\t", " # c", "#c", " #", "\u2028"])
#: lines that are not a key and a value
NOISE = ["", "# comment", "  # indented", "key", "  x: 1", "---", "...", "--- x", "... x",
         "\ufeff", "\ufeffid: a", "%YAML 1.1", "key:value", "- a", "?", "\u2028",
         "\x85"]  # fmt: skip


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        key = draw(KEYS)
        shape = draw(st.integers(0, 5))
        if shape <= 2:
            lines.append(f"{key}{draw(SEPARATORS)}{draw(SCALARS)}{draw(TAILS)}")
        elif shape == 3:
            lines.append(f"{key}:{draw(TAILS)}")
            indent = draw(st.sampled_from(["", "  ", "    "]))
            for _ in range(draw(st.integers(0, 3))):
                lines.append(f"{indent}- {draw(SCALARS)}{draw(TAILS)}")
        elif shape == 4:
            lines.append(f"{key}:")
            for _ in range(draw(st.integers(0, 3))):
                indent = draw(st.sampled_from(["  ", "  ", "   "]))
                lines.append(f"{indent}{draw(KEYS)}{draw(SEPARATORS)}{draw(SCALARS)}{draw(TAILS)}")
        elif shape == 5 and draw(st.booleans()):
            lines.append(f"{key}: |{draw(st.sampled_from(['', '', ' ', ' # c', '-', '+', '2']))}")
            for _ in range(draw(st.integers(0, 4))):
                lines.append(draw(st.sampled_from(LITERAL_LINES)))
        else:
            lines.append(draw(st.sampled_from(NOISE)))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n", "\n  "]))


@SETTINGS
@given(documents())
def test_fast_mapping_equals_full_loader(text: str) -> None:
    check(text)


def line_loop(text: str) -> Any:
    """What the line-by-line reader gives (the answer the one-pass reader must equal)."""
    try:
        return _mapping(text.split("\n"))
    except _NotSimple:
        return "declined"


def one_pass(text: str) -> Any:
    try:
        found = _flat(text)
    except _NotSimple:
        return "declined"
    return "not flat" if found is None else found


@SETTINGS
@given(documents())
def test_flat_reader_equals_the_line_loop(text: str) -> None:
    """Whenever the one-pass reader answers, it answers what the line loop does."""
    fast = one_pass(text)
    if fast != "not flat":
        assert same(fast, line_loop(text)) or fast == line_loop(text) == "declined", text


@pytest.mark.parametrize(
    ("text", "flat"),
    [
        ("id: a\ntitle: b\n", True),
        ("id: a  \ntags: [x, y]   \n", True),  # trailing spaces are not part of the value
        ("id: a\ntitle: b", False),  # no final line break
        ("id: a\n\ntitle: b\n", False),  # a blank line
        ("id: a\n# c\n", False),
        ("access:\n  roles: [a]\n", False),
        ("id:\n", False),
        ("id:   \n", False),
    ],
)
def test_flat_reader_takes_only_key_value_lines(text: str, flat: bool) -> None:
    assert (one_pass(text) != "not flat") is flat
    assert check(text) or not flat


def test_a_repeated_flow_list_is_a_new_list_each_time() -> None:
    """Values are cached by their text; a list handed out is never shared with another."""
    first, second = fast_mapping("tags: [a, b]\n"), fast_mapping("tags: [a, b]\n")
    assert first is not None and second is not None
    first["tags"].append("c")
    assert second["tags"] == ["a", "b"]
    assert fast_mapping("tags: [a, b]\n") == {"tags": ["a", "b"]}


@pytest.mark.parametrize(
    "scalar", ['"plain"', '"a \\" b"', '"a \\\\ b"', "'plain'", "'it''s'", '"', "'", '"a', "'a"]
)
def test_quoted_scalars_equal_the_full_loader(scalar: str) -> None:
    check(f"title: {scalar}\n")


@pytest.mark.parametrize("scalar", EVERY_SCALAR_TEXT)
@pytest.mark.parametrize("shape", ["k: {}", "k: [{}]", "k: [a, {}]", "k:\n  - {}", "k:\n  n: {}"])
def test_fast_mapping_each_scalar_in_each_shape(scalar: str, shape: str) -> None:
    check(shape.format(scalar))


def test_fast_mapping_answers_the_common_shapes() -> None:
    text = (
        'id: policies.refunds\nversion: 2\nauthority: canonical\ntitle: "Refunds: v2"\n'
        "tags: [refund, billing]\ncreated: 2026-01-01\nvalid_until: 2026-06-01T00:00:00+02:00\n"
        "access:\n  roles: [support, sales]\nsupersedes:\n  - policies.refunds@1\n"
        "confidence: 0.8\nstatus: active\n"
    )
    assert check(text)


@pytest.mark.parametrize(
    "text",
    [
        "id: a\nid: b",  # duplicate key: the full loader words the error
        "id: a # comment",
        "title: |-\n  block",
        "id: &x a\nother: *x",
        "id: a\n\ttitle: b",
        "title: multi\n  line",
        "<<: {a: 1}",
        "",
    ],
)
def test_fast_mapping_declines_what_it_does_not_handle(text: str) -> None:
    assert fast_mapping(text) is None


@pytest.mark.parametrize("prefix", ["", "id: a\n", "access:\n  "])
def test_fast_mapping_declines_a_key_longer_than_yaml_allows(prefix: str) -> None:
    """YAML's scanner gives up on a simple key after 1024 characters: 1025 is an error."""
    assert check(prefix + "k" * 1024 + ": v")  # the longest key YAML accepts: answered
    text = prefix + "k" * 1025 + ": v"
    assert isinstance(slow_mapping(text), YamlError)
    assert fast_mapping(text) is None


_PLUS_ONE = timezone(timedelta(hours=1))
#: field → (values Pydantic accepts, values it refuses or that need care), as YAML types them
FIELD_VALUES: dict[str, tuple[list[Any], list[Any]]] = {
    "id": (["a", "policies.x", "0", "a" * 2000], ["Bad", "", "a\n", " a", "a ", "é", 12, None]),
    "version": ([1, 3, 10**30, None], [0, -1, True, False, "2", 1.0, [1]]),
    "authority": (["canonical", "gospel", "", None], [3, True, date(2026, 1, 1)]),
    "status": (["active", "draft", None], ["Active", "active ", 1, True, ["active"]]),
    "layer": (["L0", "L4", None], ["L9", "l0", 2, True, ["L0"]]),
    "title": (["T", "", None], [5, 1.5, True, ["x"], {"a": 1}, date(2026, 1, 1)]),
    "tags": ([[], ["a"], [""], None], [["a", 1], ["a", None], [["a"]], "solo", {"a": 1}]),
    "classification": (["internal", None], [1, True]),
    "access": (
        [None, {}, {"roles": ["a"]}, {"roles": None}, {"roles": []}],
        [{"x": 1}, [], {"roles": "a"}, {"roles": [1]}, {1: "a"}, {"roles": ["a"], "x": None}],
    ),
    "created": (
        ["2026-01-01", " 2026-01-01 ", date(2026, 1, 1), datetime(2026, 1, 1, 10), None],
        ["soon", 5, True, 1.5, [], date(1, 1, 1), datetime(1, 1, 1, tzinfo=_PLUS_ONE)],
    ),
    "valid_until": (
        ["2026-01-01T10:00:00+02:00", datetime(2026, 1, 1, 10, tzinfo=_PLUS_ONE), None],
        ["2026-02-30", "2026-01-01 10:00", "9999-12-31T23:00:00-05:00", date.max],
    ),
    "review_every": (["90d", "6m", " 1y ", None, "0d"], [90, "soon", "90D", "-1d", True]),
    "confidence": (
        [0.5, 1, 0, 1.0, -0.0, 1e-300, None],
        [1.5, -0.1, True, False, float("nan"), float("inf"), "0.5", 10**400, 2],
    ),
    "supersedes": (
        [None, ["a"], ["a@2", "b"], []],
        [["A"], "a@0", "a@01", [1], [None], "a", "a@2"],
    ),
    "superseded_by": ([None, "b@1", ["x"]], [5, "B", True, "b@"]),
    "conflicts_with": ([None, ["b", "c"]], [["b@1"], "Bad", [["b"]], "b"]),
    "content": (["", "body", None], [5, ["x"]]),
    "extra_key": ([1, "x", None, [1], {"a": None}], []),
}


@st.composite
def front_matter_data(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly valid data with at most one field drawn from the awkward values."""
    awkward = draw(st.sampled_from([None, *FIELD_VALUES]))
    data: dict[str, Any] = {}
    for name, (good, bad) in FIELD_VALUES.items():
        if name != "id" and name != awkward and not draw(st.booleans()):
            continue
        pool = list(good) + list(bad) if name == awkward else list(good)
        data[name] = draw(st.sampled_from(pool))
    return data


@SETTINGS
@given(front_matter_data())
def test_fast_fields_equals_pydantic(data: dict[str, Any]) -> None:
    fast = fast_fields(data)
    slow = slow_fields(data)
    if fast is not None:
        assert slow is not None, data
        assert same(fast, slow), (data, fast, slow)


@pytest.mark.parametrize(
    ("name", "value"),
    [(name, value) for name, (good, bad) in FIELD_VALUES.items() for value in [*good, *bad]],
)
def test_fast_fields_each_value_alone(name: str, value: Any) -> None:
    data = {"id": "a", name: value}
    fast, slow = fast_fields(data), slow_fields(data)
    if fast is not None:
        assert slow is not None and same(fast, slow), (data, fast, slow)


def test_fast_fields_answers_plain_valid_data() -> None:
    data = {"id": "a", "version": 2, "status": "draft", "layer": "L1", "tags": ["x"],
            "access": {"roles": ["support"]}, "created": "2026-01-01", "confidence": 1,
            "review_every": "90d", "supersedes": ["a@1"], "content": "body"}  # fmt: skip
    fast = fast_fields(data)
    assert fast is not None and same(fast, slow_fields(data))


def test_fast_path_covers_synthetic_and_sample_repositories() -> None:
    """Real shapes: the fast path answers nearly all of them, and always agrees."""
    _, objects = generate(400, seed=3)
    texts = []
    for o in objects:
        text = render(o)
        if not o.yaml_file and text.startswith("---\n"):
            texts.append(text.split("---\n")[1])
    sample = Path(__file__).resolve().parent.parent.parent / "sample-repo"
    for path in sorted(sample.rglob("*.md")):
        parts = path.read_text(encoding="utf-8").split("---\n")
        if len(parts) >= 3 and parts[0] == "":
            texts.append(parts[1])
    answered = sum(check(t) for t in texts)
    assert answered >= 0.9 * len(texts)
    for text in texts:
        data = fast_mapping(text)
        if isinstance(data, dict):
            fast = fast_fields(data)
            if fast is not None:
                assert same(fast, slow_fields(data))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.sampled_from(["\u2028", "\x85", "é", "\x00", '"\\']),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        | st.dictionaries(st.integers(), inner, max_size=2)
    ),
    max_leaves=20,
)


def standard(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        return f"ValueError: {exc}"


@SETTINGS
@given(JSON_VALUES)
def test_dumps_indent2_equals_json_dumps(value: Any) -> None:
    try:
        fast = dumps_indent2(value)
    except ValueError as exc:
        fast = f"ValueError: {exc}"
    assert fast == standard(value)


def split_by_lines(text: str) -> tuple[str, str] | str | None:
    """The plain reading of SPEC §1.2 the fast split must agree with: the front matter
    is the lines between the ``---`` lines, each with its line break."""
    if text.split("\n", 1)[0].rstrip() != "---":
        return None
    lines = text.split("\n")
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return "".join(line + "\n" for line in lines[1:i]), "\n".join(lines[i + 1 :])
    return "never closed"


@SETTINGS
@given(
    st.lists(
        st.sampled_from(["---", "--- ", "---\u2028", "----", " ---", "a: 1", "", "x---", "-- -"]),
        max_size=8,
    ).map("\n".join)
)
def test_split_front_matter_equals_the_line_reading(text: str) -> None:
    try:
        got: tuple[str, str] | str | None = split_front_matter(text)
    except YamlError:
        got = "never closed"
    assert got == split_by_lines(text)


@pytest.mark.parametrize(
    "text",
    [
        "content: |\n  a\n  b\n",
        "content: |\n  a\n\n  b\n\n\nid: x\n",
        "content: |\n  a",
        "content: |\n\n  a\n  \n",
        "content: |\n    a\n  b\n",
        "content: |\n  a\n    b\n# c\nid: y",
        "content: |\n   \n  a\n",
        "content: |\n  a\n   \n",
        "content: |\n",
        "content: |\nid: z\n",
        "id: a\ncontent: |\n  # heading\n  - list\n  key: value\n",
    ],
)
def test_literal_blocks_equal_the_full_loader(text: str) -> None:
    check(text)


def parse_slowly(rel: str, raw: bytes) -> ParsedFile:
    """``parse_file`` with both fast paths switched off: PyYAML and Pydantic decide."""
    with (
        patch("octui.load.frontmatter.fast_mapping", return_value=None),
        patch("octui.load.frontmatter.fast_fields", return_value=None),
    ):
        return parse_file(rel, raw)


def same_parse(a: ParsedFile, b: ParsedFile) -> bool:
    return (a.error, a.unknown, a.skipped) == (b.error, b.unknown, b.skipped) and same(
        a.fields, b.fields
    )


@SETTINGS
@given(documents(), st.booleans())
def test_parse_file_is_the_same_with_or_without_the_fast_paths(text: str, markdown: bool) -> None:
    text = "id: a\n" + text  # a valid object unless the rest says otherwise
    rel, raw = ("x.md", f"---\n{text}\n---\nbody\n") if markdown else ("x.yaml", text)
    fast = parse_file(rel, raw.encode())
    slow = parse_slowly(rel, raw.encode())
    assert same_parse(fast, slow), (raw, fast, slow)


def as_markdown(yaml_text: str) -> str:
    """The same lines, each with its line break, as the front matter of a Markdown file."""
    return "---\n" + yaml_text + "---\nbody\n"


#: how a front matter may end: a block scalar's last line break is the one before '---'
LAST_LINES = [
    "",
    "last: |\n  text",
    "last: |\n  a\n\n  b\n",
    "last: |+\n  a\n",
    "last: >\n  a\n  b",
]


@SETTINGS
@given(documents(), st.sampled_from(LAST_LINES))
def test_front_matter_lines_mean_what_they_mean_in_a_yaml_file(text: str, last: str) -> None:
    """The front matter of a ``.md`` file and a ``.yaml`` file holding the same lines give
    the same YAML value, on the fast path and on the full loader."""
    if any(line.rstrip() == "---" for line in text.split("\n")) or text.startswith("\ufeff"):
        return  # a '---' line ends the front matter; a BOM is only dropped at a file's start
    text = text + ("\n" if text and not text.endswith("\n") else "") + last
    yaml_text = text if text.endswith("\n") else text + "\n"
    split = split_front_matter(as_markdown(yaml_text))
    assert split is not None and split[1] == "body\n"
    front = split[0]
    fast_md, fast_yaml = fast_mapping(front), fast_mapping(yaml_text)
    assert same(fast_md, fast_yaml), (yaml_text, fast_md, fast_yaml)
    slow_md, slow_yaml = slow_mapping("\n" + front), slow_mapping(yaml_text)
    if isinstance(slow_yaml, YamlError):
        assert isinstance(slow_md, YamlError), (yaml_text, slow_md)
    else:
        assert same(slow_md, slow_yaml), (yaml_text, slow_md, slow_yaml)


@pytest.mark.parametrize(
    ("block", "value"),
    [
        ("|\n  text", "text\n"),
        ("|\n  text\n  more", "text\nmore\n"),
        ("|\n  text\n\n", "text\n"),
        ("|-\n  text", "text"),
        ("|+\n  text\n", "text\n\n"),
        (">\n  text\n  more", "text more\n"),
    ],
)
def test_a_block_scalar_ending_the_front_matter_keeps_its_line_break(
    block: str, value: str
) -> None:
    yaml_text = f"id: a\nsummary: {block}\n"
    for parse in (parse_file, parse_slowly):
        md, yml = (
            parse("x.md", as_markdown(yaml_text).encode()),
            parse("x.yaml", yaml_text.encode()),
        )
        assert md.fields is not None and yml.fields is not None, (md, yml)
        assert md.fields["summary"] == yml.fields["summary"] == value
