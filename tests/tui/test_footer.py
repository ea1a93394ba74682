"""The explorer's footer rebuilds its keys only when the keys it shows change."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Footer

from octui.tui.app import OctuiApp
from octui.tui.widgets import footer
from octui.tui.widgets.footer import SteadyFooter

from .conftest import make_app, screen_text, settle, wait_for


async def test_moving_between_the_tables_does_not_rebuild_the_footer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rebuilt: list[object] = []
    original = Footer.recompose

    async def counted(self: Footer) -> Any:
        rebuilt.append(self)
        return await original(self)

    monkeypatch.setattr(Footer, "recompose", counted)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        steady = app.main.query_one(SteadyFooter)
        before = screen_text(app).splitlines()[-1]
        rebuilt.clear()
        for key in ("2", "3", "1", "2", "1"):
            await pilot.press(key)
            await settle(pilot)
        assert rebuilt == []
        assert screen_text(app).splitlines()[-1] == before
        assert steady.composed is not None


async def test_the_footer_still_follows_keys_that_change() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        wide = screen_text(app).splitlines()[-1]
        assert "palette" in wide
        await pilot.resize_terminal(100, 40)  # narrow: no palette key
        await settle(pilot)
        narrow = screen_text(app).splitlines()[-1]
        assert "palette" not in narrow and narrow != wide


async def test_a_picked_role_is_shown_before_the_footer_follows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Closing the role list moves the focus twice; the footer rebuilds after the new role's
    tables are drawn (once its keys stay put), and ends with the table's keys again."""
    seen: list[tuple[str | None, bool]] = []
    original = Footer.recompose

    async def recorded(self: Footer) -> Any:
        app = self.app
        assert isinstance(app, OctuiApp)
        view = app.view
        seen.append((view.query.role if view else None, app.applied_generation == app.generation))
        return await original(self)

    monkeypatch.setattr(Footer, "recompose", recorded)
    monkeypatch.setattr(footer, "FOLLOW_DELAY", 1.0)
    app = make_app(role="support", debounce=0.0)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        table_keys = screen_text(app).splitlines()[-1]
        await pilot.press("r")
        await wait_for(pilot, lambda: "Dismiss" in screen_text(app).splitlines()[-1])
        seen.clear()
        await pilot.press("down", "enter")
        await settle(pilot)
        role = app.view.query.role if app.view else None
        assert role != "support"
        assert seen == []  # not before the new role's tables
        await wait_for(pilot, lambda: screen_text(app).splitlines()[-1] == table_keys)
        assert seen == [(role, True)]  # once, after them
