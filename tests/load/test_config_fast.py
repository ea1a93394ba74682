"""The configuration's fast check: the same :class:`Config` as the Pydantic models whenever
it answers, the models' own error otherwise, and no Pydantic import for a plain file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from campaign import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from octui.core.enums import Authority, TieBreaker
from octui.load.config import ConfigError, parse_config
from octui.load.config_fast import fast_config
from octui.load.config_schema import validated_config
from octui.load.strict_yaml import load_yaml

ROOT = Path(__file__).resolve().parents[2]


def schema(data: dict[Any, Any]) -> object:
    """What the Pydantic models make of ``data``: a configuration, or the error's text."""
    try:
        return validated_config(data, "opencontext.yaml")
    except ConfigError as exc:
        return str(exc)


ODD: list[Any] = [None, True, 0, 1, -1, 1 << 70, 1.5, "", "x", [], {}, ["x"], {"a": 1}, {1: "x"}]
TEXT = st.sampled_from(["", "x", "main", "wiki", "a b", "main\n", "../up", "/abs", "L", "é"])
PATTERNS = st.lists(st.sampled_from(["policies.*", "", "mission", "*"]), max_size=3)
LEVELS = st.lists(st.sampled_from(["public", "internal", "Secret", "confidential", "x"]))
DAYS = st.sampled_from(["90d", "2y", " 3w ", "6m", "0d", "d", "9" * 30 + "d", "1x"])


def maybe(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(values, st.sampled_from(ODD))


def part(keys: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """A mapping of some of ``keys`` (sometimes with an unknown key, sometimes not a mapping)."""
    known = st.fixed_dictionaries({}, optional={k: maybe(v) for k, v in keys.items()})
    odd = st.dictionaries(st.sampled_from(["nope", *keys]), st.sampled_from(ODD), max_size=2)
    return st.one_of(known, known, known, odd, st.sampled_from(ODD))


AUTHORITY = part(
    {
        "precedence": st.permutations([a.value for a in Authority]).map(list)
        | st.lists(st.sampled_from([a.value for a in Authority]), max_size=7),
        "tie_breakers": st.lists(st.sampled_from([t.value for t in TieBreaker] + ["size"])),
    }
)
SOURCE = part(
    {"name": TEXT, "path": TEXT | st.just("."), "authority": st.sampled_from(["observed", "bad"])}
)
ROLE = part(
    {
        "clearance": st.sampled_from(["internal", "top"]),
        "description": TEXT,
        "scope": part({"include": PATTERNS, "exclude": PATTERNS}),
    }
)
CONFIG = st.fixed_dictionaries(
    {},
    optional={
        "spec": maybe(st.just(1)),
        "authority": AUTHORITY,
        "classification": part({"levels": LEVELS}),
        "freshness": part(
            {"default": DAYS, "by_type": st.dictionaries(TEXT, maybe(DAYS), max_size=2)}
        ),
        "ranking": part({"floor": st.integers(-2, 1 << 64)}),
        "sources": maybe(st.lists(SOURCE, max_size=3)),
        "roles": maybe(st.dictionaries(TEXT | st.sampled_from([1, None, True]), ROLE, max_size=3)),
        "extra": st.sampled_from(ODD),
    },
)


@settings(max_examples=examples(600), deadline=None, suppress_health_check=list(HealthCheck))
@given(CONFIG)
def test_the_fast_check_makes_what_the_models_make(data: dict[str, Any]) -> None:
    fast = fast_config(data)
    if fast is not None:
        assert fast == schema(data)


def test_plain_configurations_take_the_fast_check() -> None:
    """Every valid configuration of the fixtures and examples is checked without Pydantic."""
    found = sorted(ROOT.glob("tests/**/opencontext.yaml")) + sorted(
        ROOT.glob("examples/**/opencontext.yaml")
    )
    assert found
    for path in found:
        data = load_yaml(path.read_bytes()) or {}
        expected = schema(data)
        if isinstance(expected, str):
            assert fast_config(data) is None, path
        else:
            assert fast_config(data) == expected, path


@pytest.mark.parametrize(
    "data",
    [
        {"spec": True},
        {"ranking": {"floor": 1 << 70}},
        {"sources": [{"name": "a", "authority": ["observed"]}]},
        {"roles": {"r": None}},
        {"roles": {"r": {"scope": {"exclude": None}}}},
        {"freshness": {"by_type": None}},
    ],
)
def test_the_models_decide_what_the_fast_check_is_unsure_of(data: dict[str, Any]) -> None:
    assert fast_config(data) is None
    expected = schema(data)
    try:
        got: object = parse_config(data, "opencontext.yaml")
    except ConfigError as exc:
        got = str(exc)
    assert got == expected


def test_loading_a_plain_repository_imports_no_pydantic(tmp_path: Path) -> None:
    """Pydantic is imported only when a file needs it: not for a plain configuration and
    plainly valid objects, resolved by the CLI."""
    (tmp_path / "opencontext.yaml").write_text("spec: 1\nroles:\n  r:\n    clearance: public\n")
    (tmp_path / "a.md").write_text("---\nid: a\ntitle: A\n---\nbody\n")
    code = (
        "import sys, io\n"
        "from octui.cli.main import main\n"
        "sys.stdout = io.StringIO()\n"
        f"argv = ['resolve', {str(tmp_path)!r}, '--role', 'r', '--format', 'json', '--no-cache']\n"
        "code = main(argv)\n"
        "sys.stdout = sys.__stdout__\n"
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "[]"]


def test_a_load_served_by_the_parse_cache_imports_no_pydantic(tmp_path: Path) -> None:
    """Reading cached parses back needs the field names, not the front-matter model."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "opencontext.yaml").write_text("spec: 1\nroles:\n  r:\n    clearance: public\n")
    for i in range(120):  # above the parse cache's smallest repository
        (repo / f"a{i}.md").write_text(f"---\nid: a{i}\ntitle: A\n---\nbody\n")
    code = (
        "import sys, io\n"
        "from octui.load import parse_cache\n"
        "parse_cache.RACY_NS = 0  # files written just now are cached too\n"
        "from octui.cli.main import main\n"
        "sys.stdout = io.StringIO()\n"
        f"code = main(['resolve', {str(repo)!r}, '--role', 'r', '--format', 'json'])\n"
        "sys.stdout = sys.__stdout__\n"
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("OCTUI_NO_CACHE", None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        for _ in range(2)  # the first fills the parse cache, the second is served by it
    ]
    assert list((tmp_path / "cache" / "octui").glob("*.pickle"))  # the cache was used
    assert [r.stdout.split() for r in runs] == [["0", "[]"], ["0", "[]"]]
