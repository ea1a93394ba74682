"""Loading the repository into the explorer, and following it on disk.

- :func:`load_problem` says, in three parts (what, where, the problem), why a repository
  cannot be read — the error screen shows them;
- :func:`role_problem` says what became of the chosen role after a (re)load;
- :class:`DiskWatch` reloads when the files changed: on filesystem events where they can
  be had (:mod:`octui.load.watching`; the reload re-reads only the paths they name, and
  the whole tree is checked every :data:`FULL_CHECK_S` for what events miss), else by
  polling; either way the session's fingerprint confirms a change before anything reloads.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from pathlib import Path

from textual.notifications import SeverityLevel

from octui.core.textsafe import inert
from octui.load.config import ConfigError, NotARepository
from octui.load.fingerprint import Fingerprint
from octui.load.tree import FsTree
from octui.load.watching import DiskEvents, open_events
from octui.session import Session
from octui.tui.background import in_daemon_thread

FULL_CHECK_S = 300.0
"""While following events, how often the whole tree is checked (a missed event is seen
within this; one check of 50k files costs about a second of CPU)."""


def load_problem(exc: BaseException, root: Path) -> tuple[str, str, str]:
    """``(title, where, problem)`` of a load that failed with ``exc``."""
    if isinstance(exc, NotARepository):
        return (
            "Not an OpenContext repository",
            str(root / "opencontext.yaml"),
            "not found: the folder is not an OpenContext repository until it holds "
            "opencontext.yaml",
        )
    if isinstance(exc, ConfigError):
        return (
            "The configuration cannot be read",
            exc.file + (f" — key {exc.key}" if exc.key else ""),
            exc.problem,
        )
    return ("The repository cannot be read", str(root), str(exc))  # never a traceback


def role_problem(
    role: str | None, roles: list[str], *, shown: bool
) -> tuple[str, SeverityLevel] | None:
    """What to say when ``role`` is not among the declared ``roles`` (None: it is, or no
    role was chosen): it is no longer declared (a view was ``shown``), or never was."""
    if role is None or role in roles:
        return None
    if shown:
        note = f"role {role!r} is no longer declared; showing {roles[0] if roles else 'none'}"
        return inert(note, keep_newlines=False), "warning"
    note = f"unknown role {role!r}; declared roles: {', '.join(roles) or 'none'}"
    return inert(note, keep_newlines=False), "error"


class DiskWatch:
    """Reload the repository whenever its files change (also while the error screen shows)."""

    def __init__(
        self,
        session: Callable[[], Session],
        seen: Callable[[], Fingerprint | None],
        reload: Callable[[], object],
        poll_interval: float,
    ) -> None:
        self.session = session
        """The session read now (it changes with the revision)."""
        self.seen = seen
        """The fingerprint of what the last load saw."""
        self.reload = reload
        """Start a reload."""
        self.poll_interval = poll_interval
        """Seconds between two polls (at least; a slow stat stretches it)."""
        self.mode: str | None = None
        """How it watches now: ``"events"``, or ``"poll"`` (no events to be had, or they
        stopped); None before it starts. The benchmark reports it: polling a large tree costs
        CPU while the explorer is idle, events cost none."""
        self.whole_checks = 0
        """How many times the whole tree was checked because no event came for
        :data:`FULL_CHECK_S` (the benchmark reports those that fall in its idle window)."""

    async def run(self) -> None:
        """Watch until cancelled: events when available, else polling."""
        session = self.session()
        if isinstance(session.tree, FsTree):
            events = open_events(session.root)
            if events is not None:
                self.mode = "events"
                try:
                    await self._follow(events)
                finally:
                    events.close()
        self.mode = "poll"
        await self._poll()

    async def _follow(self, events: DiskEvents) -> None:
        """Reload on events until watching fails; the whole tree checked now and then."""
        while True:
            try:
                paths = await asyncio.wait_for(events.next(), FULL_CHECK_S)
            except TimeoutError:
                self.whole_checks += 1
                await self._reload_if_changed(None)
                continue
            if not paths:
                return
            await self._reload_if_changed(paths)

    async def _reload_if_changed(self, paths: frozenset[str] | None) -> None:
        """Reload when the fingerprint differs from what the last load saw: looking at
        ``paths`` only (the reload then re-reads only those), or at everything (None)."""
        session = self.session()
        if paths is not None:
            session.note_changes(paths)
        with contextlib.suppress(Exception):
            if await in_daemon_thread(session.fingerprint, paths) != self.seen():
                if paths is None:
                    session.note_changes(None)
                self.reload()

    async def _poll(self) -> None:
        interval = self.poll_interval
        while True:
            await asyncio.sleep(interval)
            started = time.perf_counter()
            try:
                fingerprint = await in_daemon_thread(self.session().fingerprint)
            except Exception:
                continue
            # a huge repository takes a while to stat: never spend more than ~1/5 of the time
            interval = max(self.poll_interval, 5 * (time.perf_counter() - started))
            if fingerprint != self.seen():
                self.session().note_changes(None)
                self.reload()


__all__ = ["DiskWatch", "load_problem", "role_problem"]
