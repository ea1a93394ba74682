"""Per-object tables that let a new role or instant skip per-object work: scope verdicts by
prefix ranges of the sorted ids, validity windows by sorted boundaries, access classes,
competitors, and exclusion records whose detail depends on the object alone, made once and
handed out again.

Kept by :class:`~octui.resolve.prepared.Prepared` (one per repository), which the steps see
as :class:`Tables`: a resolution without a cache never builds them. Every answer equals the
function it stands for (the tests compare them).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Collection, Mapping
from datetime import datetime
from itertools import compress, repeat
from operator import is_
from typing import Any, Protocol

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion, uid_of
from octui.load.config import Config, RoleConfig, ScopeConfig
from octui.resolve.index import RepoIndex
from octui.resolve.memo import Memo
from octui.resolve.steps.base import excluded, excluded_for

R = ExclusionReason
NOT = bytes([1]) + bytes(255)
"""``bytes.translate`` table of a mask's complement: 1 for 0, else 0."""


def both(a: bytes, b: bytes) -> bytes:
    """1 where masks ``a`` and ``b`` (one byte per uid, each 0 or 1, of equal length) both
    hold 1: one AND of two integers instead of a loop over every uid."""
    n = len(a)
    return (int.from_bytes(a, "big") & int.from_bytes(b, "big")).to_bytes(n, "big")


IN_SCOPE, NOT_IN_SCOPE, EXCLUDED = 0, 1, 2
"""Scope codes: in scope, no include pattern matches, and from 2 on, excluded by the
exclude pattern numbered ``code - 2``."""
ScopeCodes = bytes | list[int]
"""A role's scope code per uid: bytes, or ints when a role has more than 254 exclude
patterns."""
NO_INCLUDE = "no include pattern matches"
"""The detail of every ``not-in-scope`` record."""
_WILD = "*?["
_LAST = chr(0x10FFFF)


SCOPES = 64
"""Scopes whose codes a :class:`ScopeIds` keeps (a byte per object each)."""


class ScopeIds:
    """The repository's ids in sorted order and each object's place among them: a glob's
    literal prefix (what comes before its first wildcard) picks a contiguous range of them,
    so a role's patterns are matched against the ids inside their ranges only."""

    __slots__ = ("_codes", "ids", "rank")

    def __init__(self, objects: list[ContextObject]) -> None:
        self.ids = sorted({o.id for o in objects})
        where = {i: n for n, i in enumerate(self.ids)}
        self.rank = [where[o.id] for o in objects]
        """Per uid, the place of the object's id in :attr:`ids`."""
        self._codes = Memo(SCOPES)
        """Each scope's codes, by the scope: a session's preparation and each role's first
        visit ask for the same ones."""

    def codes(self, role: RoleConfig) -> ScopeCodes:
        """Per uid, the object's scope code for ``role`` (see :data:`IN_SCOPE`): a byte
        each, or an int each when the role has too many exclude patterns for a byte. Made
        once per scope and shared (roles with the same scope share them; no reader changes
        them)."""
        return self._codes.get(role.scope, lambda: self._made(role.scope))

    def _made(self, scope: ScopeConfig) -> ScopeCodes:
        """:meth:`codes` of ``scope``, made."""
        include, exclude = scope.include, scope.exclude
        fill = NOT_IN_SCOPE if include is not None else IN_SCOPE
        wide = EXCLUDED + len(exclude) > 256
        by_id: bytearray | list[int] = (list if wide else bytearray)([fill]) * len(self.ids)
        for pattern in include or ():
            self._mark(by_id, pattern, IN_SCOPE)
        for k in range(len(exclude) - 1, -1, -1):  # the first matching pattern wins
            self._mark(by_id, exclude[k], EXCLUDED + k)
        return (list if wide else bytes)(map(by_id.__getitem__, self.rank))

    def _mark(self, codes: bytearray | list[int], pattern: str, code: int) -> None:
        """Set ``code`` at every id ``pattern`` matches (a whole-id shell glob)."""
        cut = min((i for c in _WILD if (i := pattern.find(c)) >= 0), default=len(pattern))
        prefix, ids = pattern[:cut], self.ids
        lo = bisect_left(ids, prefix)
        hi = bisect_left(ids, above) if (above := _after(prefix)) is not None else len(ids)
        if cut == len(pattern):  # no wildcard: the id itself
            if lo < hi and ids[lo] == prefix:
                codes[lo] = code
        elif pattern == prefix + "*":  # every id with the prefix
            codes[lo:hi] = (list if type(codes) is list else bytes)([code]) * (hi - lo)
        else:
            regex = _regex(pattern)
            for i in compress(range(lo, hi), map(regex.match, ids[lo:hi])):
                codes[i] = code


