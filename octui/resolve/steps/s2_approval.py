"""Step 2, approval (SPEC §2).

"``status: draft`` → ``unapproved``." (A draft is never included and never supersedes.)
"""

from __future__ import annotations

from octui.core.enums import ExclusionReason, Status
from octui.core.model import ContextObject
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded


def approval(
    index: RepoIndex, reader: Reader, query: Query, standing: list[ContextObject]
) -> Outcome:
    """``standing`` without its drafts, each excluded as ``unapproved``."""
    out = Outcome([])
    for obj in standing:
        if obj.status == Status.DRAFT:
            out.exclusions[obj.uid] = excluded(obj, ExclusionReason.UNAPPROVED, "status: draft")
        else:
            out.standing.append(obj)
    return out
