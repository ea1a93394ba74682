"""Starting a worker never prints its arguments: Textual describes a worker by the repr of
its arguments unless it is given a description, and the repr of a view is the whole
repository (seconds on the UI thread at 10,000 objects, on every cursor move in the
Excluded table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from octui.tui.state import View
from tui.isolated import settle
from tui.test_whynot_worker import make_app, outranked_repo, select_exclusions


async def test_selecting_excluded_rows_never_reprs_the_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def counted(self: View) -> str:
        calls.append(1)
        return "View(...)"

    monkeypatch.setattr(View, "__repr__", counted)
    app = make_app(outranked_repo(tmp_path / "repo", 30))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await select_exclusions(pilot, 3)
    assert calls == []
