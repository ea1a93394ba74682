"""Step 7, declared conflicts (SPEC §2): judged by unordered pair."""

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

from octui.core.enums import ExclusionReason, Severity

R = ExclusionReason


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
