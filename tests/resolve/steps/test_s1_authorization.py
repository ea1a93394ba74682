"""Step 1, authorization (SPEC §2): permission and classification denials."""

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
from octui.core.model import Exclusion
from resolve.steps.configs import SUPPORT

R = ExclusionReason


def fates_partition(res) -> None:  # type: ignore[no-untyped-def]
    """Every object of the repository is in exactly one place."""
    assert set(res.fates) == {o.uid for o in res.repository.objects}
    assert len(res.included) + len(
        [e for e in res.exclusions if e.reason is not R.SOURCE_UNAVAILABLE]
    ) == len(res.repository.objects)


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
