"""What every step reads and returns.

A step is a pure function ``step(index, reader, query, standing) -> Outcome``: the facts of
the repository (:class:`~octui.resolve.index.RepoIndex`), who reads (:class:`Reader`), the
query, and the objects still standing, in the repository's order. It returns the objects
that remain (in the same order) and, for each object it removes, the exclusion that names
its reason; an object leaves at the first step that excludes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from octui.core.enums import DENIALS, ExclusionReason, Lifecycle
from octui.core.model import ContextObject, Exclusion, Finding
from octui.load.config import RoleConfig
from octui.resolve.graph import SupersessionGraph


@dataclass(frozen=True, slots=True)
class ScopeVerdicts:
    """Step 4's verdicts of one role over every object of the repository, made once per role
    from the prepared tables without looking at any object, and read at every instant."""

    codes: Sequence[int]
    """Each object's scope code by uid (bytes, or ints when the role has too many exclude
    patterns for a byte) (see :data:`~octui.resolve.steps.tables.IN_SCOPE`)."""
    not_in_scope: list[Exclusion | None]
    """The ``not-in-scope`` records made so far, by uid (shared by every role; None: not
    made yet)."""
    make: Callable[[ContextObject], Exclusion]
    """Makes (and keeps) the ``not-in-scope`` record of an object not made yet."""


@dataclass(frozen=True)
class Reader:
    """Who reads: the role (``name = None`` is the repository-wide judgement of ``opencontext
    validate``: no authorization and no scope) and, once steps 1–2 have run, what it may
    read and declared supersession among what it may read (which of that is approved is
    step 2's ``standing``: the graph keeps only approved replacements)."""

    name: str | None
    role: RoleConfig | None
    readable: list[ContextObject] = field(default_factory=list)
    graph: SupersessionGraph | None = None
    out_of_scope: ScopeVerdicts | None = None
    """Step 4's verdicts over every object, from the prepared tables (they depend on the
    role alone); None without them."""

    @property
    def whole_repository(self) -> bool:
        return self.name is None


@dataclass
class Outcome:
    """What one step leaves standing, whom it excludes (by uid) and what it finds."""

    standing: list[ContextObject]
    exclusions: dict[int, Exclusion] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    historical: dict[int, Lifecycle] = field(default_factory=dict)
    """Objects kept by ``include_historical`` although expired or superseded, by uid."""
    mask: bytes | None = None
    """``standing`` as one byte per uid of the repository (1: standing), when the step
    made it so from the prepared tables: the next step combines masks instead of looking
    at each object."""


RECORDS = 1 << 18
"""Exclusion records kept by :func:`excluded` (cleared whole when full)."""

_REASON_NUMBER = {reason: n for n, reason in enumerate(ExclusionReason)}
_REASON_BITS = len(_REASON_NUMBER).bit_length()

_records: dict[int, Exclusion] = {}
"""Records without related ids, by the excluded object's identity and the reason (one int)."""

_detailed: dict[tuple[int, object], tuple[ContextObject, Exclusion]] = {}
"""Records whose detail is a function of the object (see :func:`excluded_for`), by the
object's identity, the reason and that function. It holds the object: a record found here is
handed out without making its detail, so the address must not have been reused."""


def excluded(
    obj: ContextObject,
    reason: ExclusionReason,
    detail: str | None = None,
    related: Iterable[str] = (),
) -> Exclusion:
    """The exclusion of ``obj`` for ``reason``: a denial holds the id and the reason only.

    A record without related ids is a pure function of (object, reason, detail), and an
    object never changes once loaded (an unchanged file keeps its object across reloads), so
    such records are kept by the object's identity and the reason, and handed out again:
    every role and instant that excludes an object for the same reason shares one record,
    and whatever is kept by the record's identity downstream (the digest's pieces) is found
    again. The table keeps only the record, never the object (a loaded repository is not
    held alive by it, and an entry costs one int key): a record found is handed out only if
    it names the object's id, version, path and ``detail``, so a record made for an object
    whose address a later object reuses is either equal to the one it would make or made
    again. Threads racing for one entry make equal records, either is right.
    """
    if reason in DENIALS:
        return Exclusion(obj.id, None, reason)
    if related:
        return Exclusion(obj.id, obj.version, reason, tuple(sorted(set(related))), detail, obj.path)
    key = id(obj) << _REASON_BITS | _REASON_NUMBER[reason]
    found = _records.get(key)
    if (
        found is not None
        and found.detail == detail
        and found.id == obj.id
        and found.version == obj.version
        and found.path == obj.path
    ):
        return found
    record = Exclusion(obj.id, obj.version, reason, (), detail, obj.path)
    if len(_records) >= RECORDS:
        _records.clear()
    _records[key] = record
    return record


def excluded_for(
    obj: ContextObject, reason: ExclusionReason, detail_of: Callable[[ContextObject], str]
) -> Exclusion:
    """:func:`excluded` for a detail that is a function of the object alone (``detail_of``):
    the record kept for (object, reason, ``detail_of``) is handed out again without making
    the detail, so a step excluding thousands of objects at each new instant formats each
    detail once. The same record :func:`excluded` gives."""
    key = (id(obj) << _REASON_BITS | _REASON_NUMBER[reason], detail_of)
    found = _detailed.get(key)
    if found is not None and found[0] is obj:
        return found[1]
    record = excluded(obj, reason, detail_of(obj))
    if len(_detailed) >= RECORDS:
        _detailed.clear()
    _detailed[key] = (obj, record)
    return record
