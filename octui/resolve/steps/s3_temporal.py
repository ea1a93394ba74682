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
from octui.resolve.steps.base import Outcome, Reader, excluded_for

R = ExclusionReason
_format_day = lru_cache(maxsize=4096)(format_day)  # strftime is slow; instants repeat


def temporal(
    index: RepoIndex, reader: Reader, query: Query, standing: list[ContextObject]
) -> Outcome:
    """What of ``standing`` is valid at ``query.as_of``."""
    as_of = query.as_of
    out = Outcome([])
    for obj in standing:
        if as_of < obj.effective_start:
            out.exclusions[obj.uid] = excluded_for(obj, R.NOT_YET_VALID, _starts)
        elif obj.valid_until is not None and as_of >= obj.valid_until:
            if query.include_historical:
                out.historical[obj.uid] = Lifecycle.EXPIRED
                out.standing.append(obj)
            else:
                out.exclusions[obj.uid] = excluded_for(obj, R.EXPIRED, _ends)
        else:
            out.standing.append(obj)
    return out


def _starts(obj: ContextObject) -> str:
    """The detail of ``not-yet-valid``: when the object starts."""
    start = "valid from" if obj.valid_from is not None else "created"
    return f"{start} {_format_day(obj.effective_start)}"


def _ends(obj: ContextObject) -> str:
    """The detail of ``expired``: when the object ended."""
    assert obj.valid_until is not None
    return f"valid until {_format_day(obj.valid_until)}"
