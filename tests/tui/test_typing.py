"""Typing is never scrambled: what the user types is what the field holds.

Keys arrive as a terminal delivers them — at 30+ keys a second, whether or not the app
has caught up — while resolutions land (a short debounce and a resolver slowed by a
random few milliseconds make them land mid-word), and right after ``]`` moves as_of.
Every round checks that the field equals the typed text and that the tables show the
resolution of the final text.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from octui.core.timeutil import format_day
from octui.tui.app import OctuiApp
from octui.tui.state import View

from .conftest import make_app, settle

ROUNDS = 52
"""Typed strings per test (half task, half as_of after ``]``)."""
TASKS = [
    "refund invoice escalation",
    "invoice refund for a customer",
    "outage credit request",
    "disclose the ai assistant",
]
KEY_NAMES = {" ": "space", "-": "minus", "]": "right_square_bracket", "/": "slash", "\n": "enter"}


async def keystrokes(app: OctuiApp, text: str, rng: random.Random) -> None:
    """Deliver ``text`` as a terminal would: one key every 5–30 ms (~55 keys/s on average),
    never waiting for the app to process the previous one."""
    driver = app._driver
    assert driver is not None
    for ch in text:
        event = events.Key(KEY_NAMES.get(ch, ch), ch)
        event.set_sender(app)
        driver.send_message(event)
        await asyncio.sleep(rng.uniform(0.005, 0.03))


def slow_resolver(app: OctuiApp, rng: random.Random) -> None:
    """Resolutions take a random few milliseconds more, so they land while keys arrive."""
    resolve = app.session.resolve

    def slowly(query: Any) -> Any:
        time.sleep(rng.uniform(0.002, 0.03))
        return resolve(query)

    app.session.resolve = slowly  # type: ignore[method-assign]


def count_landings(app: OctuiApp, typing: list[bool], landed: list[int]) -> None:
    apply_view = app.apply_view

    def counted(view: View) -> bool:
        shown = apply_view(view)
        if shown and typing[0]:
            landed[0] += 1
        return shown

    app.apply_view = counted  # type: ignore[method-assign]


async def test_fast_typing_while_resolutions_land_is_never_scrambled() -> None:
    rng = random.Random(20260315)
    app = make_app(role="support", debounce=0.01)
    typing, landed = [False], [0]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        slow_resolver(app, random.Random(7))
        count_landings(app, typing, landed)
        task = app.query_one("#task", Input)
        as_of = app.query_one("#as-of", Input)
        wrong: list[tuple[str, str]] = []
        for round_ in range(ROUNDS):
            typing[0] = True
            if round_ % 2 == 0:
                text = rng.choice(TASKS)
                # "t" focuses the task field (its text selected), the task replaces it,
                # Enter goes back to the results.
                await keystrokes(app, "t" + text + "\n", rng)
                field, want = task, text
            else:
                day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                # "]" moves as_of a day, "a" focuses as_of, the date replaces its text.
                await keystrokes(app, "]a" + day + "\n", rng)
                field, want = as_of, day
            typing[0] = False
            await _wait_resolved(pilot)
            if field.value != want:
                wrong.append((want, field.value))
                continue
            view = app.view
            assert view is not None
            if field is task:
                assert app.inputs.task == want and view.query.task == want
            else:
                assert app.inputs.as_of is not None and format_day(app.inputs.as_of) == want
                assert format_day(view.query.as_of) == want
        assert not wrong, wrong
        assert landed[0] >= ROUNDS // 4  # resolutions did land while keys were arriving


async def _wait_resolved(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, OctuiApp)
    await pilot.pause(0.05)  # the last keys reach their field
    await settle(pilot)
