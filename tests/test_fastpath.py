"""The fast front-matter path gives exactly what the full YAML loader and Pydantic give.

``octui.fastyaml`` is an optimisation: whenever it answers, its answer must equal
the slow path's value and types; when it is unsure it must answer ``None``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from octui.fastjson import dumps_indent2
from octui.fastyaml import fast_fields, fast_mapping
from octui.model import FrontMatter
from octui.synth import generate, render
from octui.yamlio import YamlError, load_yaml

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
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
SCALARS = st.sampled_from(SCALAR_TEXTS)
LITERAL_LINES = ["  text", "  more: x", "   deeper", "", " ", "  ", "    ", "  # not a comment",
                 " one", "x: 1", "\ttab", "  trailing  "]  # fmt: skip
KEYS = st.sampled_from(
    ["id", "title", "tags", "version", "yes", "null", "on", "a-b", "_x", "Key", "access", "id"]
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        key = draw(KEYS)
        shape = draw(st.integers(0, 5))
        if shape <= 2:
            lines.append(f"{key}: {draw(SCALARS)}")
        elif shape == 3:
            lines.append(f"{key}:")
            indent = draw(st.sampled_from(["", "  ", "    "]))
            for _ in range(draw(st.integers(0, 3))):
                lines.append(f"{indent}- {draw(SCALARS)}")
        elif shape == 4:
            lines.append(f"{key}:")
            for _ in range(draw(st.integers(0, 3))):
                indent = draw(st.sampled_from(["  ", "  ", "   "]))
                lines.append(f"{indent}{draw(KEYS)}: {draw(SCALARS)}")
        elif shape == 5 and draw(st.booleans()):
            lines.append(f"{key}: |")
            for _ in range(draw(st.integers(0, 4))):
                lines.append(draw(st.sampled_from(LITERAL_LINES)))
        else:
            lines.append(draw(st.sampled_from(["", "# comment", "  # indented", "key", "  x: 1"])))
    return "\n".join(lines)


@SETTINGS
@given(documents())
def test_fast_mapping_equals_full_loader(text: str) -> None:
    check(text)


@pytest.mark.parametrize("scalar", SCALAR_TEXTS)
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


#: field → (values Pydantic accepts, values it refuses or that need care)
FIELD_VALUES: dict[str, tuple[list[Any], list[Any]]] = {
    "id": (["a", "policies.x"], ["Bad", "", "a\n", 12, None]),
    "version": ([1, 3, None], [0, -1, True, "2", 1.0]),
    "authority": (["canonical", "gospel", None], [3]),
    "status": (["active", "draft", None], ["Active", 1]),
    "layer": (["L0", "L4", None], ["L9", 2]),
    "title": (["T", None], [5, ["x"]]),
    "tags": (([], ["a"], None), (["a", 1], "solo")),
    "classification": (["internal", None], [1]),
    "access": ([None, {}, {"roles": ["a"]}, {"roles": None}], [{"x": 1}, [], {"roles": "a"}]),
    "created": (["2026-01-01", None], ["soon", 5, True]),
    "valid_until": (["2026-01-01T10:00:00+02:00", None], ["2026-02-30"]),
    "review_every": (["90d", "6m", None, "0d"], [90, "soon"]),
    "confidence": ([0.5, 1, 0, None], [1.5, -0.1, True, float("nan"), "0.5", 10**400]),
    "supersedes": ([None, ["a"], ["a@2", "b"]], [["A"], "a@0", [1], "a", "a@2"]),
    "superseded_by": ([None, "b@1", ["x"]], [5, "B"]),
    "conflicts_with": ([None, ["b", "c"]], [["b@1"], "Bad", "b"]),
    "content": (["", "body", None], [5]),
    "extra_key": ([1, "x", None], []),
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
    sample = Path(__file__).resolve().parent.parent / "sample-repo"
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
    """The plain reading of SPEC §1.2 the fast split must agree with."""
    if text.split("\n", 1)[0].rstrip() != "---":
        return None
    lines = text.split("\n")
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :])
    return "never closed"


@SETTINGS
@given(
    st.lists(
        st.sampled_from(["---", "--- ", "---\u2028", "----", " ---", "a: 1", "", "x---", "-- -"]),
        max_size=8,
    ).map("\n".join)
)
def test_split_front_matter_equals_the_line_reading(text: str) -> None:
    from octui.loader import split_front_matter

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
