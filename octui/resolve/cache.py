"""One explicit cache of what resolution derives from one loaded repository.

A :class:`~octui.load.assemble.Repository` never changes once loaded (a reload makes a new
one, and a new cache with it), so what resolution derives from it — from it alone, from it
and one role, from one role and one instant — can be kept and reused by the next
resolution. A :class:`ResolutionCache` is owned by whoever keeps the repository (the
:class:`~octui.session.Session`, or a sweep that resolves one repository many times) and
handed to :func:`octui.resolve.engine.resolve` explicitly; without one everything is
computed. Every answer is the same with and without it (the property tests compare whole
bundles).

What is kept, and how much:

- the :class:`~octui.resolve.index.RepoIndex` of the repository, and the
  :class:`~octui.resolve.prepared.Prepared` tables that make a new role or instant cheap;
- per role, what steps 1–2 leave it (what it may read, its supersession graph, the
  findings that depend on what it may read): the :data:`ROLES` most recently used roles;
- per (role, instant, ``include_historical``), what steps 3–7 leave: the :data:`STAGES`
  most recently used;
- both bounds shrink for a large repository (see :func:`bound_for`): an entry's size
  grows with the number of objects (11 MB a role, 4.5 MB a stage at 50,000), so the
  memory they hold stays about what :data:`ROLE_OBJECTS` and :data:`STAGE_OBJECTS` allow;
- derived values the analyses ask for again and again (the repository as one role sees
  it, with its own cache): the :data:`DERIVED` most recently used.
- in :attr:`ResolutionCache.memo`, what the bundle derives from the repository's objects
  (the digest's encoded pieces, :mod:`octui.bundle.pieces`); each stage keeps its own memo
  (step 8's fixed order and task-token matches, the stage's digest pieces).

Thread-safety, one rule: **one lock guards every read and write of every table, and nothing
is computed while it is held.** A missing value is computed outside the lock and stored
with "first one wins": every value is a pure function of its key and the repository, so two
threads racing for one key compute equal values, and both return the one stored first.
Values are never changed once stored, so they may be read without the lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from octui.load.assemble import Repository
from octui.resolve.index import RepoIndex
from octui.resolve.memo import Memo
from octui.resolve.prepared import Prepared

T = TypeVar("T")

ROLES = 4
"""Roles whose facts (steps 1–2, the supersession graph, their findings) are kept."""
STAGES = 6
"""(role, instant, include_historical) whose steps 3–7 are kept."""
DERIVED = 8
"""Derived values kept (see :meth:`ResolutionCache.derived`)."""
ROLE_OBJECTS = 100_000
"""Roles × objects kept at most, above :data:`ROLES_KEPT`: every role up to 25,000 objects."""
STAGE_OBJECTS = 150_000
"""Stages × objects kept at most, above :data:`STAGES_KEPT`: every stage up to 25,000 objects."""
ROLES_KEPT = 3
"""Roles kept whatever the size: the explorer's role and the two it prefetches beside it."""
STAGES_KEPT = 5
"""Stages kept whatever the size: the explorer's, the day on and back and the two
neighbouring roles it prefetches (a typed character after a prefetch must find its stage)."""


