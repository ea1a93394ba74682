"""Step 2, approval (SPEC §2): drafts, and an object leaving at the first step that excludes it."""

from __future__ import annotations

from pathlib import Path

from repo_builder import (
    make_repo,
    obj,
    resolve_at,
    the_exclusion,
)

from octui.core.enums import ExclusionReason
from resolve.steps.configs import SUPPORT

R = ExclusionReason


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
