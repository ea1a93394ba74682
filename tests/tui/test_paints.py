"""What the terminal is sent adds up to the screen: after each key, the updates the app
painted (only what it thought changed) equal a full render of the screen. The explorer
repaints less than Textual would (no whole-screen repaint on a focus change, rows and boxes
repainted without a layout), so a region left stale would show here."""

from __future__ import annotations

from typing import Any, cast

from rich.console import Console
from rich.segment import ControlType

from .conftest import make_app, settle

WIDTH, HEIGHT = 130, 40
Cells = list[list[Any]]


def applied(cells: Cells, console: Console, update: Any) -> None:
    """Write ``update`` into ``cells`` as a terminal would (cursor moves, then text)."""
    x = y = 0
    for segment in console.render(update):
        if segment.control:
            for control in segment.control:
                if control[0] == ControlType.CURSOR_MOVE_TO:
                    x, y = cast(tuple[Any, int, int], control)[1:]
            continue
        if segment.text == "\n":
            continue
        for ch in segment.text:
            if 0 <= y < HEIGHT and 0 <= x < WIDTH:
                cells[y][x] = (ch, segment.style)
            x += 1


async def test_the_updates_sent_add_up_to_the_screen() -> None:
    app = make_app(role="support")
    console = Console(width=WIDTH, height=HEIGHT, force_terminal=True, color_system="truecolor")
    sent: Cells = [[None] * WIDTH for _ in range(HEIGHT)]
    display = app._display

    def recorded(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if renderable is not None:
            applied(sent, console, renderable)

    app._display = recorded  # type: ignore[method-assign]
    keys = ["2", "down", "3", "1", "down", "r", "down", "enter", "t", "r", "escape", "d"]
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
            await pilot.pause(0.3)  # (the footer follows the keys a moment later)
            full: Cells = [[None] * WIDTH for _ in range(HEIGHT)]
            applied(full, console, app.screen._compositor.render_update(full=True))
            stale = [y for y in range(HEIGHT) if full[y] != sent[y]]
            assert stale == [], f"after {key!r}: lines {stale} differ from the screen"