def bound_for(entries: int, budget: int, objects: int, floor: int = 1) -> int:
    """How many entries of a table to keep for a repository of ``objects`` objects: at most
    ``entries``, at least ``floor``, and otherwise no more than ``budget`` objects' worth."""
    return max(min(floor, entries), min(entries, budget // max(objects, 1)))


class ResolutionCache:
    """What resolution derives from :attr:`repository`, kept between resolutions (bounded)."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self._lock = threading.Lock()
        self._index: RepoIndex | None = None
        self._prepared: Prepared | None = None
        self._carry: Callable[[ResolutionCache, Table, Hashable, Any], Any] | None = None
        size = len(repository.objects)
        roles = bound_for(ROLES, ROLE_OBJECTS, size, ROLES_KEPT)
        stages = bound_for(STAGES, STAGE_OBJECTS, size, STAGES_KEPT)
        self.roles = Table(roles, self._lock, "roles")
        """What steps 1–2 leave each role, by role name."""
        self.stages = Table(stages, self._lock, "stages")
        """What steps 3–7 leave, by (role, as_of, include_historical)."""
        self.derived_values = Table(DERIVED, self._lock, "derived")
        """What analyses derive from the repository, by their own keys."""
        self.memo: Memo | None = Memo()
        """What the bundle derives from the repository's objects (the digest's pieces)."""

    def index(self) -> RepoIndex:
        """The repository's index, computed on first use."""
        with self._lock:
            index = self._index
        if index is None:
            made = RepoIndex(self.repository)
            with self._lock:
                if self._index is None:
                    self._index = made
                index = self._index
        return index

    def prepared(self) -> Prepared:
        """The repository-wide tables that make a new role or instant cheap (made on first
        use; each table inside is computed on its own first use)."""
        with self._lock:
            prepared = self._prepared
        if prepared is None:
            made = Prepared(self.index())
            with self._lock:
                if self._prepared is None:
                    self._prepared = made
                prepared = self._prepared
        return prepared

    def known_index(self) -> RepoIndex | None:
        """The index if it was computed (never computes)."""
        with self._lock:
            return self._index

    def known_prepared(self) -> Prepared | None:
        """The repository-wide tables if any were asked for (never computes)."""
        with self._lock:
            return self._prepared

    def seed(
        self,
        index: RepoIndex,
        derived: dict[Hashable, Any],
        pending: dict[str, dict[Hashable, Any]],
        carry: Callable[[ResolutionCache, Table, Hashable, Any], Any],
        prepared: Prepared | None = None,
    ) -> None:
        """Start from what the cache of an earlier repository knew (:mod:`octui.resolve.carry`):
        its index carried, its ``prepared`` tables that still hold, ``derived`` values that
        still hold, and ``pending`` entries of the ``roles`` and ``stages`` tables, each
        turned into this cache's value by ``carry(table, key, entry)`` when first asked for
        (:data:`NOT_CARRIED`: compute it instead)."""
        with self._lock:
            self._index = index
            self._prepared = prepared
            self._carry = carry
            self.derived_values.entries.update(derived)
            for table in (self.roles, self.stages):
                table.pending = dict(pending.get(table.name, {}))

    def role(self, name: str | None, compute: Callable[[], T]) -> T:
        """What steps 1–2 leave role ``name``."""
        return self._get(self.roles, name, compute)

    def stage(self, key: tuple[str | None, Any, bool], compute: Callable[[], T]) -> T:
        """What steps 3–7 leave (role, as_of, include_historical)."""
        return self._get(self.stages, key, compute)

    def derived(self, key: Hashable, compute: Callable[[], T]) -> T:
        """A value an analysis derives from the repository alone under ``key``."""
        return self._get(self.derived_values, key, compute)

    def known(self, key: Hashable) -> Any | None:
        """The derived value kept under ``key``, if any (never computes)."""
        with self._lock:
            return self.derived_values.entries.get(key)

    def _get(self, table: Table, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            found = table.entries.get(key, _MISSING)
            if found is not _MISSING:
                table.entries.move_to_end(key)  # most recently used last
                return found  # type: ignore[no-any-return]
            carried = table.pending.pop(key, NOT_CARRIED) if table.pending else NOT_CARRIED
        made: Any = NOT_CARRIED  # outside the lock, carried or computed: see the module's rule
        if carried is not NOT_CARRIED and self._carry is not None:
            made = self._carry(self, table, key, carried)
        if made is NOT_CARRIED:
            made = compute()
        with self._lock:
            found = table.entries.setdefault(key, made)
            table.entries.move_to_end(key)
            while table.pending and len(table.entries) + len(table.pending) > table.bound:
                del table.pending[next(iter(table.pending))]  # carried, never asked for: first
            while len(table.entries) > table.bound:
                table.entries.popitem(last=False)
        return found  # type: ignore[no-any-return]


class Table:
    """One bounded table of a :class:`ResolutionCache`: least recently used first, read and
    written only under the cache's lock."""

    __slots__ = ("bound", "entries", "lock", "name", "pending")

    def __init__(self, bound: int, lock: threading.Lock, name: str = "") -> None:
        self.bound = bound
        self.lock = lock
        self.name = name
        self.entries: OrderedDict[Hashable, Any] = OrderedDict()
        self.pending: dict[Hashable, Any] = {}
        """Entries carried from an earlier repository's cache, not yet asked for (see
        :meth:`ResolutionCache.seed`)."""

    def keys(self) -> list[Hashable]:
        """The keys kept, least recently used first (a copy: for tests and measurements)."""
        with self.lock:
            return list(self.entries)

    def items(self) -> list[tuple[Hashable, Any]]:
        """The entries kept, least recently used first (a copy)."""
        with self.lock:
            return list(self.entries.items())

    def pending_items(self) -> list[tuple[Hashable, Any]]:
        """The carried entries not yet asked for (a copy)."""
        with self.lock:
            return list(self.pending.items())


_MISSING = object()
NOT_CARRIED = object()
"""What a carry answers for an entry it cannot carry (it is then computed)."""


class NoCache:
    """The same questions as :class:`ResolutionCache`, every answer computed afresh."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self.memo: Memo | None = None

    def index(self) -> RepoIndex:
        return RepoIndex(self.repository)

    def prepared(self) -> None:
        """No repository-wide tables: each resolution computes what it needs directly."""
        return None

    def role(self, name: str | None, compute: Callable[[], T]) -> T:
        return compute()

    def stage(self, key: tuple[str | None, Any, bool], compute: Callable[[], T]) -> T:
        return compute()

    def derived(self, key: Hashable, compute: Callable[[], T]) -> T:
        return compute()


def facts_for(repository: Repository, cache: ResolutionCache | None) -> ResolutionCache | NoCache:
    """``cache``, or a :class:`NoCache` when there is none; refuses a cache of another
    repository (its facts would be wrong here)."""
    if cache is None:
        return NoCache(repository)
    if cache.repository is not repository:
        raise ValueError("the resolution cache belongs to another repository")
    return cache