def _after(prefix: str) -> str | None:
    """The least string above every string that starts with ``prefix``; None when every
    string from ``prefix`` on starts with it (an empty prefix, or one of only the last
    code point). A trailing last code point cannot be raised: the one before it is."""
    kept = prefix.rstrip(_LAST)
    return kept[:-1] + chr(ord(kept[-1]) + 1) if kept else None


def _regex(pattern: str):  # type: ignore[no-untyped-def]
    import fnmatch
    import re

    return re.compile(fnmatch.translate(pattern))


def scope_exclusion(role: RoleConfig, obj: ContextObject, code: int) -> tuple[R, str]:
    """The reason and detail of scope code ``code`` (not :data:`IN_SCOPE`) for ``role``."""
    if code == NOT_IN_SCOPE:
        return R.NOT_IN_SCOPE, NO_INCLUDE
    return R.SCOPE_EXCLUSION, f'excluded by "{role.scope.exclude[code - EXCLUDED]}"'


class Records:
    """Per uid, the exclusion records whose detail is a function of the object alone
    (``unapproved``, ``not-in-scope``, ``not-yet-valid``, ``expired``), each made on first
    use by :func:`~octui.resolve.steps.base.excluded` (or ``excluded_for``; by
    :meth:`temporal`, an equal record) and handed out again. Threads racing for one entry
    store equal records."""

    __slots__ = ("_superseded", "_tables")

    def __init__(self, n: int) -> None:
        self._superseded: dict[tuple[int, tuple[str, ...]], Exclusion] = {}
        self._tables: dict[R, list[Exclusion | None]] = {
            reason: [None] * n
            for reason in (R.UNAPPROVED, R.NOT_IN_SCOPE, R.NOT_YET_VALID, R.EXPIRED)
        }

    def table(self, reason: R) -> list[Exclusion | None]:
        """The records of ``reason`` made so far, by uid (None: not made yet): a loop over
        many objects reads them without a call each, and makes a missing one by
        :meth:`get`."""
        return self._tables[reason]

    def carried(self, replaced: Collection[int]) -> Records:
        """The same records for a repository whose objects at ``replaced`` were replaced in
        place (theirs made again when first asked for): a record is a function of its
        object, which every other place still holds. Nothing of this one is changed."""
        made = Records.__new__(Records)
        made._tables = {reason: list(table) for reason, table in self._tables.items()}
        for table in made._tables.values():
            for uid in replaced:
                table[uid] = None
        gone = frozenset(replaced)
        # copied in one C call first: a thread still resolving the old repository may be
        # adding superseded records to it meanwhile (step 5)
        kept = dict(self._superseded)
        made._superseded = {k: v for k, v in kept.items() if k[0] not in gone}
        return made

    def get(self, obj: ContextObject, reason: R, detail: str) -> Exclusion:
        """``excluded(obj, reason, detail)`` for a detail that is fixed per object."""
        table = self._tables[reason]
        found = table[obj.uid]
        if found is None:
            found = table[obj.uid] = excluded(obj, reason, detail)
        return found

    def each(self, objects: list[ContextObject], reason: R, detail: str) -> list[Exclusion]:
        """:meth:`get` of each of ``objects``, in order: read per uid in one C loop, only
        the records not made before made one by one (as :meth:`temporal` makes them, equal
        to :func:`~octui.resolve.steps.base.excluded`'s: a new role makes thousands)."""
        table = self._tables[reason]
        found: list[Exclusion | None] = list(map(table.__getitem__, map(uid_of, objects)))
        for at in compress(range(len(found)), map(is_, found, repeat(None))):
            obj = objects[at]
            record = Exclusion(obj.id, obj.version, reason, (), detail, obj.path)
            found[at] = table[obj.uid] = record
        return found  # type: ignore[return-value]

    def superseded(self, obj: ContextObject, keys: tuple[str, ...]) -> Exclusion:
        """The ``superseded`` record of ``obj`` by the replacements ``keys`` (sorted, each
        once), as step 5 makes it: kept by (object, keys), so a role or instant whose
        replacements of the object are the same hands out the same record."""
        found = self._superseded.get((obj.uid, keys))
        if found is None:
            detail = "by " + ", ".join(keys)
            found = excluded(obj, R.SUPERSEDED, detail, keys)
            self._superseded[(obj.uid, keys)] = found
        return found

    def get_for(
        self, obj: ContextObject, reason: R, detail_of: Callable[[ContextObject], str]
    ) -> Exclusion:
        """``excluded_for(obj, reason, detail_of)`` (one ``detail_of`` per reason)."""
        table = self._tables[reason]
        found = table[obj.uid]
        if found is None:
            found = table[obj.uid] = excluded_for(obj, reason, detail_of)
        return found

    def temporal(
        self,
        objects: list[ContextObject],
        uids: list[int],
        codes: bytes,
        details: Mapping[R, Callable[[ContextObject], str]],
    ) -> dict[int, Exclusion]:
        """By uid, in order, :meth:`get_for` of each of ``objects`` (their ``uids``) whose
        temporal code in ``codes`` (see :data:`VALID`) is not valid, for its reason (the
        detail from ``details``): read per uid in C loops, only the records not made before
        made one by one (equal to :func:`~octui.resolve.steps.base.excluded_for`'s, without
        its look-ups by the object's identity: these tables are carried across a reload,
        see :meth:`carried`)."""
        tables: list[list[Exclusion | None]] = [
            [],
            *map(self._tables.__getitem__, _TEMPORAL_REASONS),
        ]
        picked = list(compress(uids, codes))
        kinds = bytes(compress(codes, codes))
        found: list[Exclusion | None] = list(
            map(list.__getitem__, map(tables.__getitem__, kinds), picked)
        )
        missing = list(compress(range(len(found)), map(is_, found, repeat(None))))
        if missing:  # made here, as excluded() makes them: a new instant makes thousands
            held = list(compress(objects, codes))
            for at in missing:
                obj, reason = held[at], _TEMPORAL_REASONS[kinds[at] - 1]
                detail = details[reason](obj)
                record = Exclusion(obj.id, obj.version, reason, (), detail, obj.path)
                found[at] = tables[kinds[at]][obj.uid] = record
        return dict(zip(picked, found, strict=True))  # type: ignore[arg-type]


