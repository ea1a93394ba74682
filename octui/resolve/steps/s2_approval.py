"""Step 2, approval (SPEC §2).

"``status: draft`` → ``unapproved``." (A draft is never included and never supersedes.)
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING

from octui.core.enums import ExclusionReason, Status
from octui.core.model import ContextObject, uid_of
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded
from octui.resolve.steps.tables import NOT, both

if TYPE_CHECKING:
    from octui.resolve.steps.tables import Tables


def approval(
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    tables: Tables | None = None,
    mask: bytes | None = None,
) -> Outcome:
    """``standing`` without its drafts, each excluded as ``unapproved`` (with the prepared
    ``tables``: the drafts found by a mask of the repository, each with its one record;
    ``mask``: ``standing`` as a mask of the repository's objects, which it then combines
    with the drafts' without looking at each object, and hands on what it leaves so)."""
    if tables is not None:
        drafts = tables.drafts
        approved: bytes | None = None
        if mask is None:
            marks = bytes(map(drafts.__getitem__, map(uid_of, standing)))
            kept, drafted = compress(standing, marks.translate(NOT)), compress(standing, marks)
        else:
            objects = index.objects
            approved, marks = both(mask, drafts.translate(NOT)), both(mask, drafts)
            kept, drafted = compress(objects, approved), compress(objects, marks)
        out = Outcome(list(kept), mask=approved)
        excluded_drafts = list(drafted)
        records = tables.records.each(excluded_drafts, ExclusionReason.UNAPPROVED, _DRAFT)
        out.exclusions = dict(zip(map(uid_of, excluded_drafts), records, strict=True))
        return out
    out = Outcome([])
    for obj in standing:
        if obj.status == Status.DRAFT:
            out.exclusions[obj.uid] = excluded(obj, ExclusionReason.UNAPPROVED, _DRAFT)
        else:
            out.standing.append(obj)
    return out


_DRAFT = "status: draft"
