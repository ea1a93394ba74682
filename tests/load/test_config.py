"""``opencontext.yaml``: defaults, and every error naming the file, the key and the expectation."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_builder import make_repo, obj, resolve_at

from octui.core.enums import DEFAULT_PRECEDENCE, Authority, TieBreaker
from octui.load.config import ConfigError, NotARepository, load_config
from octui.load.loader import load_repository
from octui.resolve.result import UnknownRole


def config_error(tmp_path: Path, text: str) -> ConfigError:
    (tmp_path / "opencontext.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    err = info.value
    message = str(err)
    assert "\n" not in message
    assert str(tmp_path / "opencontext.yaml") in message
    assert err.file == str(tmp_path / "opencontext.yaml")
    # loading the repository raises the same error
    with pytest.raises(ConfigError):
        load_repository(tmp_path)
    return err


def test_defaults(tmp_path: Path) -> None:
    (tmp_path / "opencontext.yaml").write_text("spec: 1\n", encoding="utf-8")
    cfg = load_config(tmp_path)
    assert cfg.authority.precedence == DEFAULT_PRECEDENCE
    assert [a.value for a in cfg.authority.precedence] == [
        "canonical",
        "approved",
        "reference",
        "observed",
        "inferred",
        "historical",
    ]
    assert [t.value for t in cfg.authority.tie_breakers] == [
        "version",
        "updated",
        "confidence",
        "id",
    ]
    assert cfg.classification.levels == ("public", "internal", "confidential", "restricted")
    assert [(s.name, s.path, s.authority) for s in cfg.sources] == [("main", ".", None)]
    assert cfg.ranking.floor == 10
    assert cfg.freshness.default is None and cfg.freshness.by_type == {}
    assert cfg.roles == {}


def test_empty_file_is_all_defaults(tmp_path: Path) -> None:
    (tmp_path / "opencontext.yaml").write_text("", encoding="utf-8")
    assert load_config(tmp_path).sources[0].path == "."


def test_id_appended_to_tie_breakers_and_reorder_respected(tmp_path: Path) -> None:
    (tmp_path / "opencontext.yaml").write_text(
        "authority:\n"
        "  precedence: [historical, inferred, observed, reference, approved, canonical]\n"
        "  tie_breakers: [created, confidence]\n",
        encoding="utf-8",
    )
    cfg = load_config(tmp_path)
    assert cfg.authority.tie_breakers == (TieBreaker.CREATED, TieBreaker.CONFIDENCE, TieBreaker.ID)
    assert cfg.authority_rank("historical") == 0
    assert cfg.authority_rank("canonical") == 5
    assert cfg.authority_rank(None) == 6 and cfg.authority_rank("gospel") == 6


def test_reordered_precedence_changes_the_winner(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("p", authority="canonical", version=2),
            "b.md": obj("p", authority="observed"),
        },
        {
            "authority": {
                "precedence": [
                    "observed",
                    "canonical",
                    "approved",
                    "reference",
                    "inferred",
                    "historical",
                ]
            }
        },
    )
    assert [i.obj.key for i in resolve_at(root).included] == ["p@1"]


def test_durations(tmp_path: Path) -> None:
    (tmp_path / "opencontext.yaml").write_text(
        "freshness: {default: 2y, by_type: {a: 3m, b: 2w, c: 10d}}\n", encoding="utf-8"
    )
    f = load_config(tmp_path).freshness
    assert f.default == 730 and f.by_type == {"a": 90, "b": 14, "c": 10}


@pytest.mark.parametrize(
    ("levels", "missing", "extra"),
    [
        (["canonical", "approved", "reference", "observed", "inferred"], ["historical"], []),
        (
            ["canonical", "approved", "reference", "observed", "inferred", "historical", "supreme"],
            [],
            ["supreme"],
        ),
        (
            ["canonical", "approved", "reference", "observed", "inferred", "gospel"],
            ["historical"],
            ["gospel"],
        ),
    ],
)
def test_precedence_must_be_a_permutation(
    tmp_path: Path, levels: list[str], missing: list[str], extra: list[str]
) -> None:
    err = config_error(tmp_path, f"authority:\n  precedence: [{', '.join(levels)}]\n")
    assert err.key == "authority.precedence"
    assert "permutation" in err.problem
    for name in missing:
        assert "missing" in err.problem and name in err.problem
    for name in extra:
        assert name in err.problem
    if not missing:
        assert "missing" not in err.problem


def test_precedence_repeated_level(tmp_path: Path) -> None:
    err = config_error(
        tmp_path,
        "authority:\n  precedence: "
        "[canonical, canonical, reference, observed, inferred, historical]\n",
    )
    assert err.key == "authority.precedence"
    assert "approved" in err.problem and "canonical" in err.problem


def test_unknown_tie_breaker(tmp_path: Path) -> None:
    err = config_error(tmp_path, "authority:\n  tie_breakers: [version, recency]\n")
    assert err.key == "authority.tie_breakers"
    assert "'recency'" in err.problem
    for name in ("version", "updated", "created", "confidence", "id"):
        assert name in err.problem


def test_unknown_clearance_level(tmp_path: Path) -> None:
    err = config_error(tmp_path, "roles:\n  support:\n    clearance: secret\n")
    assert err.key == "roles.support.clearance"
    assert "'secret'" in err.problem and "public, internal, confidential, restricted" in err.problem


def test_clearance_checked_against_configured_levels(tmp_path: Path) -> None:
    err = config_error(
        tmp_path, "classification: {levels: [open, closed]}\nroles: {r: {clearance: internal}}\n"
    )
    assert err.key == "roles.r.clearance" and "open, closed" in err.problem


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        (
            "rolez: {}\n",
            "rolez",
            "spec, authority, classification, freshness, ranking, sources, roles",
        ),
        ("roles: {x: {clearence: internal}}\n", "roles.x.clearence", "clearance, scope"),
        ("roles: {x: {scope: {includes: [a]}}}\n", "roles.x.scope.includes", "include, exclude"),
        ("authority: {order: []}\n", "authority.order", "precedence, tie_breakers"),
        ("sources: [{name: a, pth: x}]\n", "sources[0].pth", "name, path, authority"),
        ("freshness: {defualt: 90d}\n", "freshness.defualt", "default, by_type"),
    ],
)
def test_unknown_key(tmp_path: Path, text: str, key: str, expected: str) -> None:
    err = config_error(tmp_path, text)
    assert err.key == key
    assert "unknown key" in err.problem
    assert expected in err.problem


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("freshness: {default: 90 days}\n", "freshness.default"),
        ("freshness: {by_type: {pricing: 3 months}}\n", "freshness.by_type.pricing"),
        ("freshness: {default: 90}\n", "freshness.default"),
    ],
)
def test_bad_duration(tmp_path: Path, text: str, key: str) -> None:
    err = config_error(tmp_path, text)
    assert err.key == key
    assert "90d" in err.problem  # says what is expected


@pytest.mark.parametrize("path", ["../elsewhere", "/etc", "a/../../b"])
def test_bad_source_path(tmp_path: Path, path: str) -> None:
    err = config_error(tmp_path, f"sources:\n  - {{name: x, path: '{path}'}}\n")
    assert err.key == "sources[0].path"
    assert "inside the repository" in err.problem


def test_source_bad_authority_and_duplicates(tmp_path: Path) -> None:
    err = config_error(tmp_path, "sources:\n  - {name: t, path: t, authority: gospel}\n")
    assert err.key == "sources[0].authority" and "canonical" in err.problem
    err = config_error(tmp_path, "sources:\n  - {name: a, path: x}\n  - {name: a, path: y}\n")
    assert err.key == "sources[1].name"
    err = config_error(tmp_path, "sources:\n  - {name: a, path: x}\n  - {name: b, path: x}\n")
    assert err.key == "sources[1].path"


def test_bad_spec_version_and_not_a_mapping(tmp_path: Path) -> None:
    assert config_error(tmp_path, "spec: 2\n").key == "spec"
    err = config_error(tmp_path, "- just\n- a list\n")
    assert "mapping" in err.problem


def test_invalid_yaml_in_config(tmp_path: Path) -> None:
    err = config_error(tmp_path, "roles: {support: [\n")
    assert "invalid YAML" in err.problem and "line" in err.problem
    err = config_error(tmp_path, "spec: 1\nspec: 1\n")
    assert "duplicate key" in err.problem


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(NotARepository) as info:
        load_repository(tmp_path)
    assert str(tmp_path) in str(info.value) and "opencontext.yaml" in str(info.value)


def test_undeclared_role_lists_declared_roles(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path, {"a.md": obj("a")}, {"roles": {"support": {}, "sales": {}, "eng": {}}}
    )
    with pytest.raises(UnknownRole) as info:
        resolve_at(root, role="marketing")
    assert info.value.declared == ["eng", "sales", "support"]
    assert "'marketing'" in str(info.value) and "eng, sales, support" in str(info.value)


def test_undeclared_role_when_none_declared(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {}, {"roles": {}})
    with pytest.raises(UnknownRole) as info:
        resolve_at(root, role="x")
    assert "none are declared" in str(info.value)


def test_forced_authority_is_parsed(tmp_path: Path) -> None:
    (tmp_path / "opencontext.yaml").write_text(
        "sources: [{name: t, path: inbox, authority: observed}]\n", encoding="utf-8"
    )
    assert load_config(tmp_path).sources[0].authority is Authority.OBSERVED


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('roles: {"a\\nb": {clearance: public, bogus: 1}}\n', "roles.'a\\nb'.bogus"),
        ('roles: {"a\\u2028b": {clearance: public, bogus: 1}}\n', "roles.'a\\u2028b'.bogus"),
        ('roles: {" x": {clearance: public, bogus: 1}}\n', "roles.' x'.bogus"),
        ("roles: {x: {clearance: public, str: 1}}\n", "roles.x.str"),
        ("roles: {str: {clearnce: public}}\n", "roles.str.clearnce"),
        ("roles: {int: {clearance: public, bogus: 1}}\n", "roles.int.bogus"),
    ],
)
def test_an_unknown_key_is_named_on_one_line_whatever_the_names(
    tmp_path: Path, text: str, key: str
) -> None:
    """A name that would not read as itself on one line (a line break, a line separator, a
    leading blank) is quoted and escaped; a key or a role named like a type is still
    named."""
    err = config_error(tmp_path, text)
    assert err.key == key
    assert "unknown key" in err.problem
    assert "\n" not in str(err) and "\u2028" not in str(err)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("roles: {int: {clearance: 5}}\n", "roles.int.clearance"),
        ("freshness: {by_type: {str: 3 months}}\n", "freshness.by_type.str"),
    ],
)
def test_a_name_the_repository_chose_stays_in_the_key(tmp_path: Path, text: str, key: str) -> None:
    """A role or an object type named like one of Pydantic's branch names (``int``,
    ``str``) is the user's: the error names it (it was left out: ``roles.clearance``)."""
    assert config_error(tmp_path, text).key == key


@pytest.mark.parametrize(
    ("text", "key", "shown"),
    [
        (
            'authority: {precedence: ["\\n", x, x]}\n',
            "authority.precedence",
            "unknown '\\n', x; repeated x",
        ),
        (
            'roles: {"a\\nb": {clearance: secret}}\n',
            "roles.'a\\nb'.clearance",
            "unknown level 'secret'",
        ),
    ],
)
def test_a_value_or_name_the_repository_chose_is_shown_on_one_line(
    tmp_path: Path, text: str, key: str, shown: str
) -> None:
    """An unknown authority level, or a role whose clearance names no level, is shown
    quoted and escaped when it would not read as itself on one line (a longer fuzz run
    found ``precedence: ["\\n"]`` breaking the error over two lines)."""
    err = config_error(tmp_path, text)
    assert err.key == key
    assert shown in err.problem
    assert str(err).isprintable()
