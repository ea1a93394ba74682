"""Step 6, competition (SPEC §2): authority, the tie breakers, the path."""

from __future__ import annotations

from pathlib import Path

from repo_builder import (
    included_keys,
    make_repo,
    obj,
    resolve_at,
    the_exclusion,
    warnings_with,
)

from octui.core.enums import ExclusionReason

R = ExclusionReason


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
