"""A new view rebuilds only what changed: the reason filter's options and the counts
beside it stay when the counts are the same, and the detail pane finds an included
row's rank in the table's index."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Select

from octui.tui.widgets.detail import included_rank
from octui.tui.widgets.results import ExcludedPane

from .conftest import make_app, settle


async def test_the_reason_filter_is_rebuilt_only_when_its_options_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rebuilt: list[Any] = []
    original = Select.set_options

    def counted(self: Select[Any], options: Any) -> Any:
        if self.id == "reason-filter":
            rebuilt.append(list(options))
        return original(self, options)

    monkeypatch.setattr(Select, "set_options", counted)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        pane = app.main.query_one(ExcludedPane)
        shown = list(pane.options)
        rebuilt.clear()
        await pilot.press("t", "x")  # a task: the same exclusions, re-ranked
        await settle(pilot)
        assert app.view is not None and app.view.query.task == "x"
        assert rebuilt == [] and pane.options == shown
        app.set_role("sales")  # other exclusions: other counts
        await settle(pilot)
        assert rebuilt == [pane.options] and pane.options != shown


async def test_an_included_rows_rank_is_its_place_in_the_bundle() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        view = app.view
        assert view is not None and view.included_rows is not None
        for place, inc in enumerate(view.included, 1):
            assert included_rank(view, inc) == place


async def test_a_new_view_of_the_object_on_show_draws_its_fields_only_once() -> None:
    from textual.widgets import Static

    from octui.tui.widgets.detail import DetailPane

    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        detail = app.main.query_one(DetailPane)
        fields = detail.query_one("#fields", Static)
        shown, rows = app.selected, list(detail.field_rows)
        assert rows  # an object's fields are on show
        drawn: list[object] = []
        original = fields.update

        def counted(*args: Any, **kwargs: Any) -> None:
            drawn.append(args)
            original(*args, **kwargs)

        fields.update = counted  # type: ignore[method-assign]
        await pilot.press("right_square_bracket")  # a day on: the same row, a new view
        await settle(pilot)
        assert app.view is not None and app.selected is not shown  # the new view's row
        assert detail.field_rows == rows and drawn == []  # the same fields, not drawn again
        await pilot.press("down")  # another object: its own fields
        await settle(pilot)
        assert detail.field_rows != rows and len(drawn) == 1
