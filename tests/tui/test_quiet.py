"""show_text: a Static shows new text with a layout only when its height changes."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from octui.tui.widgets.quiet import show_text

from .conftest import record_layouts


class OneBox(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("one line", id="box")


async def test_show_text_lays_out_only_when_the_height_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = OneBox()
    async with app.run_test(size=(40, 10)) as pilot:
        box = app.query_one("#box", Static)
        layouts = record_layouts(monkeypatch, box)
        show_text(box, "one line")  # what it shows already: nothing at all
        assert layouts == []
        show_text(box, "another line")  # the same height: a repaint, no layout
        await pilot.pause()
        assert layouts and not any(layouts)
        assert str(box.render()) == "another line" and box.size.height == 1
        layouts.clear()
        show_text(box, "a line far too long to fit in forty columns of text")
        await pilot.pause()
        assert any(layouts)  # two lines now: laid out again
        assert box.size.height == 2
        layouts.clear()
        show_text(box, "short")
        await pilot.pause()
        assert any(layouts) and box.size.height == 1
