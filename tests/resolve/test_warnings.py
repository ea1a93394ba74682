"""Every warning code of SPEC §4, staleness, validate mode, and what a role's warnings may say."""

from __future__ import annotations

from pathlib import Path

from repo_builder import (
    codes,
    included_keys,
    make_repo,
    obj,
    resolve_at,
    the_exclusion,
    warnings_with,
)

from octui.core.enums import ExclusionReason, Severity, WarningCode
from octui.core.model import Finding
from octui.core.timeutil import parse_instant
from octui.render.explain import finding_lines, glyph
from octui.resolve.findings import freshness_window, is_stale

ERROR, WARNING = Severity.ERROR, Severity.WARNING


def only(res, code: str) -> Finding:  # type: ignore[no-untyped-def]
    found = warnings_with(res, code)
    assert len(found) == 1, (code, res.warnings)
    return found[0]


def test_severity_table_matches_spec() -> None:
    errors = {
        "duplicate-canonical",
        "conflict-ambiguous",
        "broken-reference",
        "supersession-cycle",
        "invalid-object",
        "duplicate-version",
        "source-unavailable",
    }
    for code in WarningCode:
        assert code.severity is (ERROR if code.value in errors else WARNING), code
    assert len(WarningCode) == 12


def test_duplicate_canonical(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"v1.md": obj("policies.refunds", version=1), "v2.md": obj("policies.refunds", version=2)},
    )
    res = resolve_at(root)
    w = only(res, "duplicate-canonical")
    assert w.severity is ERROR and w.ids == ("policies.refunds",)
    assert '"policies.refunds"' in w.message and "2" in w.message
    assert w.hint and "Supersede" in w.hint
    assert res.failed and not res.strict_failed
    assert resolve_at(root, strict=True).strict_failed
    # the version tie breaker still returns one winner
    assert included_keys(res) == ["policies.refunds@2"]
    assert sorted(w.paths) == ["v1.md", "v2.md"]


def test_duplicate_canonical_not_raised_once_superseded_or_non_canonical(tmp_path: Path) -> None:
    a = make_repo(
        tmp_path / "a",
        {"v1.md": obj("p", version=1), "v2.md": obj("p", version=2, supersedes=["p@1"])},
    )
    assert codes(resolve_at(a)) == []
    b = make_repo(
        tmp_path / "b",
        {"v1.md": obj("p", version=1, authority="reference"), "v2.md": obj("p", version=2)},
    )
    assert codes(resolve_at(b)) == ["multiple-active-versions"]


def test_multiple_active_versions(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1, authority="approved"),
            "v2.md": obj("p", version=2, authority="approved"),
            "v3.md": obj("p", version=3, authority="approved"),
        },
    )
    res = resolve_at(root)
    w = only(res, "multiple-active-versions")
    assert w.severity is WARNING and w.ids == ("p",)
    assert "1, 2, 3" in w.message
    assert w.hint is not None and "supersedes: [p@1, p@2]" in w.hint
    assert not res.failed


def test_multiple_active_versions_ignores_excluded_versions(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1, valid_until="2026-01-01"),
            "v2.md": obj("p", version=2, status="draft"),
            "v3.md": obj("p", version=3),
        },
    )
    assert codes(resolve_at(root)) == []


def test_conflict_ambiguous_and_declared(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", authority="approved", conflicts_with=["b", "c"]),
            "b.md": obj("b", authority="approved"),
            "c.md": obj("c", authority="inferred"),
        },
    )
    res = resolve_at(root)
    amb = only(res, "conflict-ambiguous")
    assert amb.severity is ERROR and amb.ids == ("a", "b")
    assert "a@1" in amb.message and "b@1" in amb.message
    assert amb.hint
    dec = only(res, "conflict-declared")
    assert dec.severity is WARNING and dec.ids == ("a", "c")
    assert "a@1" in dec.message and "c@1" in dec.message
    assert the_exclusion(res, "c").reason is ExclusionReason.CONFLICT
    assert sorted(included_keys(res)) == ["a@1", "b@1"]


def test_conflicts_judged_simultaneously(tmp_path: Path) -> None:
    """a > b > c with a–b and b–c declared: both losers go, judged on the standing set."""
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", authority="canonical", conflicts_with=["b"]),
            "b.md": obj("b", authority="approved", conflicts_with=["c"]),
            "c.md": obj("c", authority="reference"),
        },
    )
    res = resolve_at(root)
    assert included_keys(res) == ["a@1"]
    assert the_exclusion(res, "b").related == ("a@1",)
    assert the_exclusion(res, "c").related == ("b@1",)
    assert [w.ids for w in warnings_with(res, "conflict-declared")] == [("a", "b"), ("b", "c")]


