"""Noticing edits on disk without walking the tree: filesystem events through ``watchfiles``.

An event says which paths under the root may have changed; whoever listens confirms with
the repository's fingerprint (:meth:`octui.session.Session.fingerprint`, told those paths)
before reloading, so a spurious event never changes what is shown, and checks the whole
tree now and then, so a missed one changes only when. The wait
runs in a daemon thread (quitting never waits for it) and stops within :data:`STEP_MS` of
:meth:`DiskEvents.close`. Where events cannot be had (``watchfiles`` missing, no inotify
watches left, the root gone), the caller polls.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path
from typing import Any

DEBOUNCE_MS = 50
"""Changes arriving within this of each other are one batch."""
STEP_MS = 100
"""How often the waiting thread checks whether it was told to stop."""
_TIMEOUT_MS = 60_000


class DiskEvents:
    """Batches of filesystem events under one folder, awaited with :meth:`next`."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._stop = threading.Event()
        self._batches: asyncio.Queue[frozenset[str] | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="octui-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        notify: Any = None
        try:
            from watchfiles._rust_notify import RustNotify

            # Setting up the watches walks every folder: here, never on the caller's loop.
            notify = RustNotify([str(self._root)], False, False, 300, True, True)
            while not self._stop.is_set():
                found = notify.watch(DEBOUNCE_MS, STEP_MS, _TIMEOUT_MS, self._stop)
                if isinstance(found, set) and found:
                    self._post(frozenset(str(path) for _change, path in found))
                elif found == "stop":
                    break
        except Exception:
            self._post(None)  # no events (or no more): the caller falls back to polling
        finally:
            if notify is not None:
                with contextlib.suppress(Exception):
                    notify.close()

    def _post(self, paths: frozenset[str] | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is listening
            self._loop.call_soon_threadsafe(self._batches.put_nowait, paths)

    async def next(self) -> frozenset[str] | None:
        """Wait for the next batch of events: the paths they name (absolute, never empty),
        or None when watching failed."""
        paths = await self._batches.get()
        while not self._batches.empty():  # batches that queued meanwhile are one change
            more = self._batches.get_nowait()
            paths = None if paths is None or more is None else paths | more
        return paths

    def close(self) -> None:
        self._stop.set()


def open_events(root: Path) -> DiskEvents | None:
    """Events for every change under ``root`` (recursively), or None when ``watchfiles`` is
    missing; :meth:`DiskEvents.next` says None when watching cannot start or stops working.
    Must be called from a running event loop."""
    try:
        import watchfiles._rust_notify  # noqa: F401
    except Exception:
        return None
    return DiskEvents(root)
