"""What the explorer draws again for a key: its scrollbars only when what they show changes
(and always what Textual's own bars would show), and its bare containers never line by line.
That the screen still adds up to a full render after each key is ``test_paints``'s."""

from __future__ import annotations

from typing import Any

import pytest
from textual._styles_cache import StylesCache
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from octui.tui.widgets.detail import DetailPane
from octui.tui.widgets.results import ExcludedPane, IncludedTable
from octui.tui.widgets.rowtable import RowTable
from octui.tui.widgets.scrollbars import SteadyScrollBar
from octui.tui.widgets.timeline import TimelinePane

from .conftest import make_app, settle


def _drawn_by_textual(bar: ScrollBar) -> list[Strip]:
    """What Textual's own bar draws in ``bar``'s place, now."""
    return ScrollBar.render_lines(bar, Region(0, 0, *bar.size))


def _drawn(bar: ScrollBar) -> list[Strip]:
    return bar.render_lines(Region(0, 0, *bar.size))


async def test_the_scrolling_panes_have_steady_bars() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for kind in (IncludedTable, DetailPane, TimelinePane):
            pane = app.main.query_one(kind)
            assert type(pane.vertical_scrollbar) is SteadyScrollBar, kind
            assert type(pane.horizontal_scrollbar) is SteadyScrollBar, kind
            assert pane.vertical_scrollbar.parent is pane


async def test_a_restyle_that_changes_nothing_draws_no_bar_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn: list[ScrollBar] = []
    asked: list[ScrollBar] = []
    original = ScrollBar.render_lines
    steady = SteadyScrollBar.render_lines

    def counted(self: ScrollBar, crop: Region) -> Any:
        drawn.append(self)
        return original(self, crop)

    def asking(self: SteadyScrollBar, crop: Region) -> Any:
        asked.append(self)
        return steady(self, crop)

    monkeypatch.setattr(ScrollBar, "render_lines", counted)
    monkeypatch.setattr(SteadyScrollBar, "render_lines", asking)
    app = make_app(role="support")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.main.query_one(IncludedTable)
        assert table.show_vertical_scrollbar  # more rows than fit: the bar is on screen
        bar = table.vertical_scrollbar
        app.update_styles(table)  # the first gives the bar its own rules: a change
        await pilot.pause()
        drawn.clear()
        asked.clear()
        for _ in range(3):
            app.update_styles(table)  # what a focus change or a class toggle does
            await pilot.pause()
        assert bar in asked  # Textual repainted the bar...
        assert bar not in drawn  # ...and it was not drawn again


async def test_a_steady_bar_shows_what_textual_would(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(role="support")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.main.query_one(IncludedTable)
        bar = table.vertical_scrollbar
        assert table.show_vertical_scrollbar
        top = _drawn(bar)
        assert top == _drawn_by_textual(bar)

        await pilot.press("end")  # the thumb moves down
        await settle(pilot)
        bottom = _drawn(bar)
        assert bottom != top
        assert bottom == _drawn_by_textual(bar)

        await pilot.press("2")  # the table loses the focus (its tint, so its bar's colours)
        await settle(pilot)
        assert _drawn(bar) == _drawn_by_textual(bar)

        app.theme = "textual-light"  # every colour changes
        await settle(pilot)
        light = _drawn(bar)
        assert light != bottom
        assert light == _drawn_by_textual(bar)

        excluded = app.main.query_one("#excluded-table", RowTable)
        assert _drawn(excluded.vertical_scrollbar) == _drawn_by_textual(excluded.vertical_scrollbar)


async def test_a_tab_key_draws_no_bare_container_line_by_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The results' tabs and the excluded pane have no border and no content of their own:
    Textual's styled line drawing is skipped for them (``BLANK``)."""
    drawn: list[Widget] = []
    original = StylesCache.render_widget

    def counted(self: StylesCache, widget: Widget, crop: Region) -> Any:
        drawn.append(widget)
        return original(self, widget, crop)

    monkeypatch.setattr(StylesCache, "render_widget", counted)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        drawn.clear()
        for key in ("2", "down", "3", "1", "down"):
            await pilot.press(key)
            await settle(pilot)
        bare = (TabbedContent, TabPane, ExcludedPane)
        assert drawn  # the keys were drawn...
        assert not [w for w in drawn if isinstance(w, bare)]  # ...not those containers


async def test_a_bar_follows_the_text_style_its_table_passes_down() -> None:
    """A bar's lines take the colour and text style of its ancestors: a class that reverses
    the table's text must reach its bar, though nothing the bar reads of itself changed."""
    app = make_app(role="support")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.stylesheet.add_source(
            "Screen.-reversed IncludedTable { text-style: reverse; }", read_from=("test", "")
        )
        app.stylesheet.reparse()
        app.refresh_css()
        await settle(pilot)
        table = app.main.query_one(IncludedTable)
        bar = table.vertical_scrollbar
        before = _drawn(bar)
        app.screen.add_class("-reversed")
        table.refresh(layout=True)  # a layout: Textual repaints the table's bars
        await settle(pilot)
        reversed_ = _drawn(bar)
        assert reversed_ == _drawn_by_textual(bar)
        assert reversed_ != before


async def test_the_detail_pane_turns_grey_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    """With NO_COLOR, Textual greys every line through the app's line filters; the detail
    pane's own cells (its padding, the space below its boxes) are grey too."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        app.theme = "nord"  # a background that is not grey to begin with
        await settle(pilot)
        pane = app.main.query_one(DetailPane)
        colours = [
            segment.style.bgcolor.get_truecolor()
            for line in pane.render_lines(Region(0, 0, *pane.size))
            for segment in line
            if segment.style is not None and segment.style.bgcolor is not None
        ]
        assert colours
        assert all(c.red == c.green == c.blue for c in colours), set(colours)
