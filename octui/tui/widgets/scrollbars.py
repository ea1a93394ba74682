"""Scrollbars drawn again only when what they show changes.

Textual repaints a widget's scrollbars whenever the widget's styles are applied (a focus
change, a class toggled, the role list closing) and whenever a scrolling widget takes part
in a layout, even when the bar looks exactly as before. Each repaint draws every line of
the bar through the full style pipeline: about 1 ms for a 40-line bar. A tab key or a new
role drew five to ten of them, 2-12 ms of the screen updates a keystroke causes at 50,000
objects (the README's "Keys").

:class:`SteadyScrollBar` keeps the lines it drew with everything that shapes them — the
region asked for, its size, the bar's own renderable (sizes, position, colours, which
follow the parent's focus and the pointer), its background, the colour and text style it
takes from its ancestors, its own rules, the theme's ANSI colours and the app's line
filters — and returns them while all of that is the same. :class:`SteadyScrollbars`,
mixed into a scrolling widget, gives it such bars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.widget import Widget

    _Scrolling = Widget
else:
    _Scrolling = object


class SteadyScrollBar(ScrollBar):
    """A :class:`~textual.scrollbar.ScrollBar` that replays its lines while they would be
    drawn the same."""

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1):
        super().__init__(vertical=vertical, name=name, thickness=thickness)
        self._drawn: tuple[tuple[Any, ...], list[Strip]] | None = None

    def look(self, crop: Region) -> tuple[Any, ...]:
        """Everything the lines drawn for ``crop`` depend on (see the module)."""
        bar = self.render()
        styles = self.styles
        app = self.app
        return (
            crop,
            self.size,
            type(bar),
            dict(vars(bar)),
            self.background_colors,
            self.visual_style,
            self.opacity,
            styles.base.get_rules(),
            styles.inline.get_rules(),
            app.ansi_theme,
            app.native_ansi_color,
            tuple(self.get_line_filters()),
        )

    def render_lines(self, crop: Region) -> list[Strip]:
        look = self.look(crop)
        drawn = self._drawn
        if drawn is not None and drawn[0] == look:
            return drawn[1]
        lines = super().render_lines(crop)
        self._drawn = (look, lines)
        return lines


class SteadyScrollbars(_Scrolling):
    """Mixed into a scrolling widget (before its Textual base): its scrollbars are
    :class:`SteadyScrollBar`.

    Textual makes a widget's bars in two properties of :class:`~textual.widget.Widget`;
    these make them the same way (hidden until the layout shows them, started as the
    widget's own), and leave them to Textual when it no longer has the hooks they use."""

    def _steady_bar(self, vertical: bool) -> ScrollBar | None:
        """The widget's bar, made on first use; None when Textual lacks the hooks."""
        start = getattr(self.app, "_start_widget", None)
        attribute = "_vertical_scrollbar" if vertical else "_horizontal_scrollbar"
        if start is None or attribute not in vars(self):
            return None
        bar: ScrollBar | None = getattr(self, attribute)
        if bar is None:
            name = "vertical" if vertical else "horizontal"
            size = self.scrollbar_size_vertical if vertical else self.scrollbar_size_horizontal
            bar = SteadyScrollBar(vertical=vertical, name=name, thickness=size)
            setattr(self, attribute, bar)
            bar.display = False
            start(self, bar)
        return bar

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return self._steady_bar(True) or super().vertical_scrollbar

    @property
    def horizontal_scrollbar(self) -> ScrollBar:
        return self._steady_bar(False) or super().horizontal_scrollbar


__all__ = ["SteadyScrollBar", "SteadyScrollbars"]
