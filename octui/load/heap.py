"""Keeping the cyclic garbage collector off the loaded heap.

A loaded repository is millions of long-lived containers that make no garbage cycles; the
collector's full passes over them cost more than the work they interrupt. These helpers
pause it around allocation-heavy work and exempt a loaded heap until the next load.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_heap_held = False
"""Whether the loaded heap is frozen (:func:`hold_heap`) until the next load."""
_hold_made = False
"""Whether what a paused section makes joins the held heap (:func:`holding_made`)."""
_paused_lock = threading.Lock()
_paused_depth = 0
"""Paused sections open now, in every thread (the collector is one per process)."""
_resume = False
"""Whether the collector was enabled when the first open section paused it."""


def hold_heap() -> None:
    """Exempt everything alive now from the cyclic collector's passes until the next load.

    A loaded repository is millions of long-lived containers that make no garbage cycles;
    without this, every full collection (triggered by ordinary allocation later) walks all
    of them again: half a second or more at 50k objects. Reference counting still frees
    anything that is dropped, and :func:`release_heap` (called by every load) hands the
    frozen objects back to the collector, so an old repository's cycles are still freed.
    """
    global _heap_held
    gc.freeze()
    _heap_held = True


def release_heap() -> None:
    """Give everything :func:`hold_heap` froze back to the collector (oldest generation)."""
    global _heap_held
    gc.unfreeze()
    _heap_held = False


@contextlib.contextmanager
def holding_made() -> Iterator[None]:
    """For a process whose own code leaves no cyclic garbage for the collector (a command
    of the CLI; the benchmark's session, measured as the explorer runs, which holds each
    view it makes): while a loaded heap is held, what every paused section makes joins it.

    Otherwise the first allocation after a paused section starts a young pass over
    everything the section made (a whole resolution's tables: tens of milliseconds at 10k
    objects), and the older passes that follow walk it again (up to a third of a second
    at 100k), only to find it alive. What octui makes holds no reference cycles (a test
    resolves, evicts and reloads and finds no octui garbage), so reference counting still
    frees whatever a cache drops. It is not the default: in a host program that makes
    cycles of its own between resolutions, they would wait for the next load.
    """
    global _hold_made
    before = _hold_made
    _hold_made = True
    try:
        yield
    finally:
        _hold_made = before


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector around allocation-heavy work that makes no cycles.

    Loading 50k objects allocates millions of containers; every full collection walks all
    of them again. Reference counting still frees everything as usual meanwhile, and the
    collector still sees everything later. Sections nest and overlap across threads (the
    explorer resolves on worker threads): the collector is paused while any is open and
    runs again only when the last one closes.
    """
    global _paused_depth, _resume
    with _paused_lock:
        if _paused_depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _paused_depth += 1
    try:
        yield
    finally:
        with _paused_lock:
            _paused_depth -= 1
            if _paused_depth == 0:
                _close_pause()


def _close_pause() -> None:
    """The last open paused section ends (called under the lock): what was made joins the
    held heap (:func:`holding_made`) or is counted as old, and the collector runs again if
    it ran before."""
    if _heap_held and _hold_made:
        gc.freeze()
    elif not _heap_held:
        # Count what was made as old: without this the first allocation after re-enabling
        # would walk every young object at once. Nothing is exempt for good. (While the
        # heap is held this would unfreeze it, so what was made stays young and is
        # collected, if ever, by passes that skip the frozen heap.)
        gc.freeze()
        gc.unfreeze()
    if _resume:
        gc.enable()
