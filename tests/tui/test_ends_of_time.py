"""The explorer at the ends of representable time: opening on an object valid until
9999-12-31, stepping as_of past 0001-01-01 or 9999-12-31 with the day, month and change
keys. It never hangs (each scenario runs in its own process, killed after a deadline) and
never crashes: it says "the end of representable time" and keeps as_of where it was.

Run one scenario by hand: ``PYTHONPATH=tests python tests/tui/test_ends_of_time.py NAME DIR``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui.isolated import main, registry, run_scenario, settle, spy_notifications, until

SCENARIOS, scenario = registry()


@pytest.mark.parametrize(
    "name",
    [
        "opens_on_valid_until_9999",
        "as_of_in_december_9999",
        "day_and_month_keys_stop_at_9999_12_31",
        "day_and_month_keys_stop_at_0001_01_01",
        "next_change_to_9999_12_31_then_step",
        "previous_change_at_0001_01_01",
    ],
)
def test_explorer_at_the_ends_of_time(name: str, tmp_path: Path) -> None:
    run_scenario(__file__, name, tmp_path)


# -- the scenarios, run in a child process ---------------------------------------------------


def _app(root: Path, as_of: str) -> Any:
    from octui.core.timeutil import parse_instant
    from octui.tui.app import create_app

    app: Any = create_app(  # Any: it carries the spy's list as app.messages
        root,
        role="reader",
        as_of=parse_instant(as_of),
        watch=False,
        cursor_blink=False,
        cache=False,
    )
    app.messages = spy_notifications(app)
    return app


def _repo(root: Path, **fields: str) -> Path:
    from repo_builder import make_repo, obj

    return make_repo(root / "repo", {"a.md": obj("a", **fields), "b.md": obj("b")})


def _as_of(app: Any) -> str:
    from octui.core.timeutil import format_instant

    return format_instant(app.inputs.as_of)


def _said_end(app: Any) -> bool:
    return any("end of representable time" in m for m in app.messages)


async def _timeline(pilot: Any) -> str:
    """The drawn timeline of the selected included object ("a" sorts first)."""
    from octui.tui.widgets.timeline import TimelinePane

    app = pilot.app
    await pilot.press("1")
    await settle(pilot)
    pane = app.query_one(TimelinePane)
    await until(pilot, lambda: pane.timeline is not None)
    return f"{pane.object_id}: " + "\n".join(line.text for line in pane.timeline.lines)


@scenario
async def opens_on_valid_until_9999(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="9999-12-31"), "2026-06-01")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert (await _timeline(pilot)).startswith("a: ")


@scenario
async def as_of_in_december_9999(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="9999-12-31"), "9999-12-15")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        drawn = await _timeline(pilot)
        assert drawn.startswith("a: ") and "as_of 9999-12-15" in drawn
        app.set_as_of(None)  # and back and forth, redrawing each time
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert _as_of(app) == "9999-12-15T00:00:00Z"


@scenario
async def day_and_month_keys_stop_at_9999_12_31(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="9999-12-31"), "9999-12-30")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert _as_of(app) == "9999-12-31T00:00:00Z" and not _said_end(app)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert _said_end(app)
        assert _as_of(app) == "9999-12-31T00:00:00Z"
        app.messages.clear()
        await pilot.press("right_curly_bracket")
        await settle(pilot)
        assert _said_end(app) and _as_of(app) == "9999-12-31T00:00:00Z"
        await pilot.press("left_curly_bracket")  # still alive and stepping
        await settle(pilot)
        assert _as_of(app) == "9999-11-30T00:00:00Z"
        drawn = await _timeline(pilot)
        assert "as_of 9999-11-30" in drawn, drawn


@scenario
async def day_and_month_keys_stop_at_0001_01_01(tmp: Path) -> None:
    app = _app(_repo(tmp, created="0001-01-01"), "0001-01-02")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert _as_of(app) == "0001-01-01T00:00:00Z" and not _said_end(app)
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert _said_end(app) and _as_of(app) == "0001-01-01T00:00:00Z"
        app.messages.clear()
        await pilot.press("left_curly_bracket")
        await settle(pilot)
        assert _said_end(app) and _as_of(app) == "0001-01-01T00:00:00Z"
        await pilot.press("right_curly_bracket")
        await settle(pilot)
        assert _as_of(app) == "0001-02-01T00:00:00Z"
        assert (await _timeline(pilot)).startswith("a: ")


@scenario
async def next_change_to_9999_12_31_then_step(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="9999-12-31"), "2026-06-01")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("full_stop")
        await until(pilot, lambda: _as_of(app) == "9999-12-31T00:00:00Z")
        await settle(pilot)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert _said_end(app) and _as_of(app) == "9999-12-31T00:00:00Z"
        assert (await _timeline(pilot)).startswith("b: ")


@scenario
async def previous_change_at_0001_01_01(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="2026-01-01"), "0001-01-01")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("comma")
        await until(pilot, lambda: _said_end(app))
        assert _as_of(app) == "0001-01-01T00:00:00Z"
        await pilot.press("full_stop")  # the later change is still found
        await until(pilot, lambda: _as_of(app) == "2026-01-01T00:00:00Z")


if __name__ == "__main__":
    main(SCENARIOS)
