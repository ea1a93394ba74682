"""The selection follows every new view at once: the detail pane shows the new view's row
when the view is applied (not at a later refresh), whatever key asked for it, the role
list included."""

from __future__ import annotations

import asyncio

from octui.tui.state import View
from octui.tui.widgets.detail import DetailPane

from .conftest import make_app, settle


async def test_a_view_applied_shows_its_row_in_the_detail_pane_at_once() -> None:
    app = make_app(role="support")
    seen: list[bool] = []
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        apply = app.apply_view

        def applied(view: View) -> bool:
            shown = apply(view)
            if shown:
                detail = app.main.query_one(DetailPane)
                seen.append(any(detail.item is row for row in view.included))
            return shown

        app.apply_view = applied  # type: ignore[method-assign]
        await pilot.press("r", "down", "enter")
        await settle(pilot)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert seen == [True, True]


async def test_a_role_picked_from_the_list_selects_the_new_views_row() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        await pilot.press("r", "down", "enter")
        await app.settled.wait()
        await asyncio.sleep(0.5)  # no key, no pilot refresh: the app alone
        view = app.view
        assert view is not None and view.query.role != "support"
        detail = app.main.query_one(DetailPane)
        assert app.selected is not None and detail.item is app.selected
        assert any(app.selected is row for row in view.included)


async def test_a_tab_key_shows_the_tabs_row_in_the_detail_pane_at_once() -> None:
    """Not a frame later, when the tab's own message arrives: one layout and one paint
    show the tab and its row together."""
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        detail = app.main.query_one(DetailPane)
        for pane in ("tab-excluded", "tab-warnings", "tab-included"):
            app.action_show_tab(pane)  # no pause: the message loop has not run
            table = app.active_table()
            assert table is not None and table.current_row is not None
            assert app.selected is table.current_row and detail.item is table.current_row
            await settle(pilot)
            assert app.selected is table.current_row  # the tab's message changed nothing
