"""Regenerate ``screenshots/``: SVG (and PNG when ``rsvg-convert`` is installed) of the key
screens over the sample repository, at a fixed ``as_of`` so they are reproducible.

    python -m octui.devtools.screenshots [OUTDIR]        # default: ./screenshots

PNG needs ``rsvg-convert`` and the Fira Code font
(``apt-get install -y librsvg2-bin fonts-firacode``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from octui.core.timeutil import parse_instant
from octui.tui.app import OctuiApp, create_app
from octui.tui.sample import sample_repo

AS_OF = parse_instant("2026-11-30")


class Pilot(Protocol):
    """What the screenshot steps ask of Textual's pilot (typed here, so this tool imports
    no Textual itself)."""

    async def press(self, *keys: str) -> None: ...

    async def pause(self, delay: float | None = None) -> None: ...


Steps = Callable[[OctuiApp, Pilot], Awaitable[None]]


async def _settle(app: OctuiApp, pilot: Pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await app.wait_settled()
    await pilot.pause(0.2)


async def _main(app: OctuiApp, pilot: Pilot) -> None:
    await _settle(app, pilot)
    app.action_jump("policies.refunds")
    await pilot.pause(0.3)


async def _why_excluded(app: OctuiApp, pilot: Pilot) -> None:
    await _settle(app, pilot)
    app.action_jump("policies.refunds-observed")
    await pilot.pause(0.3)


async def _march(app: OctuiApp, pilot: Pilot) -> None:
    await _settle(app, pilot)
    await pilot.press("a", "ctrl+a", "ctrl+k", *"2026-03-15", "enter")
    await _settle(app, pilot)
    app.action_jump("policies.refunds")
    await pilot.pause(0.3)


async def _warnings(app: OctuiApp, pilot: Pilot) -> None:
    await _settle(app, pilot)
    await pilot.press("3")
    await pilot.pause(0.3)


async def _help(app: OctuiApp, pilot: Pilot) -> None:
    await _settle(app, pilot)
    await pilot.press("f1")
    await pilot.pause(0.3)


async def _narrow_detail(app: OctuiApp, pilot: Pilot) -> None:
    await _settle(app, pilot)
    app.action_jump("policies.refunds")
    await pilot.press("d")
    await pilot.pause(0.3)


async def _export(app: OctuiApp, pilot: Pilot) -> None:
    await _settle(app, pilot)
    await pilot.press("x")
    await pilot.pause(0.2)
    field = app.screen.query_one("#export-path")
    field.value = "/home/me/bundles/support-refund.json"  # type: ignore[attr-defined]
    await pilot.pause(0.2)


async def _audit(app: OctuiApp, pilot: Pilot) -> None:
    """``octui --audit``: the duplicate-canonical of pricing.team and what else is on it."""
    from octui.tui.screens.audit import AuditScreen
    from octui.tui.widgets.audittables import FindingsTable, MatrixTable

    for _ in range(200):
        screen = app.screen
        if isinstance(screen, AuditScreen) and screen.audit and screen.query(MatrixTable):
            break
        await pilot.pause(0.05)
    table = app.screen.query_one(FindingsTable)
    table.move_to(next(i for i, f in enumerate(table.rows) if f.finding.ids == ("pricing.team",)))
    await pilot.pause(0.3)


async def _audit_matrix(app: OctuiApp, pilot: Pilot) -> None:
    await _audit(app, pilot)
    await pilot.press("2", "t")
    await pilot.pause(0.3)


async def _error(app: OctuiApp, pilot: Pilot) -> None:
    for _ in range(100):
        if app.error is not None:
            break
        await pilot.pause(0.05)
    await pilot.pause(0.3)


SHOTS: list[tuple[str, tuple[int, int], dict[str, Any], Steps]] = [
    ("main-160x50", (160, 50), {"role": "support", "task": "refund"}, _main),
    ("main-120x40", (120, 40), {"role": "support", "task": "refund"}, _main),
    ("main-80x24", (80, 24), {"role": "support", "task": "refund"}, _settle),
    ("why-excluded-160x50", (160, 50), {"role": "support", "task": "refund"}, _why_excluded),
    ("march-timeline-160x50", (160, 50), {"role": "support"}, _march),
    ("warnings-120x40", (120, 40), {"role": "support"}, _warnings),
    ("detail-80x24", (80, 24), {"role": "support", "task": "refund"}, _narrow_detail),
    ("help-120x40", (120, 40), {"role": "support"}, _help),
    ("export-120x40", (120, 40), {"role": "support", "task": "refund"}, _export),
    ("audit-120x40", (120, 40), {"role": "support", "audit": True}, _audit),
    ("audit-matrix-120x40", (120, 40), {"role": "support", "audit": True}, _audit_matrix),
]


async def shoot(
    root: Path, out: Path, name: str, size: tuple[int, int], options: dict[str, Any], steps: Steps
) -> Path:
    app = create_app(root, as_of=AS_OF, watch=False, cursor_blink=False, cache=False, **options)
    async with app.run_test(size=size) as pilot:
        await steps(app, pilot)
        svg = app.export_screenshot(title=f"octui {name}")
    path = out / f"{name}.svg"
    path.write_text(svg, encoding="utf-8")
    return path


def to_png(svg: Path) -> Path | None:
    """PNG via rsvg-convert; ``xml:space="preserve"`` keeps leading spaces (columns)."""
    tool = shutil.which("rsvg-convert")
    if tool is None:
        return None
    text = svg.read_text(encoding="utf-8")
    text = text.replace(
        '<svg class="rich-terminal"', '<svg xml:space="preserve" class="rich-terminal"', 1
    )
    png = svg.with_suffix(".png")
    with tempfile.NamedTemporaryFile("w", suffix=".svg", delete=False, encoding="utf-8") as tmp:
        tmp.write(text)
    try:
        subprocess.run([tool, "-o", str(png), tmp.name], check=True)
    finally:
        os.unlink(tmp.name)
    return png


async def run(out: Path) -> list[Path]:
    root = sample_repo()
    if root is None:
        raise SystemExit("octui.devtools.screenshots: the sample repository is not installed")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, size, options, steps in SHOTS:
        written.append(await shoot(root, out, name, size, options, steps))
    # the error screen: a copy of the sample repository with a broken configuration
    with tempfile.TemporaryDirectory() as tmp:
        broken = Path(tmp) / "northwind"
        shutil.copytree(root, broken)
        config = broken / "opencontext.yaml"
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace("inferred, historical]", "inferred]", 1), encoding="utf-8")
        here = Path.cwd()
        os.chdir(tmp)
        try:
            written.append(
                await shoot(Path("northwind"), out, "error-120x40", (120, 40), {}, _error)
            )
        finally:
            os.chdir(here)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else Path("screenshots")
    for svg in asyncio.run(run(out.resolve())):
        png = to_png(svg)
        print(svg, "+ png" if png else "(no rsvg-convert: SVG only)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
