"""Shared helpers for the explorer's tests: a fixed instant, a copy of the sample repository."""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from octui.core.timeutil import parse_instant
from octui.tui.app import OctuiApp, create_app
from octui.tui.widgets.rowtable import RowTable

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample-repo"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
AS_OF = parse_instant("2026-11-30")


def make_app(root: Path | str = SAMPLE, **options: Any) -> OctuiApp:
    options.setdefault("as_of", AS_OF)
    options.setdefault("watch", False)
    options.setdefault("cursor_blink", False)
    options.setdefault("cache", False)
    return create_app(root, **options)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until the newest resolution is on screen and the UI has caught up."""
    app = pilot.app
    assert isinstance(app, OctuiApp)
    for _ in range(3):
        await pilot.pause()
        await app.wait_settled()
    await pilot.pause()


async def wait_for(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll ``condition`` while the app runs (for disk watching)."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.05)


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    target = tmp_path / "repo"
    shutil.copytree(SAMPLE, target)
    return target


Before = Callable[[Pilot[Any]], Awaitable[None]]


def table_lines(table: RowTable) -> list[str]:
    """The text of each line of ``table``'s visible region, as it is painted."""
    height = table.scrollable_content_region.height
    return ["".join(seg.text for seg in table.render_line(y)) for y in range(height)]


def screen_text(app: OctuiApp) -> str:
    """The visible screen as plain text lines (from the SVG screenshot)."""
    import html
    import re

    svg = app.export_screenshot()
    rows: dict[float, dict[int, str]] = {}
    pattern = r'<text class="[^"]*-r\d+" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>'
    for m in re.finditer(pattern, svg, re.S):
        column = round(float(m.group(1)) / 12.2)
        body = html.unescape(m.group(3)).replace("\xa0", " ")
        row = rows.setdefault(float(m.group(2)), {})
        for i, ch in enumerate(body):
            row[column + i] = ch
    out = []
    for _, row in sorted(rows.items()):
        width = max(row) + 1 if row else 0
        out.append("".join(row.get(i, " ") for i in range(width)).rstrip())
    return "\n".join(out)


def record_layouts(monkeypatch: pytest.MonkeyPatch, widget: Widget) -> list[bool]:
    """The ``layout`` flag of every refresh ``widget`` asks for from now on, in order."""
    layouts: list[bool] = []
    refresh = widget.refresh

    def recorded(*args: Any, layout: bool = False, **kwargs: Any) -> Any:
        layouts.append(layout)
        return refresh(*args, layout=layout, **kwargs)

    monkeypatch.setattr(widget, "refresh", recorded)
    return layouts
