"""Step 5, supersession (SPEC §2): declared edges, when they take effect, include_historical."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from repo_builder import (
    codes,
    included_keys,
    make_repo,
    obj,
    resolve_at,
    the_exclusion,
    warnings_with,
)

from octui.core.enums import ExclusionReason, Lifecycle, Severity
from octui.resolve.graph import build_graph
from octui.resolve.index import RepoIndex
from resolve.steps.configs import SUPPORT
from resolve.test_graph_whole import _random_repo

R = ExclusionReason


def test_superseded_by_replacement_names_it(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "p1.md": obj("pricing.enterprise", version=1),
            "p2.md": obj("pricing.enterprise", version=2, supersedes=["pricing.enterprise@1"]),
        },
    )
    res = resolve_at(root)
    ex = the_exclusion(res, "pricing.enterprise", 1)
    assert ex.reason is R.SUPERSEDED and ex.version == 1
    assert ex.related == ("pricing.enterprise@2",)
    assert ex.detail is not None and "pricing.enterprise@2" in ex.detail
    assert included_keys(res) == ["pricing.enterprise@2"]
    assert "multiple-active-versions" not in codes(res)


def test_superseded_by_direction_on_the_replaced(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "old.md": obj("decisions.pg", authority="historical", superseded_by="decisions.pg-ha"),
            "new.md": obj("decisions.pg-ha"),
        },
    )
    res = resolve_at(root)
    ex = the_exclusion(res, "decisions.pg")
    assert ex.reason is R.SUPERSEDED and ex.related == ("decisions.pg-ha@1",)
    assert included_keys(res) == ["decisions.pg-ha@1"]
    assert len(res.edges) == 1
    e = res.edges[0]
    assert (e.replacement.key, e.replaced.key, e.declared_on.key, e.field) == (
        "decisions.pg-ha@1",
        "decisions.pg@1",
        "decisions.pg@1",
        "superseded_by",
    )


def test_bare_id_covers_every_version_but_the_declarer(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1),
            "v2.md": obj("p", version=2),
            "v3.md": obj("p", version=3, supersedes=["p"]),
        },
    )
    res = resolve_at(root)
    assert included_keys(res) == ["p@3"]
    for v in (1, 2):
        ex = the_exclusion(res, "p", v)
        assert ex.reason is R.SUPERSEDED and ex.related == ("p@3",)
    assert "broken-reference" not in codes(res)
    assert "supersession-cycle" not in codes(res)


def test_bare_superseded_by_on_own_id(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1, superseded_by="p"),
            "v2.md": obj("p", version=2, valid_from="2026-09-01"),
            "v3.md": obj("p", version=3, valid_from="2026-03-01"),
        },
    )
    res = resolve_at(root, as_of="2026-06-01")
    ex = the_exclusion(res, "p", 1)
    # every other version is a replacement; only the one already in effect is named
    assert ex.reason is R.SUPERSEDED and ex.related == ("p@3",)
    assert included_keys(res) == ["p@3"]
    later = resolve_at(root, as_of="2026-10-01")
    assert the_exclusion(later, "p", 1).related == ("p@2", "p@3")


def test_higher_version_without_declaration_does_not_supersede(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"v1.md": obj("p", version=1), "v2.md": obj("p", version=2)})
    res = resolve_at(root)
    assert included_keys(res) == ["p@2"]
    ex = the_exclusion(res, "p", 1)
    assert ex.reason is R.OUTRANKED
    assert ex.related == ("p@2",)
    assert ex.detail is not None and "p@2" in ex.detail and "version" in ex.detail
    assert set(codes(res)) >= {"multiple-active-versions", "duplicate-canonical"}


def test_supersession_takes_effect_at_replacement_effective_start(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1, authority="approved", valid_from="2026-01-01"),
            "v2.md": obj(
                "p", version=2, authority="approved", valid_from="2026-04-01", supersedes=["p@1"]
            ),
        },
    )
    before = resolve_at(root, as_of="2026-03-31")
    assert included_keys(before) == ["p@1"]
    assert the_exclusion(before, "p", 2).reason is R.NOT_YET_VALID
    at = resolve_at(root, as_of="2026-04-01")
    assert included_keys(at) == ["p@2"]
    assert the_exclusion(at, "p", 1).reason is R.SUPERSEDED


def test_replacement_started_by_created_only(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1, authority="approved"),
            "v2.md": obj(
                "p", version=2, authority="approved", created="2026-04-01", supersedes=["p@1"]
            ),
        },
    )
    assert included_keys(resolve_at(root, as_of="2026-03-01")) == ["p@1"]
    assert included_keys(resolve_at(root, as_of="2026-05-01")) == ["p@2"]


def test_pending_replacement_leaves_the_old_version_standing(tmp_path: Path) -> None:
    """Before a replacement's effective start its edge is not in effect, so what it would
    retire stands: here both versions of ``a`` stand (multiple-active-versions) until ``b``
    starts, and then only ``a@1`` remains."""
    root = make_repo(
        tmp_path,
        {
            "a1.md": obj("a", version=1, authority="approved"),
            "a2.md": obj("a", version=2, authority="approved", valid_from="2026-01-01"),
            "b.md": obj("b", supersedes=["a@2"], valid_from="2026-09-01"),
        },
    )
    res = resolve_at(root, as_of="2026-06-01")
    # a@2 not superseded yet: both versions of a stand → multiple-active-versions
    mav = warnings_with(res, "multiple-active-versions")
    assert len(mav) == 1 and mav[0].ids == ("a",)
    assert mav[0].severity is Severity.WARNING
    assert the_exclusion(res, "a", 1).reason is R.OUTRANKED
    later = resolve_at(root, as_of="2026-09-01")
    assert the_exclusion(later, "a", 2).reason is R.SUPERSEDED
    assert "a@1" in included_keys(later)


def test_supersession_stays_after_replacement_expires(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1),
            "v2.md": obj(
                "p",
                version=2,
                valid_from="2026-01-01",
                valid_until="2026-05-01",
                supersedes=["p@1"],
            ),
        },
    )
    res = resolve_at(root, as_of="2026-06-01")
    assert res.included == []
    assert the_exclusion(res, "p", 1).reason is R.SUPERSEDED
    assert the_exclusion(res, "p", 2).reason is R.EXPIRED


def test_draft_replacement_never_supersedes(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1),
            "v2.md": obj("p", version=2, status="draft", supersedes=["p@1"]),
            "q.md": obj("q", superseded_by=["p@2"]),
        },
    )
    res = resolve_at(root)
    assert sorted(included_keys(res)) == ["p@1", "q@1"]
    assert the_exclusion(res, "p", 2).reason is R.UNAPPROVED


def test_replacement_denied_to_the_role_does_not_supersede_for_it(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("policies.p", version=1),
            "v2.md": obj(
                "policies.p", version=2, classification="restricted", supersedes=["policies.p@1"]
            ),
            "old.md": obj("policies.q", superseded_by="policies.p@2"),
        },
        SUPPORT,
    )
    support = resolve_at(root, "support")
    assert sorted(included_keys(support)) == ["policies.p@1", "policies.q@1"]
    assert the_exclusion(support, "policies.p", 2).reason is R.CLASSIFICATION_DENIED
    assert support.edges == []
    # and no trace of the denied replacement anywhere: no multiple-active-versions, no broken ref
    assert codes(support) == []
    other = resolve_at(root, "other")
    assert included_keys(other) == ["policies.p@2"]


def test_replacement_out_of_scope_or_expired_still_supersedes(tmp_path: Path) -> None:
    """Only steps 1–2 gate an edge: a replacement hidden by scope still retires the old one."""
    root = make_repo(
        tmp_path,
        {
            "old.md": obj("policies.old", classification="internal"),
            "new.md": obj("drafts.new", supersedes=["policies.old"]),
        },
        SUPPORT,
    )
    res = resolve_at(root, "support")
    assert the_exclusion(res, "policies.old").reason is R.SUPERSEDED
    assert the_exclusion(res, "drafts.new").reason is R.NOT_IN_SCOPE


def test_denied_objects_links_create_nothing(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("policies.a", authority="observed"),
            "b.md": obj("policies.b", authority="observed"),
            "secret.md": obj(
                "policies.secret",
                classification="restricted",
                supersedes=["policies.a", "policies.ghost"],
                conflicts_with=["policies.b", "policies.phantom"],
                superseded_by=["policies.nowhere"],
            ),
        },
        SUPPORT,
    )
    res = resolve_at(root, "support")
    assert sorted(included_keys(res)) == ["policies.a@1", "policies.b@1"]
    assert res.warnings == []
    assert res.edges == []


def test_include_historical_puts_superseded_and_expired_after_current(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "v1.md": obj("p", version=1, title="refund"),
            "v2.md": obj("p", version=2, supersedes=["p@1"]),
            "e.md": obj("e", valid_until="2026-01-01", title="refund refund"),
            "c.md": obj("c"),
        },
    )
    res = resolve_at(root, include_historical=True, task="refund")
    assert [(i.obj.key, i.lifecycle) for i in res.included] == [
        ("c@1", Lifecycle.ACTIVE),
        ("p@2", Lifecycle.ACTIVE),
        ("e@1", Lifecycle.EXPIRED),
        ("p@1", Lifecycle.SUPERSEDED),
    ]
    assert res.exclusions == []
    # without the flag they are excluded with those reasons
    plain = resolve_at(root, task="refund")
    assert {(e.id, e.reason) for e in plain.exclusions} == {("e", R.EXPIRED), ("p", R.SUPERSEDED)}


def test_include_historical_does_not_bypass_scope_or_approval(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "d.md": obj("policies.d", status="draft", valid_until="2020-01-01"),
            "x.md": obj("other.x", valid_until="2020-01-01"),
        },
        SUPPORT,
    )
    res = resolve_at(root, "support", include_historical=True)
    assert res.included == []
    assert the_exclusion(res, "policies.d").reason is R.UNAPPROVED
    # with history requested, expiry no longer excludes, so the object goes on to scope
    assert the_exclusion(res, "other.x").reason is R.NOT_IN_SCOPE


@pytest.mark.parametrize("seed", range(25))
def test_the_keys_read_from_a_timeline_are_the_replacements_in_effect(
    tmp_path: Path, seed: int
) -> None:
    """The keys are those of the declared edges in effect, straight from SPEC §2 step 5: the
    edges into the object whose replacement is approved and has started, minus the edges
    on a cycle."""
    repo = _random_repo(tmp_path, seed)
    index = RepoIndex(repo)
    approved = {o.uid for o in repo.objects if o.status.value != "draft"}
    graph = build_graph(index, repo.objects, approved)
    starts = sorted({o.effective_start for o in repo.objects})
    days = [*starts, *(d - timedelta(seconds=1) for d in starts), starts[-1] + timedelta(days=1)]
    for o in repo.objects:
        into = [e for e in graph.edges if e.replaced is o]
        for day in days:  # in any order: a timeline made at one instant serves every other
            in_effect = {
                e.replacement.key
                for e in into
                if e.replacement.uid in approved
                and e.replacement.effective_start <= day
                and not graph.on_cycle(e.replacement, o)
            }
            assert graph.replaced_by(o, day) == tuple(sorted(in_effect))