VALID, NOT_YET_VALID, EXPIRED = 0, 1, 2
"""Temporal codes of an object at an instant (step 3)."""
_TEMPORAL_REASONS = (R.NOT_YET_VALID, R.EXPIRED)
"""The exclusion reason of each temporal code but :data:`VALID` (code 1, then 2)."""


class Spans:
    """Every object's validity window as two sorted lists of boundaries: the objects not yet
    valid at an instant are those starting after it (a suffix of one list), the expired ones
    those ending at or before it (a prefix of the other), found by two bisections."""

    __slots__ = ("_ends", "_ends_at", "_n", "_starts", "_starts_at")

    def __init__(self, objects: list[ContextObject]) -> None:
        self._n = len(objects)
        starts = [o.effective_start for o in objects]
        self._starts = sorted(range(len(objects)), key=starts.__getitem__)
        self._starts_at = list(map(starts.__getitem__, self._starts))
        ends = {o.uid: o.valid_until for o in objects if o.valid_until is not None}
        self._ends = sorted(ends, key=ends.__getitem__)
        self._ends_at = list(map(ends.__getitem__, self._ends))

    def carried(self, old: list[ContextObject], new: list[ContextObject]) -> Spans:
        """The spans of a repository whose objects ``old`` were replaced in place by ``new``
        (the same places): each moved boundary taken out and put back where the new window
        puts it (the order among equal boundaries does not matter to :meth:`codes`); this
        one itself when no boundary moved. Nothing of this one is changed."""
        moved = [
            (a, b)
            for a, b in zip(old, new, strict=True)
            if (a.effective_start, a.valid_until) != (b.effective_start, b.valid_until)
        ]
        if not moved:
            return self
        made = Spans.__new__(Spans)
        made._n = self._n
        made._starts, made._starts_at = list(self._starts), list(self._starts_at)
        made._ends, made._ends_at = list(self._ends), list(self._ends_at)
        for a, b in moved:
            _move(made._starts, made._starts_at, a.uid, a.effective_start, b.effective_start)
            _move(made._ends, made._ends_at, a.uid, a.valid_until, b.valid_until)
        return made

    def codes(self, as_of: datetime) -> bytearray:
        """Per uid, the object's temporal code at ``as_of`` (see :data:`VALID`): before its
        effective start not yet valid, else at or after ``valid_until`` expired."""
        codes = bytearray(self._n)
        expired = self._ends[: bisect_right(self._ends_at, as_of)]
        deque(map(codes.__setitem__, expired, repeat(EXPIRED)), maxlen=0)
        waiting = self._starts[bisect_right(self._starts_at, as_of) :]
        deque(map(codes.__setitem__, waiting, repeat(NOT_YET_VALID)), maxlen=0)
        return codes


