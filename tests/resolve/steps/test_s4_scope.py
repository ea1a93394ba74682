"""Step 4, scope (SPEC §2): exclude patterns first, then include patterns."""

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
from resolve.steps.configs import SUPPORT

R = ExclusionReason


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
