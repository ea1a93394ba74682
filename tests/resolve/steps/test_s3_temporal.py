"""Step 3, temporal validity (SPEC §2): not yet valid, expired."""

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
