""" "Collector": the cyclic garbage collector runs while the explorer is idle, not in a key.

Textual makes cyclic garbage with every key (messages, widgets mounted and removed, …) and
the interpreter's collector starts a pass whenever enough has been allocated: in the
middle of a key, a young pass costing a few milliseconds several times per key, and now
and then a full one costing a tenth of a second and more (measured at 50k objects on the
key's own thread). While the explorer runs, the automatic passes are held off (one
:func:`~octui.load.heap.gc_paused` section for the app's whole run, so the resolver's own
paused sections never switch it back on) and :class:`IdleCollector` collects instead once
the keys stop for :data:`IDLE` s: a young pass, and every :data:`FULL_EVERY`-th time a full
one. The work is the same; it is done after the key is shown, not before. Nothing is left
uncollected for longer than the next pause in the typing; while the explorer is idle the
collector does nothing (it runs once per burst of keys, never on a clock).

Freeing the views the view cache dropped is put off the same way (see
:data:`~octui.tui.viewcache.RETIRED`): 6–12 ms a view at 50k objects.
"""

from __future__ import annotations

import gc
from contextlib import ExitStack

from textual.timer import Timer

from octui.load.heap import gc_paused
from octui.tui.features import Feature
from octui.tui.host import Host
from octui.tui.messages import SelectionChanged, ViewApplied

IDLE = 0.25
"""Seconds without a key (or a new view, or selection) before the collector runs."""
FULL_EVERY = 10
"""Every this many idle collections, a full one (the others collect the young generations,
as the interpreter's own thresholds would)."""


class IdleCollector(Feature):
    """Hold the automatic collection off while the app runs; collect when idle."""

    NAME = "collector"

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self._held = ExitStack()
        self._timer: Timer | None = None
        self.holding = False
        """True while the automatic passes are held off (between :meth:`start` and
        :meth:`close`)."""
        self.collections = 0
        """Idle collections so far (young and full)."""

    @property
    def pending(self) -> bool:
        """True while a collection is scheduled (the benchmark's idle window waits for it:
        it is the last key's work)."""
        return self._timer is not None

    def start(self) -> None:
        """The app runs: no automatic passes from now on (until :meth:`close`)."""
        if not self.holding:
            self._held.enter_context(gc_paused())
            self.holding = True

    def close(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.stop()
        self._held.close()  # the collector runs again as before (if it ran before)
        self.holding = False

    def on_view_applied(self, message: ViewApplied) -> None:
        self.poke()

    def on_selection_changed(self, message: SelectionChanged) -> None:
        self.poke()

    def poke(self) -> None:
        """A key (or a new view): collect once nothing has happened for :data:`IDLE` s."""
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.stop()
        if self.host.screen_stack:  # (not while quitting)
            self._timer = self.host.set_timer(IDLE, self.collect)

    def collect(self) -> None:
        """One idle collection: the views the view cache dropped are freed, then a young
        pass, or (every :data:`FULL_EVERY`-th) a full one."""
        self._timer = None
        self.collections += 1
        self.host.views.release()
        gc.collect(2 if self.collections % FULL_EVERY == 0 else 1)


__all__ = ["FULL_EVERY", "IDLE", "IdleCollector"]