def test_broken_reference_each_field(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", supersedes=["ghost"]),
            "b.md": obj("b", superseded_by="phantom@2"),
            "c.md": obj("c", conflicts_with=["nobody"]),
            "d.md": obj("d", supersedes=["a@7"]),  # id exists, version does not
            "e.md": obj("e", supersedes=["e"]),  # bare id: every version but itself → none
        },
    )
    res = resolve_at(root)
    broken = warnings_with(res, "broken-reference")
    assert [w.ids for w in broken] == [("a",), ("b",), ("c",), ("d",), ("e",)]
    for w, needle in zip(broken, ["ghost", "phantom@2", "nobody", "a@7", '"e"'], strict=True):
        assert w.severity is ERROR
        assert needle in w.message
        assert w.hint
    assert "supersedes" in broken[0].message
    assert "superseded_by" in broken[1].message
    assert "conflicts_with" in broken[2].message
    assert len(res.included) == 5


def test_reference_to_an_object_denied_to_the_role_is_not_broken(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", conflicts_with=["secret"], supersedes=["secret2@1"]),
            "s.md": obj("secret", classification="restricted"),
            "s2.md": obj("secret2", access={"roles": ["boss"]}),
        },
        {"roles": {"reader": {"clearance": "internal"}, "boss": {"clearance": "restricted"}}},
    )
    res = resolve_at(root)
    assert res.warnings == []
    assert included_keys(res) == ["a@1"]


def test_supersession_cycle(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", supersedes=["b"]),
            "b.md": obj("b", supersedes=["c"]),
            "c.md": obj("c", superseded_by=["b"], supersedes=["a"]),
            "d.md": obj("d", supersedes=["a"]),  # outside the cycle: in effect
        },
    )
    res = resolve_at(root)
    w = only(res, "supersession-cycle")
    assert w.severity is ERROR and w.ids == ("a", "b", "c")
    assert w.hint
    # edges inside the cycle are ignored; the one from outside still retires a
    assert sorted(included_keys(res)) == ["b@1", "c@1", "d@1"]
    assert the_exclusion(res, "a").related == ("d@1",)


def test_a_cycle_through_a_draft_is_a_cycle(tmp_path: Path) -> None:
    """A draft's declarations count for detecting a cycle but never take effect: the edges
    on the cycle are ignored, so nothing on it is retired by a chain that has no newest end."""
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", supersedes=["b"]),
            "b.md": obj("b", supersedes=["d"]),
            "d.md": obj("d", status="draft", supersedes=["a"]),
        },
    )
    res = resolve_at(root, strict=True)
    assert codes(res) == ["supersession-cycle"]
    (w,) = res.warnings
    assert w.severity is ERROR and w.ids == ("a", "b", "d")
    assert included_keys(res) == ["a@1", "b@1"]
    assert the_exclusion(res, "d").reason is ExclusionReason.UNAPPROVED
    assert res.strict_failed


def test_smallest_cycle_through_a_draft(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "x.md": obj("x", supersedes=["y"]),
            "y.md": obj("y", status="draft", supersedes=["x"]),
        },
    )
    res = resolve_at(root)
    assert codes(res) == ["supersession-cycle"]
    assert included_keys(res) == ["x@1"]
    assert the_exclusion(res, "y").reason is ExclusionReason.UNAPPROVED


def test_cycle_with_a_pending_replacement_is_still_a_cycle(tmp_path: Path) -> None:
    """Declarations by approved objects form the graph even before they take effect."""
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", supersedes=["b"]),
            "b.md": obj("b", supersedes=["a"], valid_from="2030-01-01"),
        },
    )
    res = resolve_at(root)
    assert codes(res) == ["supersession-cycle"]
    assert included_keys(res) == ["a@1"]


def test_two_object_cycle_keeps_both(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("x", version=1, supersedes=["x@2"]),
            "b.md": obj("x", version=2, supersedes=["x@1"]),
        },
    )
    res = resolve_at(root)
    assert set(codes(res)) == {
        "supersession-cycle",
        "duplicate-canonical",
        "multiple-active-versions",
    }
    assert included_keys(res) == ["x@2"]
    assert the_exclusion(res, "x", 1).reason is ExclusionReason.OUTRANKED


def test_stale_uses_updated_else_created(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", created="2025-01-01", updated="2026-05-01"),
            "b.md": obj("b", created="2025-01-01"),
            "c.md": obj("c"),  # no dates: never stale
        },
        {"freshness": {"default": "180d"}},
    )
    res = resolve_at(root, as_of="2026-06-01")
    w = only(res, "stale")
    assert w.severity is WARNING and w.ids == ("b",)
    assert w.hint
    assert glyph(w) == "!"
    assert finding_lines(w)[0].startswith("! stale b:")
    assert {i.obj.id: i.stale for i in res.included} == {"a": False, "b": True, "c": False}


