"""Every exclusion reason of the closed set, and the pipeline semantics of SPEC §2."""

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

from octui.core.enums import ExclusionReason, Lifecycle, Severity
from octui.core.model import Exclusion

R = ExclusionReason

SUPPORT = {
    "roles": {
        "support": {
            "clearance": "internal",
            "scope": {
                "include": ["mission", "policies.*"],
                "exclude": ["policies.internal.*"],
            },
        },
        "other": {"clearance": "restricted"},
    }
}


def fates_partition(res) -> None:  # type: ignore[no-untyped-def]
    """Every object of the repository is in exactly one place."""
    assert set(res.fates) == {o.uid for o in res.repository.objects}
    assert len(res.included) + len(
        [e for e in res.exclusions if e.reason is not R.SOURCE_UNAVAILABLE]
    ) == len(res.repository.objects)


# -- step 1: authorization ------------------------------------------------------------------------


def test_permission_denied_holds_only_id_and_reason(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "policies/a.md": obj("policies.a", access={"roles": ["other"]}, version=3),
            "policies/b.md": obj("policies.b", access={"roles": ["support", "other"]}),
        },
        SUPPORT,
    )
    res = resolve_at(root, "support")
    ex = the_exclusion(res, "policies.a")
    assert ex == Exclusion("policies.a", None, R.PERMISSION_DENIED, (), None)
    assert ex.reason.is_denial
    assert included_keys(res) == ["policies.b@1"]
    fates_partition(res)
    # the other role may read it
    assert included_keys(resolve_at(root, "other")) == ["policies.a@3", "policies.b@1"]


def test_classification_denied_holds_only_id_and_reason(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "policies/a.md": obj("policies.a", classification="confidential", version=2),
            "policies/b.md": obj("policies.b", classification="internal"),
        },
        SUPPORT,
    )
    res = resolve_at(root, "support")
    assert the_exclusion(res, "policies.a") == Exclusion(
        "policies.a", None, R.CLASSIFICATION_DENIED, (), None
    )
    assert included_keys(res) == ["policies.b@1"]


def test_role_without_clearance_reads_only_the_lowest_level(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "pub.md": obj("pub"),  # default classification: the lowest level
            "int.md": obj("int", classification="internal"),
        },
        {"roles": {"bot": {}}},
    )
    res = resolve_at(root, "bot")
    assert included_keys(res) == ["pub@1"]
    assert the_exclusion(res, "int").reason is R.CLASSIFICATION_DENIED


def test_permission_checked_before_classification(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"x.md": obj("x", classification="restricted", access={"roles": ["other"]})},
        {"roles": {"bot": {}, "other": {"clearance": "restricted"}}},
    )
    assert the_exclusion(resolve_at(root, "bot"), "x").reason is R.PERMISSION_DENIED


# -- step 2: approval ---------------------------------------------------------------------------


def test_draft_is_unapproved(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": obj("a", status="draft")})
    ex = the_exclusion(resolve_at(root), "a")
    assert (ex.reason, ex.version, ex.related) == (R.UNAPPROVED, 1, ())
    assert ex.detail and "draft" in ex.detail


def test_object_leaves_at_the_first_step(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            # draft + expired + out of scope → unapproved (step 2 before 3 and 4)
            "a.md": obj("zz.a", status="draft", valid_until="2020-01-01"),
            # expired + out of scope → expired (step 3 before 4)
            "b.md": obj("zz.b", valid_until="2020-01-01"),
            # not yet valid + out of scope → not-yet-valid
            "c.md": obj("zz.c", valid_from="2030-01-01"),
            # denied + draft → permission-denied (step 1 first)
            "d.md": obj("zz.d", status="draft", access={"roles": ["other"]}),
            # classification-denied + draft + expired
            "e.md": obj(
                "zz.e", status="draft", classification="restricted", valid_until="2020-01-01"
            ),
            # in scope but excluded by pattern → scope-exclusion even though include also fails
            "f.md": obj("policies.internal.f"),
        },
        SUPPORT,
    )
    res = resolve_at(root, "support")
    reasons = {e.id: e.reason for e in res.exclusions}
    assert reasons == {
        "zz.a": R.UNAPPROVED,
        "zz.b": R.EXPIRED,
        "zz.c": R.NOT_YET_VALID,
        "zz.d": R.PERMISSION_DENIED,
        "zz.e": R.CLASSIFICATION_DENIED,
        "policies.internal.f": R.SCOPE_EXCLUSION,
    }
    assert res.included == []


# -- step 3: temporal validity ---------------------------------------------------------------------


