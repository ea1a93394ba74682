"""Pilot tests of the explorer's polish: honest status, readable tables, bounded detail,
inert repository text, a clock that moves, a first paint before the first load, and a
discoverable detail on small terminals."""

from __future__ import annotations

from typing import Any

from octui.tui.app import OctuiApp
from octui.tui.widgets.status import StatusBar

from .conftest import make_app, settle


def status_text(app: OctuiApp) -> str:
    return str(app.query_one(StatusBar).render())


def status_spans(app: OctuiApp) -> list[tuple[str, str]]:
    """``(text, style)`` of every styled run in the status bar."""
    content: Any = app.query_one(StatusBar).render()
    plain = str(content)
    return [(plain[s.start : s.end], str(s.style)) for s in content.spans]


async def test_status_strict_off_says_off_and_counts_errors() -> None:
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view is not None and app.view.errors > 0
        text = status_text(app)
        assert "strict off" in text
        assert f"{app.view.errors} errors" in text
        assert "FAIL" not in text and "PASS" not in text
        assert app.view.digest.removeprefix("sha256:")[:8] in text
        assert "as_of 2026-11-30" in text and "in" in text and "out" in text


async def test_status_strict_on_says_fail_in_red() -> None:
    app = make_app(role="support", task="refund", strict=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = status_text(app)
        assert "strict FAIL" in text and "off" not in text
        assert any(run == "FAIL" and "red" in style for run, style in status_spans(app))


async def test_status_strict_on_passes_without_errors(tmp_path: Any) -> None:
    root = tmp_path / "clean"
    (root / "docs").mkdir(parents=True)
    (root / "opencontext.yaml").write_text(
        "roles:\n  support:\n    scope:\n      include: ['**']\n", encoding="utf-8"
    )
    (root / "docs" / "a.md").write_text(
        "---\nid: a\nversion: 1\nauthority: canonical\nstatus: active\ntitle: A\n"
        "type: policy\nowner: me\nlayer: L3\nclassification: public\n"
        "created: 2026-01-01\nupdated: 2026-01-01\n---\nbody\n",
        encoding="utf-8",
    )
    app = make_app(root, role="support", strict=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view is not None
        assert app.view.errors == 0, app.view.resolution.warnings
        text = status_text(app)
        assert "strict PASS" in text
        assert any(run == "PASS" and "green" in style for run, style in status_spans(app))
