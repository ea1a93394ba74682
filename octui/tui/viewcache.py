"""Finished views kept for the keys that ask for them again (or ahead of them).

- :class:`ViewCache` is the app's one cache of finished views (a resolution with its
  tables indexed and measured, its digest computed): by repository and
  :class:`~octui.resolve.result.Query`, the few most recently used. A view is a pure
  function of the two, so a key whose query was made before (a day back after a day on,
  the role just left, a prefetched neighbour) is shown without resolving anything; a
  query being made by another thread is waited for, not made twice.
- :class:`~octui.tui.features.prefetch.Prefetch` fills it ahead of the likely next keys.
- A view the cache drops is freed later, when the explorer is idle (:data:`RETIRED`), not
  by the key that made the view pushing it out.

Thread-safety: one lock guards the tables; nothing is computed while it is held; two
threads wanting one query agree that the first computes it and the other waits.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace

from octui.load.assemble import Repository
from octui.resolve.result import Query
from octui.session import Session
from octui.tui.state import LineageMemo, RowsMemo, View, make_view

VIEWS = 6
"""Views kept: the one on show, the one before and the four the prefetch makes (each
holds its resolution and its tables: about 16 MB more than the repository at 50k objects,
measured as a session's RSS growth per view held)."""
RETIRED = 4
"""Views dropped from the cache but not freed yet. Freeing one (its resolution and tables)
costs 6–12 ms at 50k objects, which the key whose view pushed it out would pay before its
results are shown; :meth:`ViewCache.release` frees them once the explorer is idle instead
(the idle collection calls it, and the prefetch once its views are made).
Beyond this many the oldest is freed at once, so a long burst of keys holds at most this
many more views in memory (about 16 MB each at 50k objects: 64 MB more at most)."""


class ViewCache:
    """Finished views of one repository, by query (the :data:`VIEWS` most recently used)."""

    def __init__(self, bound: int = VIEWS, retired: int = RETIRED) -> None:
        self.bound = bound
        self.retired_bound = retired
        self._retired: list[View] = []
        """Views dropped, oldest first, until :meth:`release` (see :data:`RETIRED`)."""
        self._lock = threading.Lock()
        self._repo: Repository | None = None
        self._views: OrderedDict[Query, View] = OrderedDict()
        self._making: dict[Query, threading.Event] = {}
        self.rows = RowsMemo()
        """The tables' rows, reused by views that share them (see :class:`RowsMemo`)."""
        self.lineages = LineageMemo()
        """The timeline's index of each graph, shared by its views (see :class:`LineageMemo`)."""

    def known(self, repo: Repository, query: Query) -> bool:
        """True when ``query``'s view of ``repo`` is made (or being made). A kept view asked
        about counts as just used: the prefetch asks about the views the next key most
        likely wants, and those must not be the next ones dropped to make room (a day
        back after two days on would have to be resolved again)."""
        with self._lock:
            if self._repo is not repo:
                return False
            if query in self._views:
                self._views.move_to_end(query)
                return True
            return query in self._making

    def kept(self, repo: Repository, query: Query, generation: int) -> View | None:
        """``query``'s view of ``repo`` as generation ``generation`` if it is made already
        (None otherwise: one being made is not waited for here)."""
        with self._lock:
            found = self._views.get(query) if self._repo is repo else None
            if found is None:
                return None
            self._views.move_to_end(query)
        return replace(found, generation=generation)

    def view(self, session: Session, query: Query, generation: int) -> View:
        """``query``'s view of the session's repository, as generation ``generation``:
        kept, or waited for, or made now (and kept)."""
        repo = session.repository if session.repository is not None else session.load()
        return replace(self.made(session, repo, query), generation=generation)

    def made(self, session: Session, repo: Repository, query: Query) -> View:
        """The view of ``query`` (generation 0), made once per repository."""
        while True:
            with self._lock:
                old = self._switch(repo)
                found = self._views.get(query)
                waiting = None if found is not None else self._making.get(query)
                if found is not None:
                    self._views.move_to_end(query)
                elif waiting is None:
                    mine = self._making[query] = threading.Event()
            del old  # the old repository's views, if any: freed here, outside the lock
            if found is not None:
                return found
            if waiting is None:
                break
            waiting.wait()  # another thread makes it: take its answer (or make it, if it failed)
        try:
            made = make_view(session.resolve(query), 0, self.rows, self.lineages)
        finally:
            with self._lock:
                if self._making.get(query) is mine:
                    del self._making[query]
            mine.set()
        freed: list[View] = []
        with self._lock:
            if self._repo is repo:
                self._views[query] = made
                self._views.move_to_end(query)
                while len(self._views) > self.bound:
                    self._retired.append(self._views.popitem(last=False)[1])
                excess = len(self._retired) - self.retired_bound
                if excess > 0:
                    freed = self._retired[:excess]
                    del self._retired[:excess]
        del freed  # (the oldest dropped views, past the bound: freed here, outside the lock)
        return made

    def _switch(self, repo: Repository) -> list[object]:
        """Under the lock: on a reload (``repo`` is not the cache's), start afresh for
        ``repo``; what held the old repository's views, for the caller to free outside the
        lock (at scale each view takes milliseconds to free, and the UI thread's lookups
        wait for the lock)."""
        if self._repo is repo:
            return []
        old: list[object] = [self._views, self._retired, self.rows, self.lineages]
        self._repo, self._making = repo, {}
        self._views, self._retired = OrderedDict(), []
        self.rows = RowsMemo()
        self.lineages = LineageMemo()
        return old

    @property
    def retired(self) -> int:
        """Views dropped and not freed yet (see :data:`RETIRED`)."""
        with self._lock:
            return len(self._retired)

    def release(self) -> int:
        """Free the views dropped since the last call (the explorer is idle); how many."""
        with self._lock:
            retired, self._retired = self._retired, []
        return len(retired)  # freed as this returns, outside the lock


__all__ = ["RETIRED", "VIEWS", "ViewCache"]
