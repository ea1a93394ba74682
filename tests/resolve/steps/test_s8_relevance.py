"""Step 8, relevance (SPEC §2): trimming by limit and min_relevance."""

from __future__ import annotations

from pathlib import Path

from repo_builder import (
    included_keys,
    make_repo,
    obj,
    resolve_at,
    the_exclusion,
)

from octui.core.enums import ExclusionReason

R = ExclusionReason


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
