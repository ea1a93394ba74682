"""The explorer's footer rebuilds its keys only when the keys it shows change."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Footer

from octui.tui.widgets.footer import SteadyFooter

from .conftest import make_app, screen_text, settle


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
        footer = app.main.query_one(SteadyFooter)
        before = screen_text(app).splitlines()[-1]
        rebuilt.clear()
        for key in ("2", "3", "1", "2", "1"):
            await pilot.press(key)
            await settle(pilot)
        assert rebuilt == []
        assert screen_text(app).splitlines()[-1] == before
        assert footer.composed is not None


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
