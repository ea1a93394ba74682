""" "Prefetch": the views of the likely next keys, made while the explorer is idle.

Once a view is on screen and no key is coming (:data:`IDLE` s), the views the next key
most likely asks for are made on one background thread into the app's
:class:`~octui.tui.viewcache.ViewCache`: a day on and a day back (``]``/``[``), then the
next and the previous role of the role list. Such a key is then shown without resolving
anything. Before its first views of a repository it prepares the session
(:meth:`~octui.session.Session.prepare`: what any role's first visit makes of each object,
0.3–0.4 s of CPU at 50,000 objects), so a role the prefetch did not guess is quicker too.
Every key cancels the prefetch (between two queries: one resolution cannot be
stopped half-way) and it starts again once the explorer is idle again, after the
background work the screen is waiting for (the Roles block, why-not). It never starts
while a field has the focus (a typist's next key would share the CPU with it), nor for
the roles while following "now" (their instant would be another minute's).
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any

from textual.timer import Timer
from textual.widgets import Input
from textual.worker import Worker

from octui.load.assemble import Repository
from octui.resolve.result import Query
from octui.tui.background import LatestJob
from octui.tui.features import Feature
from octui.tui.host import Host
from octui.tui.messages import SelectionChanged, ViewApplied
from octui.tui.state import Inputs, finish_view

IDLE = 0.1
"""Seconds without a key before the explorer counts as idle and prefetches."""
SHOWN_FIRST = ("roles-block", "whynot", "digest")
"""The background work the screen waits for (the Roles block, why-not, the digest): the
prefetch, only a guess, starts after it."""


def neighbours(inputs: Inputs, roles: list[str], now: datetime) -> list[Inputs]:
    """The inputs the next key most likely asks for: a day on, a day back, then the next
    and the previous role of the list (not while following "now": that instant moves)."""
    out: list[Inputs] = []
    for days in (1, -1):
        moved = inputs.step(days=days, now=now)
        if moved is not None:
            out.append(moved)
    if inputs.as_of is not None and inputs.role in roles and len(roles) > 1:
        at = roles.index(inputs.role)
        for other in (roles[(at + 1) % len(roles)], roles[at - 1]):
            if other != inputs.role:
                out.append(replace(inputs, role=other))
    return list(dict.fromkeys(out))


class Prefetch(Feature):
    """Make the likely next views while the explorer is idle (see the module)."""

    NAME = "prefetch"

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self.enabled = True
        """False: every key computes its own view (the benchmark's "cold" figures)."""
        self.job: LatestJob[None] = LatestJob("octui-prefetch")
        self._timer: Timer | None = None
        self._painted = 0
        """:attr:`~octui.tui.host.Host.paints` at the last key or view."""
        self._worker: Worker[Any] | None = None
        self.cpu = 0.0
        """CPU seconds its thread has spent preparing the session and making views so far,
        and :attr:`made` how many views it made: the benchmark reports the prefetch's cost
        apart from the idle explorer's."""
        self.made = 0
        self._prepared: weakref.ref[Repository] | None = None
        """The repository :meth:`Session.prepare` finished for (then only views are made),
        held weakly: a reload's old repository is not kept alive by it."""

    @property
    def pending(self) -> bool:
        """True from a key (or a new view) until the prefetch it schedules is over: waiting
        for the explorer to be idle, for the screen's own background work, or making views.
        The benchmark's idle window starts only once this is False: the prefetch's work is
        the last key's, not the idle explorer's."""
        worker = self._worker
        return (
            self._timer is not None
            or (worker is not None and not worker.is_finished)
            or self.job.busy
        )

    def close(self) -> None:
        self.job.close()

    def on_view_applied(self, message: ViewApplied) -> None:
        self.poke()

    def on_selection_changed(self, message: SelectionChanged) -> None:
        self.poke()  # (after the selection's own background work has been started)

    def poke(self) -> None:
        """A key (or a new view): stop prefetching; start again once idle for :data:`IDLE` s
        and the screen has shown what the key asked for."""
        self.job.cancel()
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.cancel()  # (one waiting for the paint must not submit its queries after all)
        self._painted = self.host.paints
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.stop()
        if self.enabled:
            self._timer = self.host.set_timer(IDLE, self._start)

    def _start(self) -> None:
        self._timer = None
        host = self.host
        if not host.screen_stack:
            return  # quitting
        view, repo = host.view, host.session.repository
        if view is None or repo is None or view.resolution.repository is not repo:
            return
        if isinstance(host.focused, Input) or host.applied_generation != host.generation:
            return  # typing, or a resolution on its way: not idle
        if any(w.is_running and w.group in SHOWN_FIRST for w in host.workers):
            self._timer = host.set_timer(IDLE, self._start)  # what is on screen goes first
            return
        roles = list(repo.config.roles)
        now = host.clock()
        queries = [i.query(now) for i in neighbours(host.inputs, roles, now)]
        wanted = [q for q in queries if not host.views.known(repo, q)]
        if wanted or not self._is_prepared(repo):
            self._worker = self.run(
                partial(self._fetch, repo, wanted), name="prefetch", group="prefetch"
            )

    def _is_prepared(self, repo: Repository) -> bool:
        prepared = self._prepared
        return prepared is not None and prepared() is repo

    async def _fetch(self, repo: Repository, queries: list[Query]) -> None:
        await self.host.after_paint(self._painted)  # the key's own paint first
        session, views = self.host.session, self.host.views
        task = self.host.inputs.task  # a role or instant switch keeps it: matched ahead

        def work(cancelled: Callable[[], bool]) -> None:
            if not self._is_prepared(repo):  # first what every view reads of each object
                started = time.thread_time()
                done = session.repository is repo and session.prepare(cancelled, task)
                self.cpu += time.thread_time() - started
                if not done:
                    return
                self._prepared = weakref.ref(repo)
            for query in queries:
                if cancelled() or session.repository is not repo:
                    return
                started = time.thread_time()
                try:
                    finish_view(views.made(session, repo, query))  # shown with its digest
                except Exception:  # the key that asks for it computes it and says what failed
                    return
                finally:
                    self.cpu += time.thread_time() - started
                self.made += 1
            # the views these pushed out of the cache (and the keys' before them), freed while
            # the explorer is still idle: the idle collection may have run before they were
            started = time.thread_time()
            views.release()
            self.cpu += time.thread_time() - started

        await self.job.submit(work)


__all__ = ["IDLE", "SHOWN_FIRST", "Prefetch", "neighbours"]