def _move(
    uids: list[int], ats: list[datetime], uid: int, was: datetime | None, now: datetime | None
) -> None:
    """Move ``uid``'s boundary in the sorted ``ats`` (``uids`` alongside) from ``was`` to
    ``now`` (None: no boundary)."""
    if was == now:
        return
    if was is not None:
        at = uids.index(uid, bisect_left(ats, was), bisect_right(ats, was))
        del uids[at], ats[at]
    if now is not None:
        at = bisect_right(ats, now)
        uids.insert(at, uid)
        ats.insert(at, now)


class Access:
    """Every object's (access list, classification) class, one example object per class,
    and the denial record of each (id, reason), made once for every role."""

    __slots__ = ("_by_uid", "_records", "classes", "examples")

    def __init__(self, objects: list[ContextObject]) -> None:
        numbers: dict[tuple[tuple[str, ...] | None, str], int] = {}
        self.examples: list[ContextObject] = []
        self.classes: list[int] = []
        for obj in objects:
            pair = (obj.access_roles, obj.classification)
            number = numbers.get(pair)
            if number is None:
                number = numbers[pair] = len(self.examples)
                self.examples.append(obj)
            self.classes.append(number)
        self._records: dict[tuple[str, ExclusionReason], Exclusion] = {}
        self._by_uid: dict[ExclusionReason, list[Exclusion | None]] = {
            reason: [None] * len(objects) for reason in ExclusionReason if reason.is_denial
        }
        """Per denial reason, per uid: the denial entry of the object's id for that reason."""

    def record(self, object_id: str, reason: ExclusionReason) -> Exclusion:
        """The denial entry of ``object_id`` (threads racing store equal records)."""
        found = self._records.get((object_id, reason))
        if found is None:
            found = self._records[(object_id, reason)] = Exclusion(object_id, None, reason)
        return found

    def records_of(
        self, objects: list[ContextObject], reasons: list[ExclusionReason]
    ) -> list[Exclusion]:
        """:meth:`record` of each object's id for its denial ``reasons[i]``, in order: read
        per uid in one C loop, only the entries not read before looked up by id."""
        uids = [o.uid for o in objects]
        tables = list(map(self._by_uid.__getitem__, reasons))
        found: list[Exclusion | None] = list(map(list.__getitem__, tables, uids))
        for at in compress(range(len(found)), map(is_, found, repeat(None))):
            found[at] = tables[at][uids[at]] = self.record(objects[at].id, reasons[at])
        return found  # type: ignore[return-value]


class Contenders:
    """Per uid, whether another object holds its id (1) and its competition key (step 6's
    ``key``, made on first use; threads racing store equal keys)."""

    __slots__ = ("_config", "_key", "_keys", "shared")

    def __init__(
        self, index: RepoIndex, key: Callable[[Config, ContextObject], tuple[Any, ...]]
    ) -> None:
        self._config = index.config
        self._key = key
        shared = index.shared_ids
        self.shared = bytes(o.id in shared for o in index.objects)
        self._keys: list[tuple[Any, ...] | None] = [None] * len(index.objects)

    def carried(self, replaced: Collection[int]) -> Contenders:
        """The same table for a repository whose objects at ``replaced`` were replaced in
        place under the same configuration (same ids: the same marks; their keys made again
        when first asked for). Nothing of this one is changed."""
        made = Contenders.__new__(Contenders)
        made._config, made._key, made.shared = self._config, self._key, self.shared
        made._keys = list(self._keys)
        for uid in replaced:
            made._keys[uid] = None
        return made

    def key(self, obj: ContextObject) -> tuple[Any, ...]:
        """The competition key of ``obj``."""
        found = self._keys[obj.uid]
        if found is None:
            found = self._keys[obj.uid] = self._key(self._config, obj)
        return found


class Tables(Protocol):
    """What the steps read of the prepared tables (:class:`~octui.resolve.prepared.Prepared`)."""

    index: RepoIndex

    @property
    def records(self) -> Records: ...

    @property
    def scope_ids(self) -> ScopeIds: ...

    @property
    def access(self) -> Access: ...

    @property
    def drafts(self) -> bytes: ...

    @property
    def competition(self) -> Contenders: ...

    @property
    def conflicted(self) -> bytes: ...

    def replaceable(self) -> bytes | None: ...

    def spans_in_use(self) -> Spans | None: ...
