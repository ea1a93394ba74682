"""The selection follows every new view at once: the detail pane shows the new view's row
when the view is applied (not at a later refresh), whatever key asked for it, the role
list included."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from octui.tui.state import View
from octui.tui.widgets.detail import DetailPane
from octui.tui.widgets.inputs import RoleSelect

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


async def test_a_role_picked_from_the_list_is_shown_in_the_paint_that_closes_the_list() -> None:
    """The new role's tables are applied while the list is still open (its view made
    before, as the prefetch makes it), so the one paint that closes the list shows them:
    ``Select.Changed`` arrived only after that paint, and the tables a frame later."""
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        select = app.main.query_one("#role", RoleSelect)
        roles = [value for _, value in select._options if isinstance(value, str)]
        picked = roles[roles.index("support") + 1]
        query = app.inputs.query(app.clock())
        session = app.session
        app.views.view(session, replace(query, role=picked), 0)  # as the prefetch would
        shown_when_closed: list[str | None] = []
        closed = select._watch_expanded

        def watch_expanded(expanded: bool) -> None:
            if not expanded:
                shown_when_closed.append(app.view.query.role if app.view else None)
            closed(expanded)

        select._watch_expanded = watch_expanded  # type: ignore[method-assign]
        await pilot.press("r", "down", "enter")
        await settle(pilot)
        assert shown_when_closed[-1:] == [picked]
        assert app.view is not None and app.view.query.role == picked
        assert app.focused is not None and app.focused.id != "role"  # back to the table
