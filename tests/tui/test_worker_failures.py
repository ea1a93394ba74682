"""A worker that fails says so: every feature's background work, through the app's one
``Worker.StateChanged`` handler, as an error notification naming what failed."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App

import octui.tui.features.agenda as agenda_feature
import octui.tui.features.compare as compare_feature
import octui.tui.features.whynot as whynot_feature
import octui.tui.screens.agenda as agenda_screen
from octui.tui.screens.agenda import AgendaScreen

from .conftest import make_app, settle, wait_for


class Boom(RuntimeError):
    """What the patched core raises."""


def boom(*args: Any, **kwargs: Any) -> Any:
    raise Boom("the core broke")


@pytest.fixture
def notes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every notification as (message, severity), captured below the app's literal notify."""
    seen: list[tuple[str, str]] = []
    original = App.notify

    def notify(self: App[Any], message: str, **kw: Any) -> None:
        seen.append((message, kw.get("severity", "information")))
        original(self, message, **kw)

    monkeypatch.setattr(App, "notify", notify)
    return seen


def failed(notes: list[tuple[str, str]], what: str) -> bool:
    return (f"{what} failed: the core broke", "error") in notes


async def test_a_failing_compare_is_reported(
    monkeypatch: pytest.MonkeyPatch, notes: list[tuple[str, str]]
) -> None:
    monkeypatch.setattr(compare_feature, "diff_resolutions", boom)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await wait_for(pilot, lambda: failed(notes, "compare"))
        assert app.is_running and app.feature_set.compare.diff is None


@pytest.mark.parametrize(("key", "what"), [("full_stop", "next"), ("comma", "previous")])
async def test_a_failing_walk_is_reported(
    key: str, what: str, monkeypatch: pytest.MonkeyPatch, notes: list[tuple[str, str]]
) -> None:
    monkeypatch.setattr(agenda_feature, "find_change", boom)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await wait_for(pilot, lambda: failed(notes, f"the walk to the {what} change"))
        assert app.is_running


async def test_a_failing_agenda_is_reported(
    monkeypatch: pytest.MonkeyPatch, notes: list[tuple[str, str]]
) -> None:
    monkeypatch.setattr(agenda_screen, "change_agenda", boom)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await wait_for(pilot, lambda: failed(notes, "the change agenda"))
        assert isinstance(app.screen, AgendaScreen)


async def test_a_failing_why_not_is_reported(
    monkeypatch: pytest.MonkeyPatch, notes: list[tuple[str, str]]
) -> None:
    monkeypatch.setattr(whynot_feature, "why_not", boom)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")  # the Excluded tab: the first excluded row is selected
        await wait_for(pilot, lambda: failed(notes, "why not"))
        assert app.is_running
