"""What a role is told depends only on what it may read (SPEC §2 step 1, §4), and
supersession costs time linear in what the repository declares."""

from __future__ import annotations

import time
from pathlib import Path

from repo_builder import codes, included_keys, make_repo, obj, resolve_at, warnings_with

from octui.bundle.bundle import digest
from octui.core.enums import ExclusionReason
from octui.load.loader import load_repository

CONFIG = {
    "roles": {
        "support": {"clearance": "internal"},
        "ops": {"clearance": "restricted"},
    }
}


def test_a_denied_id_is_listed_once_whatever_its_copies(tmp_path: Path) -> None:
    files = {
        "s1.md": obj("secret", version=1, classification="restricted"),
        "s2.md": obj("secret", version=2, classification="restricted"),
        "s2b.md": obj("secret", version=2, classification="confidential"),
        "l1.md": obj("limited", version=1, classification="restricted"),
        "l2.md": obj("limited", version=4, access={"roles": ["ops"]}),
        "open.md": obj("open"),
    }
    res = resolve_at(make_repo(tmp_path, files, CONFIG), role="support")
    denied = [(e.id, e.version, e.reason) for e in res.exclusions if e.reason.is_denial]
    assert denied == [
        ("limited", None, ExclusionReason.PERMISSION_DENIED),  # any copy denied by access
        ("secret", None, ExclusionReason.CLASSIFICATION_DENIED),
    ]
    assert included_keys(res) == ["open@1"]


def test_a_reference_to_a_denied_id_is_never_broken_for_the_role(tmp_path: Path) -> None:
    """Whatever version it names: otherwise a ticket could probe which versions exist."""
    for version in (3, 4):
        files = {
            "t.md": obj("ticket", authority="observed", supersedes=["secret.plan@3"]),
            "p.md": obj("secret.plan", version=version, classification="restricted"),
        }
        root = make_repo(tmp_path / str(version), files, CONFIG)
        res = resolve_at(root, role="support")
        assert codes(res) == []
        assert [e.id for e in res.exclusions] == ["secret.plan"]
        # the repository-wide judgement still sees the truth
        whole = resolve_at(root, role=None)
        assert codes(whole) == ([] if version == 3 else ["broken-reference"])
        ops = resolve_at(root, role="ops")
        assert codes(ops) == ([] if version == 3 else ["broken-reference"])


def test_duplicate_version_is_judged_among_the_copies_the_role_may_read(tmp_path: Path) -> None:
    files = {
        "a.md": obj("dup", authority="reference"),
        "b.md": obj("dup", authority="reference"),
        "c.md": obj("dup", authority="reference", classification="restricted"),
        "one.md": obj("single"),
        "one-hidden.md": obj("single", classification="restricted"),
    }
    root = make_repo(tmp_path, files, CONFIG)
    res = resolve_at(root, role="support")
    (found,) = warnings_with(res, "duplicate-version")
    assert found.ids == ("dup",) and found.message == "2 files hold dup@1"
    assert found.paths == ("a.md", "b.md")
    ops = resolve_at(root, role="ops")
    assert sorted(w.message for w in warnings_with(ops, "duplicate-version")) == [
        "2 files hold single@1",
        "3 files hold dup@1",
    ]


def test_thousands_of_copies_superseding_their_own_id_resolve_in_seconds(tmp_path: Path) -> None:
    """2,000 files 'id: x, supersedes: [x]' once expanded to 4 million edges (1.1 GB)."""
    files = {f"o{i:04d}.yaml": "id: x\nsupersedes: [x]\n" for i in range(2000)}
    root = make_repo(tmp_path, files, {"roles": {"r": {}}})
    repo = load_repository(root)
    started = time.perf_counter()
    res = resolve_at(repo, role="r", strict=True)
    digest(res)
    validate = resolve_at(repo, role=None)
    elapsed = time.perf_counter() - started
    assert elapsed < 5, elapsed
    assert res.graph.__dict__.get("_edges") is None  # nothing expanded the edges one by one
    assert "supersession-cycle" in codes(res) and "supersession-cycle" in codes(validate)
    assert len(res.included) == 1 and res.strict_failed


def test_long_duplicated_reference_lists_resolve_in_seconds(tmp_path: Path) -> None:
    refs = ", ".join(["z"] * 20000)
    files = {
        f"o{i:02d}.yaml": f"id: z\nversion: {i + 1}\nsupersedes: [{refs}]\n" for i in range(12)
    }
    root = make_repo(tmp_path, files, {"roles": {"r": {}}})
    repo = load_repository(root)
    assert all(o.supersedes == ("z",) for o in repo.objects)
    started = time.perf_counter()
    res = resolve_at(repo, role="r")
    assert time.perf_counter() - started < 5
    assert "supersession-cycle" in codes(res)
    assert len(res.edges) == 12 * 11  # expanded on request, each pair once


def test_cycles_found_through_hubs_match_the_expanded_edges(tmp_path: Path) -> None:
    """A bare reference reaches every other version, never the declarer itself."""
    files = {
        "a1.md": obj("a", version=1),
        "a2.md": obj("a", version=2, supersedes=["a"]),  # a@2 -> a@1 only: no cycle
        "b.md": obj("b", supersedes=["b@1"]),  # names itself: a cycle of one
        "c.md": obj("c", superseded_by=["d"]),
        "d1.md": obj("d", version=1, superseded_by=["c@1"]),  # c <-> d@1: a cycle
        "d2.md": obj("d", version=2),
    }
    res = resolve_at(make_repo(tmp_path, files))
    cycles = sorted(w.ids for w in warnings_with(res, "supersession-cycle"))
    assert cycles == [("b",), ("c", "d")]
    assert res.cycle_edges == {
        (e.replacement.uid, e.replaced.uid)
        for e in res.edges
        if {e.replacement.id, e.replaced.id} <= {"b", "c", "d"} and e.replacement.key != "d@2"
    }
    assert "a@1" not in included_keys(res) and "a@2" in included_keys(res)
    # d@2 -> c is not on the cycle: it takes effect
    assert "c@1" not in included_keys(res)
