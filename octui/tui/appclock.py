"""A clock inside the explorer, for the benchmark's keystroke figures: paints, key arrivals
and the explorer's foreground steps, stamped on Textual's own clock (the one that stamps
each event's ``time``). It hooks the app's internals (``App._display``, ``on_event``,
``apply_view``, the explorer screen's ``select``), so it lives beside the app; the
benchmark (:mod:`octui.devtools.explorer_figures`) only reads it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual import events
from textual._time import get_time  # the clock of ``Message.time``

from octui.tui.screens.explorer import ExplorerScreen


@dataclass
class Key:
    """One keystroke, in milliseconds from its arrival at the app (see the module)."""

    echo: float
    shown: float
    settled: float
    cpu: float


class AppClock:
    """Paints, key arrivals and the explorer's foreground steps (``apply_view`` showing a
    resolution, the explorer screen's ``select`` filling the detail pane), stamped inside
    the app on Textual's clock."""

    def __init__(self, app: Any) -> None:
        self.now: Callable[[], float] = get_time
        self.paints: list[float] = []
        self.keys: list[Any] = []
        self.steps: list[float] = []
        self.first_screen_cpu: float | None = None
        self.first_screen_parsed: int | None = None
        display, on_event = app._display, app.on_event
        apply_view, select = app.apply_view, ExplorerScreen.select

        def painted(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is None:
                return
            self.paints.append(get_time())
            if self.first_screen_cpu is None and app.applied_generation > 0:
                self.first_screen_cpu = time.process_time()
                self.first_screen_parsed = app.session.loader.parsed_count

        async def arrived(event: Any) -> None:
            if isinstance(event, events.Key):
                self.keys.append(event)
            await on_event(event)

        def applied(view: Any) -> bool:
            shown = bool(apply_view(view))
            if shown:
                self.steps.append(get_time())
            return shown

        def selected(screen: ExplorerScreen, item: Any) -> None:
            select(screen, item)
            if screen.app is app:  # the screen is made when the app runs: hook its class
                self.steps.append(get_time())

        app._display, app.on_event = painted, arrived
        app.apply_view = applied
        ExplorerScreen.select = selected  # type: ignore[method-assign, assignment]

    def key(self, since: tuple[int, int, int], cpu: float) -> Key:
        """The key that arrived first after ``since`` (counts of keys, paints, steps)."""
        event = self.keys[since[0]]
        start = event.time
        paints, steps = self.paints[since[1] :], self.steps[since[2] :]
        echo = paints[0] if paints else start
        done = steps[-1] if steps else echo
        shown = next((p for p in paints if p >= done), done)
        settled = max(paints[-1] if paints else start, shown)
        echo_ms, shown_ms, settled_ms = (1000 * max(0.0, t - start) for t in (echo, shown, settled))
        return Key(echo=echo_ms, shown=shown_ms, settled=settled_ms, cpu=cpu)


__all__ = ["AppClock", "Key"]
