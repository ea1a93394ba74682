"""What a key costs the explorer: the detail pane is drawn once per new view, and its
background blocks start after the key's own paint (the Roles block waits
:data:`~octui.tui.auditapp.ROLES_DELAY` before resolving every role, and a newer selection
meanwhile starts nothing for the old one)."""

from __future__ import annotations

from typing import Any

import pytest

from octui.tui import auditapp
from octui.tui.screens import explorer
from octui.tui.widgets import detail, header
from octui.tui.widgets.detail import DetailPane

from .conftest import make_app, settle


async def test_the_roles_block_waits_before_resolving_every_role(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    original = auditapp.roles_of

    def recorded(audits: Any, repo: Any, role: Any, as_of: Any, uid: int) -> Any:
        calls.append(uid)
        return original(audits, repo, role, as_of, uid)

    monkeypatch.setattr(auditapp, "roles_of", recorded)
    monkeypatch.setattr(auditapp, "ROLES_DELAY", 30.0)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await app.settled.wait()
        await pilot.pause(0.3)
        detail = app.main.query_one("#detail")
        assert calls == []  # still waiting: the key's paint comes first
        assert "resolving every role" in detail.roles_text  # type: ignore[attr-defined]
        monkeypatch.setattr(auditapp, "ROLES_DELAY", 0.0)
        await pilot.press("down")
        await app.wait_settled()
        assert len(calls) == 1  # only the newest selection's block was computed
        assert "resolving" not in detail.roles_text  # type: ignore[attr-defined]


async def test_a_new_view_draws_the_detail_pane_once(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[object] = []
    original = DetailPane.show

    def counted(self: DetailPane, view: Any, item: Any) -> None:
        shown.append(item)
        original(self, view, item)

    monkeypatch.setattr(DetailPane, "show", counted)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        before = app.selected
        shown.clear()
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.view is not None and app.selected is not None
        assert len(shown) == 1 and shown[0] is app.selected is not before


async def test_a_new_view_of_the_same_object_measures_neither_root_nor_content_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[object] = []
    parsed: list[str] = []
    real_sample, real_parser = header.is_bundled_sample, detail._PARSER

    def sample(root: Any) -> bool:
        asked.append(root)
        return real_sample(root)

    class CountedParser:
        """Every parse of a body, whoever asks for it (the block count, the Markdown)."""

        def parse(self, text: str, env: Any = None) -> Any:
            parsed.append(text)
            return real_parser.parse(text, env)

    monkeypatch.setattr(explorer, "is_bundled_sample", sample)  # the name the screen calls
    monkeypatch.setattr(detail, "_PARSER", CountedParser())
    app = make_app(role="support", debounce=0.0)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        parsed.clear()
        for key in ["t", *"refund"]:  # six new views
            await pilot.press(key)
            await settle(pilot)
        await pilot.press("escape", "down", "down")  # two objects not shown yet
        await settle(pilot)
        assert app.view is not None and app.view.query.task == "refund"
        assert len(asked) == 1  # the header's "bundled sample" mark, asked once
        assert parsed  # (bodies were shown)
        assert len(set(parsed)) == len(parsed)  # each content parsed once, not per view


async def test_the_roles_block_keeps_its_height_while_it_is_resolved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pane below it does not move twice, and the key's paint needs no layout for it."""
    assert auditapp.resolving_lines(None) == [auditapp.ROLES_TITLE, "  resolving every role…"]
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        detail = app.main.query_one("#detail", DetailPane)
        box = detail.query_one("#roles")
        height = box.size.height
        assert "resolving" not in detail.roles_text and height > 2
        monkeypatch.setattr(auditapp, "ROLES_DELAY", 30.0)
        view = app.view
        await pilot.press("right_square_bracket")  # a day on: every role resolved again
        await app.settled.wait()
        await pilot.pause()
        assert app.view is not view
        assert "resolving every role" in detail.roles_text
        assert box.size.height == height
