"""Step 3, temporal validity (SPEC §2).

    "Temporal validity at ``as_of``: before the effective start → ``not-yet-valid``; at or
    after ``valid_until`` → ``expired``."

With ``include_historical``, an object that would be ``expired`` is kept instead, marked
with that lifecycle.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import compress
from typing import TYPE_CHECKING

from octui.core.enums import ExclusionReason, Lifecycle
from octui.core.model import ContextObject, uid_of
from octui.core.timeutil import format_day
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded_for
from octui.resolve.steps.tables import NOT

if TYPE_CHECKING:
    from octui.resolve.steps.tables import Tables

R = ExclusionReason
_format_day = lru_cache(maxsize=4096)(format_day)  # strftime is slow; instants repeat


def temporal(
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    tables: Tables | None = None,
) -> Outcome:
    """What of ``standing`` is valid at ``query.as_of`` (with the prepared ``tables``: each
    object's code read from the instant's :meth:`~octui.resolve.tables.Spans.codes`, and
    the records of the objects not valid read per uid, in C loops)."""
    spans = None if tables is None else tables.spans_in_use()
    if tables is None or spans is None:
        return _temporal(query, standing, tables)
    codes = spans.codes(query.as_of)
    uids = list(map(uid_of, standing))
    marks = bytes(map(codes.__getitem__, uids))
    keep = _KEEP_HISTORICAL if query.include_historical else _KEEP
    out = Outcome(list(compress(standing, marks.translate(keep))))
    if query.include_historical:  # an expired object stays, as history
        out.historical = dict.fromkeys(compress(uids, marks.translate(_EXPIRED)), Lifecycle.EXPIRED)
        marks = marks.translate(_WAITING)
    out.exclusions = tables.records.temporal(standing, uids, marks, _DETAILS)
    return out


_KEEP = NOT
"""Temporal code -> 1 when the object stays standing (code 0, valid: the complement table)."""
_KEEP_HISTORICAL = bytes([1, 0, 1]) + bytes(253)
"""The same with ``include_historical`` (an expired object stays, as history)."""
_EXPIRED = bytes([0, 0, 1]) + bytes(253)
"""Temporal code -> 1 when the object is expired."""
_WAITING = bytes([0, 1]) + bytes(254)
"""Temporal code -> itself when the object is not yet valid, else 0."""


def _temporal(query: Query, standing: list[ContextObject], tables: Tables | None) -> Outcome:
    """:func:`temporal` without the prepared spans (records from ``tables`` if given)."""
    as_of = query.as_of
    out = Outcome([])
    record = excluded_for if tables is None else tables.records.get_for
    for obj in standing:
        if as_of < obj.effective_start:
            out.exclusions[obj.uid] = record(obj, R.NOT_YET_VALID, _starts)
        elif obj.valid_until is not None and as_of >= obj.valid_until:
            if query.include_historical:
                out.historical[obj.uid] = Lifecycle.EXPIRED
                out.standing.append(obj)
            else:
                out.exclusions[obj.uid] = record(obj, R.EXPIRED, _ends)
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


_DETAILS = {R.NOT_YET_VALID: _starts, R.EXPIRED: _ends}
"""The detail of each temporal exclusion, a function of the object alone."""