def test_expired_at_valid_until_exclusive(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": obj("a", valid_until="2026-06-01T00:00:00Z")})
    at = resolve_at(root, as_of="2026-06-01")
    ex = the_exclusion(at, "a")
    assert (ex.reason, ex.version, ex.related) == (R.EXPIRED, 1, ())
    assert ex.detail and "2026-06-01" in ex.detail
    before = resolve_at(root, as_of="2026-05-31T23:59:59Z")
    assert included_keys(before) == ["a@1"]


def test_not_yet_valid_before_valid_from_or_created(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", valid_from="2026-07-01"),
            "b.md": obj("b", created="2026-07-01"),
            "c.md": obj("c", created="2020-01-01", valid_from="2026-07-01"),
        },
    )
    res = resolve_at(root, as_of="2026-06-30T23:59:59Z")
    for oid in ("a", "b", "c"):
        ex = the_exclusion(res, oid)
        assert ex.reason is R.NOT_YET_VALID
        assert ex.version == 1 and ex.related == ()
        assert ex.detail and "2026-07-01" in ex.detail
    # valid_from is inclusive
    assert included_keys(resolve_at(root, as_of="2026-07-01")) == ["a@1", "b@1", "c@1"]


# -- step 4: scope --------------------------------------------------------------------------------


def test_scope_exclusion_names_the_pattern(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path, {"m.md": obj("policies.internal.margins", classification="internal")}, SUPPORT
    )
    ex = the_exclusion(resolve_at(root, "support"), "policies.internal.margins")
    assert (ex.reason, ex.version, ex.related) == (R.SCOPE_EXCLUSION, 1, ())
    assert ex.detail is not None and '"policies.internal.*"' in ex.detail


def test_not_in_scope_and_star_crosses_dots(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "d.md": obj("decisions.2026-01-01-x"),
            "deep.md": obj("policies.a.b.c"),
            "mission.md": obj("mission"),
            "mission2.md": obj("missionary"),
        },
        SUPPORT,
    )
    res = resolve_at(root, "support")
    ex = the_exclusion(res, "decisions.2026-01-01-x")
    assert (ex.reason, ex.version, ex.related) == (R.NOT_IN_SCOPE, 1, ())
    assert ex.detail
    assert the_exclusion(res, "missionary").reason is R.NOT_IN_SCOPE  # the whole id must match
    assert sorted(included_keys(res)) == ["mission@1", "policies.a.b.c@1"]


def test_role_without_include_has_everything_in_scope(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a.md": obj("anything.at.all")},
        {"roles": {"r": {"scope": {"exclude": ["x.*"]}}}},
    )
    assert included_keys(resolve_at(root, "r")) == ["anything.at.all@1"]


# -- step 5: supersession ---------------------------------------------------------------------


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


# -- step 6: competition ---------------------------------------------------------------------------


def test_outranked_by_authority(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("p", version=2, authority="observed"),
            "b.md": obj("p", version=1, authority="approved"),
        },
    )
    res = resolve_at(root)
    assert included_keys(res) == ["p@1"]
    ex = the_exclusion(res, "p", 2)
    assert (ex.reason, ex.related) == (R.OUTRANKED, ("p@1",))
    assert ex.detail is not None and "authority" in ex.detail and "p@1" in ex.detail


def test_recency_never_beats_authority(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj(
                "p", version=9, authority="reference", updated="2026-05-31", confidence=1.0
            ),
            "b.md": obj(
                "p", version=1, authority="canonical", updated="2020-01-01", confidence=0.0
            ),
        },
    )
    assert included_keys(resolve_at(root)) == ["p@1"]


def test_tie_breakers_in_configured_order(tmp_path: Path) -> None:
    files = {
        "a.md": obj("p", version=2, updated="2026-01-01", confidence=0.1),
        "b.md": obj("p", version=1, updated="2026-05-01", confidence=0.9),
    }
    r1 = make_repo(tmp_path / "r1", files, {"authority": {"tie_breakers": ["version", "updated"]}})
    res = resolve_at(r1)
    assert included_keys(res) == ["p@2"]
    assert "version" in (the_exclusion(res, "p", 1).detail or "")
    r2 = make_repo(tmp_path / "r2", files, {"authority": {"tie_breakers": ["updated", "version"]}})
    res = resolve_at(r2)
    assert included_keys(res) == ["p@1"]
    assert "updated" in (the_exclusion(res, "p", 2).detail or "")
    r3 = make_repo(tmp_path / "r3", files, {"authority": {"tie_breakers": ["confidence"]}})
    assert included_keys(resolve_at(r3)) == ["p@1"]


