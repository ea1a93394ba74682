"""The exclusion records every step shares (:func:`octui.resolve.steps.base.excluded`)."""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import UTC, datetime

from octui.core.enums import ExclusionReason, Status
from octui.core.model import ContextObject, Exclusion
from octui.resolve.steps import base

R = ExclusionReason


def an_object(object_id: str = "a", path: str = "a.md") -> ContextObject:
    return ContextObject(
        id=object_id,
        version=1,
        authority="canonical",
        status=Status.ACTIVE,
        title=None,
        summary=None,
        type=None,
        owner=None,
        layer=None,
        tags=(),
        applies_to=(),
        classification="public",
        access_roles=None,
        created=None,
        updated=None,
        valid_from=None,
        valid_until=None,
        review_every=None,
        confidence=None,
        supersedes=(),
        superseded_by=(),
        conflicts_with=(),
        content="",
        path=path,
        source="main",
    )


def test_a_record_is_shared_by_every_exclusion_of_one_object_for_one_reason() -> None:
    obj = an_object()
    first = base.excluded(obj, R.EXPIRED, "expired 2024-01-01")
    assert base.excluded(obj, R.EXPIRED, "expired 2024-01-01") is first
    assert first == Exclusion("a", 1, R.EXPIRED, (), "expired 2024-01-01", "a.md")
    other = base.excluded(obj, R.NOT_YET_VALID, "valid from 2030-01-01")
    assert other.reason is R.NOT_YET_VALID and other is not first


def test_the_table_does_not_keep_the_excluded_object_alive() -> None:
    obj = an_object()
    before = sys.getrefcount(obj)
    base.excluded(obj, R.UNAPPROVED, "status: draft")
    assert sys.getrefcount(obj) == before


def test_a_kept_record_that_names_another_object_is_not_handed_out() -> None:
    """Only the record is kept: when an object's address is reused by another object, the
    record found under it must name the new object, else a new record is made."""
    obj = an_object()
    stale = base.excluded(replace(obj, path="elsewhere.md"), R.UNAPPROVED, "status: draft")
    key = id(obj) << base._REASON_BITS | base._REASON_NUMBER[R.UNAPPROVED]
    base._records[key] = stale  # as if ``obj`` had been born at the other object's address
    fresh = base.excluded(obj, R.UNAPPROVED, "status: draft")
    assert fresh is not stale
    assert fresh == Exclusion("a", 1, R.UNAPPROVED, (), "status: draft", "a.md")
    assert base.excluded(obj, R.UNAPPROVED, "another detail").detail == "another detail"


def test_related_and_denied_records_are_made_each_time() -> None:
    obj = an_object()
    related = base.excluded(obj, R.SUPERSEDED, "superseded", ["b@1", "b@1"])
    assert related.related == ("b@1",) and related.path == "a.md"
    denied = base.excluded(obj, R.PERMISSION_DENIED)
    assert denied == Exclusion("a", None, R.PERMISSION_DENIED)


def test_an_object_is_slotted_and_its_start_follows_its_fields() -> None:
    """A repository holds one object per file: no instance dictionary per object."""
    obj = an_object()
    assert not hasattr(obj, "__dict__")
    assert obj.effective_start.year == 1
    later = replace(obj, created=datetime(2024, 1, 1, tzinfo=UTC))
    assert later.effective_start == datetime(2024, 1, 1, tzinfo=UTC)
