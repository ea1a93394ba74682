"""The explorer at the ends of representable time: opening on an object valid until
9999-12-31, stepping as_of past 0001-01-01 or 9999-12-31 with the day, month and change
keys. It never hangs (each scenario runs in its own process, killed after a deadline) and
never crashes: it says "the end of representable time" and keeps as_of where it was.

Run one scenario by hand: ``PYTHONPATH=tests python tests/tui/test_ends_of_time.py NAME``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve()
TESTS = HERE.parents[1]
DEADLINE = 30  # seconds per scenario; each takes about two


def run_scenario(name: str, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    try:
        done = subprocess.run(
            [sys.executable, str(HERE), name, str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=DEADLINE,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the explorer hung: {name} did not finish in {DEADLINE} s")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "scenario passed" in done.stdout


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
    run_scenario(name, tmp_path)


# -- the scenarios, run in a child process ---------------------------------------------------

SCENARIOS: dict[str, Callable[[Path], Awaitable[None]]] = {}


def scenario(fn: Callable[[Path], Awaitable[None]]) -> Callable[[Path], Awaitable[None]]:
    SCENARIOS[fn.__name__] = fn
    return fn


def _app(root: Path, as_of: str) -> Any:
    from octui.timeutil import parse_instant
    from octui.tui.app import create_app

    app = create_app(
        root,
        role="reader",
        as_of=parse_instant(as_of),
        watch=False,
        cursor_blink=False,
        cache=False,
    )
    app.messages = []
    notify = app.notify

    def spy(message: str, *args: Any, **kwargs: Any) -> None:
        app.messages.append(str(message))
        notify(message, *args, **kwargs)

    app.notify = spy
    return app


def _repo(root: Path, **fields: str) -> Path:
    from repo_builder import make_repo, obj

    return make_repo(root / "repo", {"a.md": obj("a", **fields), "b.md": obj("b")})


async def _settle(pilot: Any) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.wait_settled()
    await pilot.pause()


async def _until(pilot: Any, condition: Callable[[], bool], timeout: float = 20) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await pilot.pause(0.05)


def _as_of(app: Any) -> str:
    from octui.timeutil import format_instant

    return format_instant(app.inputs.as_of)


def _said_end(app: Any) -> bool:
    return any("end of representable time" in m for m in app.messages)


async def _timeline(pilot: Any) -> str:
    """The drawn timeline of the selected included object ("a" sorts first)."""
    from octui.tui.widgets.timeline import TimelinePane

    app = pilot.app
    await pilot.press("1")
    await _settle(pilot)
    pane = app.query_one(TimelinePane)
    await _until(pilot, lambda: pane.timeline is not None)
    return f"{pane.object_id}: " + "\n".join(line.text for line in pane.timeline.lines)


@scenario
async def opens_on_valid_until_9999(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="9999-12-31"), "2026-06-01")
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(pilot)
        assert (await _timeline(pilot)).startswith("a: ")


@scenario
async def as_of_in_december_9999(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="9999-12-31"), "9999-12-15")
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(pilot)
        drawn = await _timeline(pilot)
        assert drawn.startswith("a: ") and "as_of 9999-12-15" in drawn
        app.set_as_of(None)  # and back and forth, redrawing each time
        await _settle(pilot)
        await pilot.press("n")
        await _settle(pilot)
        assert _as_of(app) == "9999-12-15T00:00:00Z"


@scenario
async def day_and_month_keys_stop_at_9999_12_31(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="9999-12-31"), "9999-12-30")
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(pilot)
        await pilot.press("right_square_bracket")
        await _settle(pilot)
        assert _as_of(app) == "9999-12-31T00:00:00Z" and not _said_end(app)
        await pilot.press("right_square_bracket")
        await _settle(pilot)
        assert _said_end(app)
        assert _as_of(app) == "9999-12-31T00:00:00Z"
        app.messages.clear()
        await pilot.press("right_curly_bracket")
        await _settle(pilot)
        assert _said_end(app) and _as_of(app) == "9999-12-31T00:00:00Z"
        await pilot.press("left_curly_bracket")  # still alive and stepping
        await _settle(pilot)
        assert _as_of(app) == "9999-11-30T00:00:00Z"
        drawn = await _timeline(pilot)
        assert "as_of 9999-11-30" in drawn, drawn


@scenario
async def day_and_month_keys_stop_at_0001_01_01(tmp: Path) -> None:
    app = _app(_repo(tmp, created="0001-01-01"), "0001-01-02")
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(pilot)
        await pilot.press("left_square_bracket")
        await _settle(pilot)
        assert _as_of(app) == "0001-01-01T00:00:00Z" and not _said_end(app)
        await pilot.press("left_square_bracket")
        await _settle(pilot)
        assert _said_end(app) and _as_of(app) == "0001-01-01T00:00:00Z"
        app.messages.clear()
        await pilot.press("left_curly_bracket")
        await _settle(pilot)
        assert _said_end(app) and _as_of(app) == "0001-01-01T00:00:00Z"
        await pilot.press("right_curly_bracket")
        await _settle(pilot)
        assert _as_of(app) == "0001-02-01T00:00:00Z"
        assert (await _timeline(pilot)).startswith("a: ")


@scenario
async def next_change_to_9999_12_31_then_step(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="9999-12-31"), "2026-06-01")
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(pilot)
        await pilot.press("full_stop")
        await _until(pilot, lambda: _as_of(app) == "9999-12-31T00:00:00Z")
        await _settle(pilot)
        await pilot.press("right_square_bracket")
        await _settle(pilot)
        assert _said_end(app) and _as_of(app) == "9999-12-31T00:00:00Z"
        assert (await _timeline(pilot)).startswith("b: ")


@scenario
async def previous_change_at_0001_01_01(tmp: Path) -> None:
    app = _app(_repo(tmp, valid_until="2026-01-01"), "0001-01-01")
    async with app.run_test(size=(120, 40)) as pilot:
        await _settle(pilot)
        await pilot.press("comma")
        await _until(pilot, lambda: _said_end(app))
        assert _as_of(app) == "0001-01-01T00:00:00Z"
        await pilot.press("full_stop")  # the later change is still found
        await _until(pilot, lambda: _as_of(app) == "2026-01-01T00:00:00Z")


if __name__ == "__main__":
    asyncio.run(SCENARIOS[sys.argv[1]](Path(sys.argv[2])))
    print("scenario passed")
