"""Step 3, temporal validity (SPEC §2).

    "Temporal validity at ``as_of``: before the effective start → ``not-yet-valid``; at or
    after ``valid_until`` → ``expired``."

With ``include_historical``, an object that would be ``expired`` is kept instead, marked
with that lifecycle.
"""

from __future__ import annotations

from functools import lru_cache

from octui.core.enums import ExclusionReason, Lifecycle
from octui.core.model import ContextObject
from octui.core.timeutil import format_day
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded

R = ExclusionReason
_format_day = lru_cache(maxsize=4096)(format_day)  # strftime is slow; instants repeat


def temporal(
    index: RepoIndex, reader: Reader, query: Query, standing: list[ContextObject]
) -> Outcome:
    """What of ``standing`` is valid at ``query.as_of``."""
    as_of = query.as_of
    out = Outcome([])
    for obj in standing:
        effective_start = obj.effective_start
        if as_of < effective_start:
            start = "valid from" if obj.valid_from is not None else "created"
            detail = f"{start} {_format_day(effective_start)}"
            out.exclusions[obj.uid] = excluded(obj, R.NOT_YET_VALID, detail)
        elif obj.valid_until is not None and as_of >= obj.valid_until:
            if query.include_historical:
                out.historical[obj.uid] = Lifecycle.EXPIRED
                out.standing.append(obj)
            else:
                detail = f"valid until {_format_day(obj.valid_until)}"
                out.exclusions[obj.uid] = excluded(obj, R.EXPIRED, detail)
        else:
            out.standing.append(obj)
    return out
