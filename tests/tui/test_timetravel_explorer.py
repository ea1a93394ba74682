"""The explorer's two time axes ("what did we believe then") and each object's git history."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from textual.widgets import Input, OptionList

from octui.core.timeutil import parse_instant
from octui.tui.screens.believe import BelieveScreen
from octui.tui.widgets.objectlog import ObjectLogView

from .conftest import make_app, settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.test_timetravel import DANA, build_history

TODAY = parse_instant("2026-11-30")


async def settle_all(pilot: Any) -> None:
    for _ in range(3):
        await settle(pilot)
        await pilot.app.workers.wait_for_complete()
    await settle(pilot)


async def test_one_date_sets_both_axes_and_the_other_keys_move_as_of_alone(
    tmp_path: Path,
) -> None:
    repo = build_history(tmp_path)
    app = make_app(repo.context, role="support", as_of=TODAY)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle_all(pilot)
        assert app.feature_set.timetravel.axes_line == ""  # the files on disk: nothing to set apart
        await pilot.press("K")
        await settle_all(pilot)
        assert isinstance(app.screen, BelieveScreen)
        field = app.screen.query_one(Input)
        assert field.value == "2026-11-30"
        field.value = "2026-03-25"
        await pilot.press("enter")
        await settle_all(pilot)
        short = repo.commits["v2"][:7]
        line = app.feature_set.timetravel.axes_line
        assert f"repository: known at 2026-03-25 · commit {short} 'Refund policy v2 draft'" in line
        assert "in effect: as_of 2026-03-25" in line
        assert line.index("repository:") < line.index("in effect:")
        assert app.view is not None and app.view.query.as_of == parse_instant("2026-03-25")
        source = app.view.resolution.repository.source
        assert (source.commit, source.revision, source.known_at) == (
            repo.commits["v2"],
            None,
            parse_instant("2026-03-25"),
        )
        exported = json.loads(app.bundle_text())
        assert exported["source"] == {
            "commit": repo.commits["v2"],
            "revision": None,
            "known_at": "2026-03-25T00:00:00Z",
            "working_tree": False,
        }
        # [ ] { } move as_of alone: the repository stays as it was known on March 25
        await pilot.press("}")
        await settle_all(pilot)
        line = app.feature_set.timetravel.axes_line
        assert "in effect: as_of 2026-04-25" in line
        assert f"known at 2026-03-25 · commit {short}" in line
        keys = [i.obj.key for i in app.view.included]
        assert "policies.refunds@1" in keys


async def test_believe_before_the_first_commit_says_so(tmp_path: Path) -> None:
    repo = build_history(tmp_path)
    app = make_app(repo.context, role="support", as_of=TODAY)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle_all(pilot)
        app.feature_set.timetravel.believe(parse_instant("2020-01-01"))
        await settle_all(pilot)
        assert app.revision is None and app.feature_set.timetravel.axes_line == ""
        assert any("no commit" in n.message for n in app._notifications)


async def test_starting_known_at(tmp_path: Path, capsys: Any) -> None:
    from octui.tui.__main__ import main

    repo = build_history(tmp_path)
    assert main([str(repo.context), "--known-at", "2026-01-01"]) == 2
    err = capsys.readouterr().err
    assert "no commit" in err and len(err.strip().splitlines()) == 1
    assert main([str(repo.context), "--known-at", "2026-06-11", "--rev", "HEAD"]) == 2
    app = make_app(repo.context, role="support", as_of=parse_instant("2026-07-01"))
    app.start_at_known_at(parse_instant("2026-06-11"))
    async with app.run_test(size=(130, 40)) as pilot:
        await settle_all(pilot)
        short = repo.commits["45"][:7]
        assert f"known at 2026-06-11 · commit {short}" in app.feature_set.timetravel.axes_line
        assert "in effect: as_of 2026-07-01" in app.feature_set.timetravel.axes_line
        assert app.view is not None
        [v2] = [i for i in app.view.included if i.obj.id == "policies.refunds"]
        assert (v2.obj.summary or "").startswith("45-day")


async def test_the_object_history_in_the_detail_pane_opens_a_commit(tmp_path: Path) -> None:
    repo = build_history(tmp_path)
    app = make_app(repo.context, role="support", as_of=TODAY)
    async with app.run_test(size=(130, 50)) as pilot:
        await settle_all(pilot)
        app.action_jump("policies.refunds")
        await settle_all(pilot)
        assert not app.main.query("#object-log")  # off until asked for
        await pilot.press("L")
        await settle_all(pilot)
        box = app.main.query_one("#object-log", ObjectLogView)
        assert box.display
        title = str(box.query_one("#object-log-title").render())
        assert "History of policies.refunds" in title and "5 commits" in title
        listing = box.query_one(OptionList)
        assert [listing.get_option_at_index(i).id for i in range(listing.option_count)] == [
            repo.commits[k] for k in ("rename", "v3", "45", "v2", "first")
        ]
        edit = str(listing.get_option_at_index(2).prompt)
        assert DANA in edit and "Refunds: 45 days, not 30" in edit
        assert "summary: '30-day full refund" in edit and "→ '45-day full refund" in edit
        # keyboard: focus the list, move to Dana's commit, open it
        listing.focus()
        listing.highlighted = 0
        await pilot.press("down", "down", "enter")
        await settle_all(pilot)
        assert app.revision == repo.commits["45"]
        assert app.view is not None
        assert app.view.resolution.repository.source.commit == repo.commits["45"]
        assert f"revision {repo.commits['45']}" in app.feature_set.timetravel.axes_line
        assert app.inputs.as_of == TODAY  # opening a commit leaves as_of alone
        # L again hides it
        await pilot.press("escape", "L")
        await settle_all(pilot)
        assert not app.main.query_one("#object-log").display


async def test_the_object_history_outside_git_says_so(repo_copy: Path) -> None:
    app = make_app(repo_copy, role="support", as_of=TODAY)
    async with app.run_test(size=(130, 50)) as pilot:
        await settle_all(pilot)
        app.action_jump("policies.refunds")
        await pilot.press("L")
        await settle_all(pilot)
        box = app.main.query_one("#object-log", ObjectLogView)
        assert "not inside a git repository" in str(box.query_one("#object-log-title").render())