def test_stale_boundary(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path, {"a.md": obj("a", updated="2026-01-01")}, {"freshness": {"default": "10d"}}
    )
    assert codes(resolve_at(root, as_of="2026-01-11")) == []
    assert codes(resolve_at(root, as_of="2026-01-11T00:00:01Z")) == ["stale"]


def test_freshness_precedence_review_every_by_type_default(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", type="pricing", review_every="1y", updated="2026-01-01"),
            "b.md": obj("b", type="pricing", updated="2026-01-01"),
            "c.md": obj("c", type="note", updated="2026-01-01"),
            "d.md": obj("d", type="note", review_every="2w", updated="2026-01-01"),
        },
        {"freshness": {"default": "180d", "by_type": {"pricing": "3m"}}},
    )
    res = resolve_at(root, as_of="2026-05-01")
    cfg = res.repository.config
    windows = {i.obj.id: freshness_window(cfg, i.obj) for i in res.included}
    assert windows == {"a": 365, "b": 90, "c": 180, "d": 14}
    assert sorted(w.ids[0] for w in warnings_with(res, "stale")) == ["b", "d"]


def test_nothing_stale_without_freshness_config(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", updated="2000-01-01"),
            "b.md": obj("b", updated="2000-01-01", review_every="30d"),
        },
    )
    res = resolve_at(root)
    assert [w.ids for w in res.warnings] == [("b",)]
    obj_a = next(o for o in res.repository.objects if o.id == "a")
    assert not is_stale(res.repository.config, obj_a, parse_instant("2100-01-01"))


def test_stale_only_for_included_objects(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a.md": obj("a", updated="2000-01-01", valid_until="2001-01-01")},
        {"freshness": {"default": "30d"}},
    )
    assert codes(resolve_at(root)) == []
    hist = resolve_at(root, include_historical=True)
    assert codes(hist) == ["stale"] and hist.included[0].stale


def test_unknown_authority(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a.md": obj("a", authority=None), "b.md": obj("b", authority="gospel")},
    )
    res = resolve_at(root)
    ws = warnings_with(res, "unknown-authority")
    assert [w.ids for w in ws] == [("a",), ("b",)]
    assert all(w.severity is WARNING and w.hint for w in ws)
    assert "gospel" in ws[1].message
    assert sorted(included_keys(res)) == ["a@1", "b@1"]


def test_invalid_object_role_bundle_reports_a_count(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "good.md": obj("good"),
            "bad1.md": "---\nid: [unclosed\n---\n",
            "bad2.yaml": "id: Upper\n",
            "secret/bad3.md": "---\nid: x\nversion: two\n---\n",
        },
    )
    res = resolve_at(root)
    w = only(res, "invalid-object")
    assert w.severity is ERROR and w.ids == ()
    assert "3 files" in w.message
    assert "bad1" not in w.message and "secret" not in w.message
    assert w.paths == ()
    assert w.hint and "validate" in w.hint
    assert included_keys(res) == ["good@1"]


def test_validate_mode_reports_each_invalid_file_with_its_path(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "good.md": obj("good"),
            "bad1.md": "---\nid: [unclosed\n---\n",
            "bad2.yaml": "id: Upper\n",
            "sub/bad3.md": "---\nid: x\nversion: two\n---\n",
            "sub/dup.md": "---\nid: y\nid: z\n---\n",
            "cls.md": obj("cls", classification="top-secret"),
            "readme.md": "# Not an object\n",
        },
    )
    res = resolve_at(root, role=None)
    inv = warnings_with(res, "invalid-object")
    assert sorted(p for w in inv for p in w.paths) == [
        "bad1.md",
        "bad2.yaml",
        "cls.md",
        "sub/bad3.md",
        "sub/dup.md",
    ]
    by_path = {w.paths[0]: w for w in inv}
    assert all(w.severity is ERROR and len(w.paths) == 1 for w in inv)
    assert "duplicate key" in by_path["sub/dup.md"].message
    assert "version" in by_path["sub/bad3.md"].message
    assert "top-secret" in by_path["cls.md"].message
    assert "id" in by_path["bad2.yaml"].message
    for path, w in by_path.items():
        assert path in w.message
        assert any(path in line for line in finding_lines(w, with_paths=True))
    assert included_keys(res) == ["good@1"]


def test_validate_mode_has_no_authorization_or_scope(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", access={"roles": ["nobody"]}, classification="restricted"),
            "b.md": obj("b", status="draft"),
            "c.md": obj("c", valid_until="2020-01-01"),
            "d.md": obj("d", supersedes=["a"]),
        },
        {"roles": {"r": {"scope": {"include": ["zzz"]}}}},
    )
    res = resolve_at(root, role=None)
    reasons = {e.id: e.reason for e in res.exclusions}
    assert reasons == {
        "a": ExclusionReason.SUPERSEDED,
        "b": ExclusionReason.UNAPPROVED,
        "c": ExclusionReason.EXPIRED,
    }
    assert included_keys(res) == ["d@1"]


