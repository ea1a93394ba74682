"""FieldInput: a typed character repaints the field, never lays out the screen, and a text
wider than the field still scrolls to keep the cursor in sight."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input

from octui.tui.widgets.inputs import FieldInput

from .conftest import make_app, record_layouts, settle


class OneField(App[None]):
    CSS = "#field { width: 20; }"

    def compose(self) -> ComposeResult:
        yield FieldInput(compact=True, id="field")


async def test_typing_asks_for_no_layout_and_a_long_text_scrolls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = OneField()
    async with app.run_test(size=(40, 5)) as pilot:
        field = app.query_one("#field", Input)
        field.focus()
        await pilot.pause()
        layouts = record_layouts(monkeypatch, field)
        text = "refund policy for enterprise customers"
        await pilot.press(*[ch if ch != " " else "space" for ch in text])
        await pilot.pause()
        assert field.value == text
        assert layouts and not any(layouts)
        assert field.virtual_size.width == len(text) + 1  # the cursor's cell after the text
        assert field.scroll_x == field.virtual_size.width - field.content_region.width > 0


async def test_the_explorer_s_text_fields_are_field_inputs() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for selector in ("#task", "#as-of", "#limit", "#min-relevance", "#table-filter"):
            assert isinstance(app.main.query_one(selector), FieldInput), selector
