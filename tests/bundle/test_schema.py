"""The JSON Schemas agree with what octui accepts, flag typos, and describe every bundle."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from octui.bundle.schema import SCHEMAS, bundle_schema, config_schema, object_schema
from octui.core.model import OBJECT_FIELDS
from octui.core.timeutil import parse_duration, parse_instant
from octui.load.config import ConfigError, parse_config
from octui.load.frontmatter import parse_file, split_front_matter
from octui.load.loader import load_repository
from octui.load.strict_yaml import load_yaml

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE_REPO = PROJECT_ROOT / "sample-repo"
BROKEN_REPO = PROJECT_ROOT / "tests" / "fixtures" / "broken-repo"
OPENCONTEXT = Path(sys.executable).parent / "opencontext"

CONFIG = Draft202012Validator(config_schema())
OBJECT = Draft202012Validator(object_schema())
BUNDLE = Draft202012Validator(bundle_schema())


def as_json(value: Any) -> Any:
    """A YAML value as an editor's schema checker sees it: timestamps are strings."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value


def problems(validator: Draft202012Validator, instance: Any) -> list[str]:
    """Each schema error as ``path: message`` (the path of the offending key)."""
    return sorted(
        "/".join(map(str, e.absolute_path)) + ": " + e.message
        for e in validator.iter_errors(instance)
    )