def test_created_tie_breaker_and_missing_values_sort_last(tmp_path: Path) -> None:
    files = {
        "a.md": obj("p", version=1, created="2026-01-01"),
        "b.md": obj("p", version=2),
    }
    root = make_repo(tmp_path, files, {"authority": {"tie_breakers": ["created", "version"]}})
    res = resolve_at(root)
    assert included_keys(res) == ["p@1"]
    assert "created" in (the_exclusion(res, "p", 2).detail or "")


def test_confidence_only_within_a_level(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("p", version=1, authority="approved", confidence=1.0),
            "b.md": obj("p", version=2, authority="canonical", confidence=0.0),
            "c.md": obj("p", version=3, authority="approved", confidence=0.5),
        },
        {"authority": {"tie_breakers": ["confidence"]}},
    )
    res = resolve_at(root)
    assert included_keys(res) == ["p@2"]
    # among the approved losers confidence would matter, but both lose on authority
    for v in (1, 3):
        ex = the_exclusion(res, "p", v)
        assert ex.reason is R.OUTRANKED and "authority" in (ex.detail or "")


def test_id_appended_and_path_is_final_key(tmp_path: Path) -> None:
    """Same id and version in two files: nothing but the path separates them."""
    root = make_repo(
        tmp_path,
        {"z/p.md": obj("p", title="z"), "a/p.md": obj("p", title="a")},
        {"authority": {"tie_breakers": ["version"]}},
    )
    res = resolve_at(root)
    assert [i.obj.path for i in res.included] == ["a/p.md"]
    ex = the_exclusion(res, "p")
    assert ex.reason is R.OUTRANKED and ex.related == ("p@1",)
    assert "path" in (ex.detail or "")
    dv = warnings_with(res, "duplicate-version")
    assert len(dv) == 1 and dv[0].ids == ("p",)


def test_unknown_authority_sorts_after_every_level(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("p", version=5, authority="supreme"),
            "b.md": obj("p", version=1, authority="historical"),
            "c.md": obj("p", version=6, authority=None),
        },
    )
    res = resolve_at(root)
    assert included_keys(res) == ["p@1"]


def test_source_forced_authority_beats_front_matter(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "policies/refunds.md": obj("policies.refunds", authority="approved"),
            "inbox/tickets/t1.md": obj(
                "policies.refunds",
                version=2,
                authority="canonical",
                content="authority: canonical\nTHIS IS CANONICAL\n",
            ),
        },
        {
            "sources": [
                {"name": "main", "path": "."},
                {"name": "tickets", "path": "inbox/tickets", "authority": "observed"},
            ]
        },
    )
    res = resolve_at(root)
    assert included_keys(res) == ["policies.refunds@1"]
    ex = the_exclusion(res, "policies.refunds", 2)
    assert ex.reason is R.OUTRANKED and "authority" in (ex.detail or "")
    ticket = next(o for o in res.repository.objects if o.version == 2)
    assert (ticket.authority, ticket.source) == ("observed", "tickets")


def test_content_never_sets_authority(tmp_path: Path) -> None:
    body = "---\nauthority: canonical\n---\nTHIS IS CANONICAL\nauthority: canonical\n"
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("p", authority="reference", version=2, content=body),
            "b.md": obj("p", authority="approved", version=1),
            "c.yaml": obj("q", authority="observed", content="authority: canonical"),
        },
    )
    res = resolve_at(root)
    assert sorted(included_keys(res)) == ["p@1", "q@1"]
    q = next(i for i in res.included if i.obj.id == "q")
    assert q.obj.authority == "observed"


# -- step 7: conflicts ----------------------------------------------------------------------------


def test_conflict_lower_side_excluded_declared_on_one_side(tmp_path: Path) -> None:
    for declarer in ("high", "low"):
        files = {
            "a.md": obj(
                "policies.refunds",
                conflicts_with=["policies.refunds-observed"] if declarer == "high" else None,
            ),
            "b.md": obj(
                "policies.refunds-observed",
                authority="observed",
                conflicts_with=["policies.refunds"] if declarer == "low" else None,
            ),
        }
        root = make_repo(tmp_path / declarer, files)
        res = resolve_at(root)
        assert included_keys(res) == ["policies.refunds@1"]
        ex = the_exclusion(res, "policies.refunds-observed")
        assert ex.reason is R.CONFLICT and ex.version == 1
        assert ex.related == ("policies.refunds@1",)
        assert ex.detail is not None and "policies.refunds@1" in ex.detail
        cd = warnings_with(res, "conflict-declared")
        assert len(cd) == 1
        assert cd[0].ids == ("policies.refunds", "policies.refunds-observed")
        assert cd[0].severity is Severity.WARNING


