"""The explorer's footer: Textual's, rebuilt only when what it shows changes, and after
the key that changed it is shown.

Textual's :class:`~textual.widgets.Footer` rebuilds all its keys (a widget each: mounted,
styled, laid out) every time the screen says its bindings may have changed, which it says
on every focus change: a tab key, the role list closing, a field left. Between the
explorer's tables the keys shown are the same, so this footer compares what it would show
with what it shows and rebuilds only when they differ.

A rebuild costs 25-35 ms of the UI thread at 50k objects (ten widgets mounted and styled
against the whole stylesheet, then a layout of the screen). Picking a role changes the
focus twice (the list closes onto the role field, then the field hands it back to the
table): the rebuild used to run between the two, before the new role's tables were drawn.
So the footer follows the bindings once they have not changed for :data:`FOLLOW_DELAY`
s: the key's own results are drawn first, and flips that end where they began (the role
list closing back onto the table) cost nothing.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer

FOLLOW_DELAY = 0.1
"""Seconds the bindings must stay the same before the footer shows them (see the module)."""


class SteadyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that skips a rebuild that would show the same."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self.composed: tuple[Any, ...] | None = None
        """What the last rebuild showed (see :meth:`shown_keys`); None before the first."""
        self._follow: Timer | None = None
        """The timer that follows the bindings (see the module); None when none is due."""

    def shown_keys(self) -> tuple[Any, ...]:
        """Everything :meth:`compose` reads to build the keys: each shown binding with
        whether it is enabled and its tooltip, and whether the palette key is shown."""
        app = self.app
        keys = tuple(
            (key, binding, app.get_key_display(binding), enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == app.COMMAND_PALETTE_BINDING
        )
        return (keys, self.show_command_palette, self.compact, self.combine_groups)

    def compose(self) -> ComposeResult:
        self.composed = self.shown_keys() if self._bindings_ready else None
        yield from super().compose()

    def bindings_changed(self, screen: Screen[Any]) -> None:
        current = self._bindings_ready and self.is_attached and screen is self.screen
        if not (current and screen.app.app_focus):
            super().bindings_changed(screen)  # the first keys, or Textual's own rules
        elif self._follow is not None:
            self._follow.reset()  # changed again: wait until they stay
        elif self.shown_keys() != self.composed:
            self._follow = self.set_timer(FOLLOW_DELAY, self._follow_bindings)

    async def _follow_bindings(self) -> None:
        """Rebuild when the keys to show still differ from those on show."""
        self._follow = None
        if self.is_attached and self.shown_keys() != self.composed:
            await self.recompose()


__all__ = ["SteadyFooter"]