def test_duplicate_version(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a/p.md": obj("p", authority="approved"), "b/p.yaml": obj("p", authority="approved")},
    )
    res = resolve_at(root)
    w = only(res, "duplicate-version")
    assert w.severity is ERROR and w.ids == ("p",)
    assert "p@1" in w.message and w.hint
    assert sorted(w.paths) == ["a/p.md", "b/p.yaml"]
    assert included_keys(res) == ["p@1"] and len(res.exclusions) == 1


def test_unknown_field(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1, authority="approved"),
            "v2.md": obj("p", version=2, authority="approved", superseeded_by="x", reviewer="me"),
            "c.md": "---\nid: c\nauthority: canonical\ncontent: hidden\n---\nbody\n",
        },
    )
    res = resolve_at(root)
    ws = warnings_with(res, "unknown-field")
    assert [w.ids for w in ws] == [("c",), ("p",), ("p",)]
    assert all(w.severity is WARNING and w.hint for w in ws)
    messages = " ".join(w.message for w in ws)
    assert "'superseeded_by'" in messages and "'reviewer'" in messages and "'content'" in messages
    # the typo did not silently retire anything, and the body wins over a content key
    assert "multiple-active-versions" in codes(res)
    c = next(o for o in res.repository.objects if o.id == "c")
    assert c.content == "body\n"


def test_source_unavailable_warning(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {},
        {"sources": [{"name": "main", "path": "."}, {"name": "chats", "path": "inbox/chats"}]},
    )
    res = resolve_at(root, role=None)
    w = only(res, "source-unavailable")
    assert w.severity is ERROR and w.ids == ("chats",) and "inbox/chats" in w.message


def test_warnings_never_name_denied_objects(tmp_path: Path) -> None:
    files = {
        "open.md": obj("open", version=1),
        "open2.md": obj("open", version=2, conflicts_with=["secret"], updated="2000-01-01"),
        "secret.md": obj(
            "secret",
            classification="restricted",
            authority="bogus",
            typo_field=1,
            supersedes=["ghost"],
            conflicts_with=["open"],
            updated="2000-01-01",
            content="canary-body",
        ),
        "secret2.md": obj("secret", version=2, classification="restricted"),
        "dup1.md": obj("open", version=1, access={"roles": ["boss"]}),
        "v.md": obj("open", version=3, access={"roles": ["boss"]}, supersedes=["open@2"]),
    }
    config = {
        "roles": {"reader": {"clearance": "internal"}, "boss": {"clearance": "restricted"}},
        "freshness": {"default": "30d"},
    }
    root = make_repo(tmp_path, files, config)
    res = resolve_at(root)
    for w in res.warnings:
        assert "secret" not in w.ids and "secret" not in w.message, w
        assert not any("secret" in p for p in w.paths)
        assert "open@3" not in w.message
    assert sorted(codes(res)) == [
        "duplicate-canonical",
        "multiple-active-versions",
        "stale",
    ]
    for e in res.exclusions:
        if e.reason.is_denial:
            assert (e.version, e.related, e.detail) == (None, (), None)
        else:
            assert not any("secret" in r or "open@3" in r for r in e.related)
            assert "secret" not in (e.detail or "") and "open@3" not in (e.detail or "")
    boss = resolve_at(root, role="boss")
    assert {"broken-reference", "unknown-authority", "unknown-field"} <= set(codes(boss))


def test_every_code_is_covered_by_this_module() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    for code in WarningCode:
        assert f'"{code.value}"' in source, code


def test_duplicate_canonical_says_which_is_older_and_what_to_add_where(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a/v1.md": obj("p", version=1), "b/v2.md": obj("p", version=2)})
    w = only(resolve_at(root), "duplicate-canonical")
    assert "p@1 (a/v1.md) is older than p@2 (b/v2.md)" in w.message
    assert w.hint is not None and "add supersedes: [p@1] to p@2 (b/v2.md)" in w.hint


def test_duplicate_canonical_of_one_version_held_twice(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": obj("p"), "b.md": obj("p")})
    w = only(resolve_at(root), "duplicate-canonical")
    assert "p@1 is held by 2 files (a.md, b.md)" in w.message and "older" not in w.message
    assert w.hint is not None and "Give one copy of p@1 a higher version" in w.hint


def test_conflict_declared_has_a_hint(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a.md": obj("a", conflicts_with=["b"]), "b.md": obj("b", authority="observed")},
    )
    w = only(resolve_at(root), "conflict-declared")
    assert w.hint is not None and w.hint.startswith("b@1 is left out wherever a@1 stands")
    assert "conflicts_with" in w.hint
