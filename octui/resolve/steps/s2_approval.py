"""Step 2, approval (SPEC §2).

"``status: draft`` → ``unapproved``." (A draft is never included and never supersedes.)
"""

from __future__ import annotations

from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING

from octui.core.enums import ExclusionReason, Status
from octui.core.model import ContextObject
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded

if TYPE_CHECKING:
    from octui.resolve.steps.tables import Tables


def approval(
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    tables: Tables | None = None,
) -> Outcome:
    """``standing`` without its drafts, each excluded as ``unapproved`` (with the prepared
    ``tables``: the drafts found by a mask of the repository, each with its one record)."""
    if tables is not None:
        drafts = tables.drafts
        marks = bytes(map(drafts.__getitem__, map(_UID, standing)))
        out = Outcome(list(compress(standing, marks.translate(_NOT))))
        records = tables.records
        for obj in compress(standing, marks):
            out.exclusions[obj.uid] = records.get(obj, ExclusionReason.UNAPPROVED, _DRAFT)
        return out
    out = Outcome([])
    for obj in standing:
        if obj.status == Status.DRAFT:
            out.exclusions[obj.uid] = excluded(obj, ExclusionReason.UNAPPROVED, _DRAFT)
        else:
            out.standing.append(obj)
    return out


_DRAFT = "status: draft"
_UID = attrgetter("uid")
_NOT = bytes([1]) + bytes(255)
"""1 for 0, else 0."""
