"""The explorer's footer: Textual's, rebuilt only when what it shows changes.

Textual's :class:`~textual.widgets.Footer` rebuilds all its keys (a widget each: mounted,
styled, laid out) every time the screen says its bindings may have changed, which it says
on every focus change: a tab key, the role list closing, a field left. Between the
explorer's tables the keys shown are the same, so this footer compares what it would show
with what it shows and rebuilds only when they differ.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class SteadyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that skips a rebuild that would show the same."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self.composed: tuple[Any, ...] | None = None
        """What the last rebuild showed (see :meth:`shown_keys`); None before the first."""

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
        if current and screen.app.app_focus and self.shown_keys() == self.composed:
            return  # the same keys as on show: nothing to rebuild
        super().bindings_changed(screen)


__all__ = ["SteadyFooter"]
