"""Keeping the cyclic garbage collector off the loaded heap.

A loaded repository is millions of long-lived containers that make no garbage cycles; the
collector's full passes over them cost more than the work they interrupt. These helpers
pause it around allocation-heavy work and exempt a loaded heap until the next load.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_heap_held = False
"""Whether the loaded heap is frozen (:func:`hold_heap`) until the next load."""


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
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector around allocation-heavy work that makes no cycles.

    Loading 50k objects allocates millions of containers; every full collection walks all
    of them again. Reference counting still frees everything as usual meanwhile, and the
    collector still sees everything later.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not _heap_held:
            # Count what was made as old: without this the first allocation after re-enabling
            # would walk every young object at once. Nothing is exempt for good. (While the
            # heap is held this would unfreeze it, so what was made stays young and is
            # collected, if ever, by passes that skip the frozen heap.)
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()