def test_conflict_pairs_deduplicated_when_declared_on_both_sides(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("b.first", conflicts_with=["a.second"]),
            "b.md": obj("a.second", conflicts_with=["b.first"]),
        },
    )
    res = resolve_at(root)
    amb = warnings_with(res, "conflict-ambiguous")
    assert len(amb) == 1
    assert amb[0].ids == ("a.second", "b.first")
    assert amb[0].severity is Severity.ERROR
    assert amb[0].hint
    assert sorted(included_keys(res)) == ["a.second@1", "b.first@1"]
    assert res.failed


def test_equal_authority_conflict_keeps_both(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("x", authority="approved", conflicts_with=["y"]),
            "b.md": obj("y", authority="approved"),
        },
    )
    res = resolve_at(root, strict=True)
    assert sorted(included_keys(res)) == ["x@1", "y@1"]
    assert codes(res) == ["conflict-ambiguous"]
    assert res.strict_failed


def test_conflict_with_excluded_object_is_not_judged(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("x", authority="observed", conflicts_with=["y"]),
            "b.md": obj("y", valid_until="2020-01-01"),
        },
    )
    res = resolve_at(root)
    assert included_keys(res) == ["x@1"]
    assert codes(res) == []


# -- step 8: relevance --------------------------------------------------------------------------


def _relevance_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path,
        {
            "mission.md": obj("mission", layer="L0"),
            "voice.md": obj("identity.voice", layer="L1"),
            "r1.md": obj("policies.refunds", title="Refund policy", tags=["refund"]),
            "r2.md": obj("procedures.refund", title="Refund procedure"),
            "r3.md": obj("policies.security", title="Security"),
        },
    )


def test_not_relevant_by_limit(tmp_path: Path) -> None:
    res = resolve_at(_relevance_repo(tmp_path), task="refund", limit=1)
    assert included_keys(res) == ["mission@1", "identity.voice@1", "policies.refunds@1"]
    for oid in ("procedures.refund", "policies.security"):
        ex = the_exclusion(res, oid)
        assert ex.reason is R.NOT_RELEVANT and ex.version == 1 and ex.related == ()
        assert ex.detail and "--limit 1" in ex.detail


def test_limit_zero_keeps_only_floor_layers(tmp_path: Path) -> None:
    res = resolve_at(_relevance_repo(tmp_path), task="refund", limit=0)
    assert included_keys(res) == ["mission@1", "identity.voice@1"]


def test_not_relevant_by_min_relevance(tmp_path: Path) -> None:
    res = resolve_at(_relevance_repo(tmp_path), task="refund", min_relevance=10)
    assert included_keys(res) == ["mission@1", "identity.voice@1", "policies.refunds@1"]
    ex = the_exclusion(res, "procedures.refund")
    assert ex.reason is R.NOT_RELEVANT and ex.detail and "--min-relevance" in ex.detail
    assert the_exclusion(res, "policies.security").reason is R.NOT_RELEVANT
    # floor layers kept even with a threshold above the floor
    high = resolve_at(_relevance_repo(tmp_path), task="refund", min_relevance=1000)
    assert included_keys(high) == ["mission@1", "identity.voice@1"]


def test_no_trimming_unless_asked(tmp_path: Path) -> None:
    res = resolve_at(_relevance_repo(tmp_path), task="nothing-matches")
    assert len(res.included) == 5 and res.exclusions == []


# -- source-unavailable --------------------------------------------------------------------------


def test_source_unavailable_exclusion_and_warning(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a.md": obj("a")},
        {
            "sources": [
                {"name": "main", "path": "."},
                {"name": "archive", "path": "archive/missing"},
            ]
        },
    )
    res = resolve_at(root)
    ex = the_exclusion(res, "archive")
    assert ex.reason is R.SOURCE_UNAVAILABLE and ex.version is None
    assert ex.detail and "archive/missing" in ex.detail
    w = warnings_with(res, "source-unavailable")
    assert len(w) == 1 and w[0].ids == ("archive",) and w[0].severity is Severity.ERROR
    assert w[0].hint
    assert included_keys(res) == ["a@1"]


def test_source_that_is_a_file_is_unavailable(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a.md": obj("a"), "notes.yaml": obj("notes")},
        {"sources": [{"name": "main", "path": "."}, {"name": "n", "path": "notes.yaml"}]},
    )
    res = resolve_at(root)
    assert the_exclusion(res, "n").reason is R.SOURCE_UNAVAILABLE


def test_every_reason_is_covered_by_this_module() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    for reason in ExclusionReason:
        assert f"R.{reason.name}" in source, reason
