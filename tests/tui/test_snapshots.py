"""Snapshot tests of the key screens at 80×24, 120×40 and 160×50 (fixed as_of, no cursor blink).

Update after an intended change with ``pytest -n 0 tests/tui --snapshot-update`` and look
at the SVGs in ``tests/tui/__snapshots__/`` before committing them (serially: under
pytest-xdist syrupy writes the new snapshots but does not delete the ones no test uses).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from octui.tui.app import OctuiApp
from octui.tui.screens.error import ErrorScreen
from octui.tui.screens.help import HelpScreen

from .conftest import FIXTURES, make_app, settle

SIZES = [
    pytest.param((80, 24), id="80x24"),
    pytest.param((120, 40), id="120x40"),
    pytest.param((160, 50), id="160x50"),
]


def app_for_support() -> OctuiApp:
    return make_app(role="support", task="refund")


@pytest.mark.parametrize("size", SIZES)
def test_main_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)

    assert snap_compare(app_for_support(), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES)
def test_help_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(pilot.app.screen, HelpScreen)

    assert snap_compare(app_for_support(), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES)
def test_timeline(snap_compare: Any, size: tuple[int, int]) -> None:
    """The lineage of policies.refunds as it stood in March (v1 active, v2 not yet)."""

    async def before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, OctuiApp)
        await settle(pilot)
        await pilot.press("a", "ctrl+a", "ctrl+k", *"2026-03-15", "enter")
        await settle(pilot)
        app.action_jump("policies.refunds")
        if app.narrow:
            await pilot.press("d")
        await pilot.pause()

    assert snap_compare(app_for_support(), terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES)
def test_error_screen(snap_compare: Any, size: tuple[int, int], monkeypatch: Any) -> None:
    monkeypatch.chdir(FIXTURES.parent)  # the screen names the file: keep the path relative
    app = make_app(Path("fixtures") / "bad-config")

    async def before(pilot: Pilot[Any]) -> None:
        for _ in range(50):
            if isinstance(pilot.app.screen, ErrorScreen):
                break
            await pilot.pause(0.05)
        await pilot.pause()
        assert isinstance(pilot.app.screen, ErrorScreen)

    assert snap_compare(app, terminal_size=size, run_before=before)


async def _audit_ready(pilot: Pilot[Any]) -> None:
    from octui.tui.screens.audit import AuditScreen
    from octui.tui.widgets.audittables import MatrixTable

    app = pilot.app
    for _ in range(200):
        screen = app.screen
        if isinstance(screen, AuditScreen) and screen.audit and screen.query(MatrixTable):
            break
        await pilot.pause(0.05)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_audit_findings(snap_compare: Any, size: tuple[int, int]) -> None:
    """``octui --audit``: the duplicate-canonical of pricing.team, its files, roles and the
    other findings on the same objects."""

    async def before(pilot: Pilot[Any]) -> None:
        from octui.tui.widgets.audittables import FindingsTable

        await _audit_ready(pilot)
        table = pilot.app.screen.query_one(FindingsTable)
        table.move_to(
            next(i for i, f in enumerate(table.rows) if f.finding.ids == ("pricing.team",))
        )
        await pilot.pause()

    app = make_app(role="support", audit=True)
    assert snap_compare(app, terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES)
def test_audit_matrix(snap_compare: Any, size: tuple[int, int]) -> None:
    """The objects × roles matrix, only the objects whose fate differs between roles."""

    async def before(pilot: Pilot[Any]) -> None:
        await _audit_ready(pilot)
        await pilot.press("2", "t")
        await pilot.pause()

    app = make_app(role="support", audit=True)
    assert snap_compare(app, terminal_size=size, run_before=before)


def _snapshot_names() -> set[str]:
    """The snapshot file names (without ``.svg``) the tests in this module write."""
    names: set[str] = set()
    for name, test in list(globals().items()):
        if not name.startswith("test_") or "snap_compare" not in inspect.signature(test).parameters:
            continue
        marks = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
        ids = [param.id for mark in marks for param in mark.args[1]]
        names |= {f"{name}[{i}]" for i in ids} if ids else {name}
    return names


def test_every_stored_snapshot_belongs_to_a_test() -> None:
    """syrupy fails a serial run on a snapshot no test uses, but skips that check under
    pytest-xdist (its workers do not pool what they used); this holds in any run."""
    stored = {
        p.stem
        for p in (Path(__file__).parent / "__snapshots__" / Path(__file__).stem).glob("*.svg")
    }
    assert stored and stored == _snapshot_names()