def flagged_keys(instance: dict[str, Any]) -> set[str]:
    """The top-level keys the object schema complains about."""
    keys: set[str] = set()
    for error in OBJECT.iter_errors(instance):
        if error.validator == "additionalProperties":
            keys.update(k for k in instance if k not in object_schema()["properties"])
        else:
            keys.add(str(error.absolute_path[0]))
    return keys


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_each_schema_is_a_valid_2020_12_schema(name: str) -> None:
    schema = SCHEMAS[name]()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_the_command_prints_the_schema(name: str) -> None:
    proc = subprocess.run(
        [str(OPENCONTEXT), "schema", name], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == SCHEMAS[name]()


def test_the_object_schemas_list_every_field_of_the_spec() -> None:
    assert tuple(object_schema()["properties"]) == OBJECT_FIELDS
    bundle_object = bundle_schema()["properties"]["objects"]["items"]
    extra = {"lifecycle", "stale", "score", "matched", "path", "source"}
    assert set(bundle_object["properties"]) == set(OBJECT_FIELDS) | extra
    assert set(bundle_object["required"]) == set(bundle_object["properties"])


# -- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize("repo", [SAMPLE_REPO, BROKEN_REPO], ids=["sample", "broken"])
def test_the_shipped_configurations_validate(repo: Path) -> None:
    data = load_yaml((repo / "opencontext.yaml").read_bytes())
    assert problems(CONFIG, as_json(data)) == []


def octui_accepts_config(data: dict[str, Any]) -> bool:
    text = yaml.safe_dump(data)  # strings that look like dates stay strings (quoted)
    try:
        parse_config(load_yaml(text))
    except ConfigError:
        return False
    return True


CONFIG_CASES: list[dict[str, Any]] = [
    {},
    {"spec": 1},
    {"spec": 2},
    {"spec": True},
    {"spec": None},
    {"freshness": {"default": "180d"}},
    {"freshness": {"default": "90days"}},
    {"freshness": {"default": "6m", "by_type": {"pricing": "2w"}}},
    {"freshness": {"default": None}},
    {"freshness": {"default": 180}},
    {"freshness": {"by_type": {"pricing": "1y", "x": "0d"}}},
    {"freshness": {"by_type": {"pricing": "01d"}}},
    {"freshness": {"by_type": None}},
    {"freshness": None},
    {
        "authority": {
            "precedence": list(
                reversed(
                    config_schema()["properties"]["authority"]["properties"]["precedence"][
                        "default"
                    ]
                )
            )
        }
    },
    {"authority": {"precedence": ["canonical", "approved", "reference", "observed", "inferred"]}},
    {
        "authority": {
            "precedence": ["canonical", "approved", "reference", "observed", "inferred", "gospel"]
        }
    },
    {
        "authority": {
            "precedence": [
                "canonical",
                "canonical",
                "reference",
                "observed",
                "inferred",
                "historical",
            ]
        }
    },
    {"authority": {"tie_breakers": ["updated", "id", "id"]}},
    {"authority": {"tie_breakers": []}},
    {"authority": {"tie_breakers": ["newest"]}},
    {"authority": {"tie_breaker": ["id"]}},
    {"authority": None},
    {"classification": {"levels": ["open", "secret"]}},
    {"classification": {"levels": []}},
    {"classification": {"levels": ["Open"]}},
    {"classification": {"levels": ["a", "a"]}},
    {"ranking": {"floor": 0}},
    {"ranking": {"floor": -1}},
    {"ranking": {"floor": 1.5}},
    {"ranking": {"floor": None}},
    {"sources": [{"name": "main"}]},
    {
        "sources": [
            {"name": "main", "path": "."},
            {"name": "t", "path": "in/t", "authority": "observed"},
        ]
    },
    {"sources": [{"name": "t", "path": "x", "authority": "gospel"}]},
    {"sources": [{"name": "t", "path": "/abs"}]},
    {"sources": [{"name": "t", "path": "a/../b"}]},
    {"sources": [{"name": "t", "path": ".."}]},
    {"sources": [{"name": "t", "path": "a/..b"}]},
    {"sources": [{"name": "-t"}]},
    {"sources": [{"path": "x"}]},
    {"sources": []},
    {"sources": None},
    {"roles": {"support": {"clearance": "internal"}}},
    {
        "roles": {
            "support": {"clearance": "internal", "scope": {"include": ["a.*"], "exclude": ["b"]}}
        }
    },
    {"roles": {"support": {"scope": {"include": None}}}},
    {"roles": {"support": {"scope": {"include": []}}}},
    {"roles": {"support": {"scope": {"include": [""]}}}},
    {"roles": {"support": {"scope": {"exclude": None}}}},
    {"roles": {"support": {"scope": None}}},
    {"roles": {"support": None}},
    {"roles": {"support": {"clearence": "internal"}}},
    {"roles": {"support": {"description": "tier 1"}}},
    {"roles": None},
    {"role": {}},
]


@pytest.mark.parametrize("data", CONFIG_CASES, ids=[json.dumps(c) for c in CONFIG_CASES])
def test_the_config_schema_accepts_exactly_what_octui_accepts(data: dict[str, Any]) -> None:
    assert CONFIG.is_valid(data) == octui_accepts_config(data), problems(CONFIG, data)


def test_a_config_typo_is_flagged_at_its_key() -> None:
    found = problems(CONFIG, {"freshness": {"default": "90days"}, "roles": {"r": {"scop": {}}}})
    assert any(p.startswith("freshness/default: ") for p in found), found
    assert any(p.startswith("roles/r: ") and "'scop'" in p for p in found), found


# -- objects -----------------------------------------------------------------------------------


def front_matter(path: Path) -> dict[str, Any] | None:
    """An object file's metadata, parsed by octui's own YAML loader."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        split = split_front_matter(text)
        if split is None:
            return None
        data = load_yaml(split[0])
    else:
        data = load_yaml(text)
    return as_json(data) if isinstance(data, dict) else None


def test_every_sample_object_validates_except_the_typos_octui_warns_about() -> None:
    """The schema flags exactly the keys the loader warns about (unknown field, authority)."""
    repo = load_repository(SAMPLE_REPO)
    checked = 0
    flagged: dict[str, set[str]] = {}
    for obj in repo.objects:
        data = front_matter(SAMPLE_REPO / obj.path)
        assert data is not None, obj.path
        checked += 1
        keys = flagged_keys(data)
        if keys:
            flagged[obj.path] = keys
        expected = set(obj.unknown_fields)
        if obj.declared_authority not in (None, *_SIX):
            expected.add("authority")
        assert keys == expected, (obj.path, problems(OBJECT, data))
    assert checked == len(repo.objects) >= 50
    assert flagged == {
        "pricing/team.v1.md": {"superseeded_by"},
        "procedures/refund.md": {"reviewer"},
        "notes/competitor-landscape.md": {"authority"},
    }


_SIX = ("canonical", "approved", "reference", "observed", "inferred", "historical")


@pytest.mark.parametrize(
    ("typo", "key"),
    [
        ({"superseeded_by": ["pricing.team@2"]}, "superseeded_by"),
        ({"review_every": "90days"}, "review_every"),
        ({"authority": "gospel"}, "authority"),
        ({"layer": "l0"}, "layer"),
        ({"supersedes": ["a@0"]}, "supersedes"),
        ({"valid_until": "next tuesday"}, "valid_until"),
    ],
)
def test_an_object_typo_is_flagged_at_its_key(typo: dict[str, Any], key: str) -> None:
    assert flagged_keys({"id": "pricing.team", "version": 1} | typo) == {key}


def octui_accepts_object(data: dict[str, Any]) -> bool:
    parsed = parse_file("x.yaml", yaml.safe_dump(data).encode())
    return parsed.error is None


OBJECT_CASES: list[tuple[str, Any]] = [
    ("version", 2),
    ("version", 0),
    ("version", True),
    ("version", "1"),
    ("version", None),
    ("status", "active"),
    ("status", "draft"),
    ("status", "Active"),
    ("status", None),
    ("title", "A title"),
    ("title", None),
    ("title", 5),
    ("layer", "L0"),
    ("layer", "L4"),
    ("layer", "L5"),
    ("layer", None),
    ("tags", ["a", "b"]),
    ("tags", "a"),
    ("tags", [1]),
    ("tags", None),
    ("classification", "internal"),
    ("classification", None),
    ("access", {"roles": ["support"]}),
    ("access", {"roles": None}),
    ("access", {}),
    ("access", {"role": ["support"]}),
    ("access", None),
    ("access", ["support"]),
    ("created", "2026-03-01"),
    ("created", "2026-03-01T10:00:00Z"),
    ("created", "2026-03-01T10:00"),
    ("created", "2026-03-01 10:00:00+02:00"),
    ("created", "2026-03-01T10:00:00.25-0500"),
    ("created", "03/01/2026"),
    ("created", "2026-3-1"),
    ("created", 20260301),
    ("created", None),
    ("valid_until", "2026-12-31T23:59:59z"),
    ("review_every", "90d"),
    ("review_every", "12w"),
    ("review_every", "6m"),
    ("review_every", "1y"),
    ("review_every", "0d"),
    ("review_every", "90days"),
    ("review_every", "90D"),
    ("review_every", "090d"),
    ("review_every", "1234567d"),
    ("review_every", 90),
    ("review_every", None),
    ("confidence", 0.5),
    ("confidence", 1),
    ("confidence", 0),
    ("confidence", 1.5),
    ("confidence", -0.1),
    ("confidence", True),
    ("confidence", "high"),
    ("confidence", None),
    ("supersedes", ["a", "b@2"]),
    ("supersedes", "a@1"),
    ("supersedes", ["a@0"]),
    ("supersedes", ["A"]),
    ("supersedes", [1]),
    ("supersedes", None),
    ("superseded_by", "b@2"),
    ("superseded_by", ["b@2", "c"]),
    ("superseded_by", ["b@x"]),
    ("conflicts_with", ["a"]),
    ("conflicts_with", "a"),
    ("conflicts_with", ["a@1"]),
    ("content", "body"),
    ("content", None),
    ("content", 5),
    ("id", "policies.refunds"),
    ("id", "Policies"),
    ("id", "-x"),
    ("id", 5),
]


@pytest.mark.parametrize(
    ("key", "value"), OBJECT_CASES, ids=[f"{k}={v!r}" for k, v in OBJECT_CASES]
)
def test_the_object_schema_accepts_exactly_what_octui_loads(key: str, value: Any) -> None:
    data = {"id": "x", "authority": "canonical"} | {key: value}
    assert OBJECT.is_valid(data) == octui_accepts_object(data), problems(OBJECT, data)


def test_what_a_schema_cannot_say_is_named() -> None:
    """JSON has one number type: 1.0 is an integer to a schema, a float to YAML and octui."""
    data = {"id": "x", "version": 1.0}
    assert OBJECT.is_valid(data)
    assert not octui_accepts_object(data)


def test_an_object_without_an_id_is_rejected_by_both() -> None:
    assert not OBJECT.is_valid({"title": "x"})
    assert not octui_accepts_object({"title": "x"})


_DURATION_TEXT = st.text(alphabet="0123456789dwmyD x", max_size=9)
_INSTANT_TEXT = st.text(alphabet="0123456789-:T tZz+.", max_size=30)


def accepts(parse: Any, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


@given(_DURATION_TEXT)
def test_the_duration_pattern_is_the_loaders(text: str) -> None:
    assert OBJECT.is_valid({"id": "x", "review_every": text}) == accepts(parse_duration, text)


@given(st.one_of(_INSTANT_TEXT, st.datetimes().map(str), st.dates().map(str)))
def test_every_instant_octui_reads_passes_the_schema(text: str) -> None:
    """The pattern cannot check the calendar (2026-02-30); everything else matches."""
    if accepts(parse_instant, text):
        assert OBJECT.is_valid({"id": "x", "valid_from": text}), text


# -- bundles -----------------------------------------------------------------------------------


def resolve_json(repo: Path, *args: str) -> dict[str, Any]:
    proc = subprocess.run(
        [str(OPENCONTEXT), "resolve", str(repo), "--format", "json", "--no-cache", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    bundle: dict[str, Any] = json.loads(proc.stdout)
    return bundle


SAMPLE_ROLES = ("support", "sales", "engineering", "leadership", "public-bot")


@pytest.mark.parametrize("role", SAMPLE_ROLES)
@pytest.mark.parametrize(
    "extra",
    [
        (),
        ("--task", "refund", "--as-of", "2026-03-15"),
        ("--include-historical", "--as-of", "2026-10-15", "--strict"),
        ("--task", "pricing sso", "--limit", "3", "--min-relevance", "1.5"),
    ],
    ids=["now", "task", "historical", "limited"],
)
def test_every_sample_bundle_validates(role: str, extra: tuple[str, ...]) -> None:
    bundle = resolve_json(SAMPLE_REPO, "--role", role, *extra)
    assert problems(BUNDLE, bundle) == []
    assert bundle["objects"], "a bundle with objects exercises the object schema"


def test_the_broken_fixture_bundle_validates() -> None:
    bundle = resolve_json(BROKEN_REPO, "--role", "support", "--include-historical")
    assert problems(BUNDLE, bundle) == []
    assert bundle["warnings"] and bundle["exclusions"]


def test_the_bundle_schema_rejects_a_tampered_bundle() -> None:
    bundle = resolve_json(SAMPLE_REPO, "--role", "support", "--task", "refund")
    assert bundle["warnings"]
    bundle["warnings"][0]["severity"] = (
        "warning" if bundle["warnings"][0]["severity"] == "error" else "error"
    )
    bundle["objects"][0]["lifecycle"] = "retired"
    bundle["digest"] = "sha256:xyz"
    found = problems(BUNDLE, bundle)
    assert any(p.startswith("warnings/0/severity") for p in found), found
    assert any(p.startswith("objects/0/lifecycle") for p in found), found
    assert any(p.startswith("digest") for p in found), found
