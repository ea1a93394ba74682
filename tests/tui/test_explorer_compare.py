"""Issue 6 in the explorer: pin and compare, walk the changes, read a git revision, why not."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from octui.analysis.agenda import change_agenda
from octui.analysis.agenda_sweep_state import Sweep
from octui.analysis.diff import diff_resolutions
from octui.core.timeutil import parse_instant
from octui.load.loader import load_repository
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.tui.screens.agenda import AgendaScreen
from octui.tui.screens.diff import DiffScreen
from octui.tui.screens.revisions import RevisionScreen
from octui.tui.widgets.rowtable import RowTable

from .conftest import SAMPLE, make_app, settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from git_fixture import build_git_sample, porcelain, tree_checksum

MARCH = parse_instant("2026-03-15")
TODAY = parse_instant("2026-11-30")


async def settle_all(pilot) -> None:  # type: ignore[no-untyped-def]
    """Settle the resolution and every background worker (compare, walk, revision)."""
    for _ in range(3):
        await settle(pilot)
        await pilot.app.workers.wait_for_complete()
    await settle(pilot)


async def test_what_changed_for_support_between_march_and_today() -> None:
    app = make_app(role="support", as_of=MARCH)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle_all(pilot)
        await pilot.press("p")
        await settle_all(pilot)
        assert (
            app.feature_set.compare.pinned is not None
            and app.feature_set.compare.diff is not None
            and app.feature_set.compare.diff.same
        )
        app.set_as_of(TODAY)
        await settle_all(pilot)
        repo = load_repository(SAMPLE)
        expected = diff_resolutions(
            resolve(repo, Query(role="support", as_of=MARCH)),
            resolve(repo, Query(role="support", as_of=TODAY)),
        )
        assert app.feature_set.compare.diff is not None
        assert app.feature_set.compare.diff.to_json() == expected.to_json()
        # Rows that differ are marked in the panes: refunds v2 is newly included.
        table = app.main.query_one("#included-table", RowTable)
        index = next(i for i, r in enumerate(table.rows) if r.obj.key == "policies.refunds@2")
        first_cell_style = table.row_cells(table.rows[index], index)[0][1]
        assert "on #" in first_cell_style
        unchanged = next(i for i, r in enumerate(table.rows) if r.obj.key == "mission@1")
        assert "on #" not in table.row_cells(table.rows[unchanged], unchanged)[0][1]
        bar = str(app.main.query_one("#extras-bar").render())
        assert "pinned" in bar and "+6 in" in bar and "-3 out" in bar
        await pilot.press("D")
        await settle_all(pilot)
        assert isinstance(app.screen, DiffScreen)
        assert "policies.refunds @1 → @2" in app.screen.body_text
        await pilot.press("escape")
        await pilot.press("p")
        await settle_all(pilot)
        assert app.feature_set.compare.pinned is None
        assert not app.main.query_one("#extras-bar").display


async def test_what_changes_in_the_next_90_days_by_walking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app(role="support", as_of=TODAY)
    expected = change_agenda(
        load_repository(SAMPLE),
        Query(role="support", as_of=TODAY),
        since=TODAY,
        until=parse_instant("2027-02-28"),
    ).receiving()  # by default, . and , step through the changes to what support receives

    def refuse(_: object) -> str:
        raise AssertionError("the explorer hashed a change point's bundle")

    # neither the walk nor the agenda shows a point's digest: neither hashes its bundles
    monkeypatch.setattr(Sweep, "digest", refuse)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle_all(pilot)
        seen = []
        for _ in expected.points:
            await pilot.press("full_stop")
            await settle_all(pilot)
            seen.append(app.inputs.as_of)
        assert seen == [p.first_instant for p in expected.points]
        # The timeline marker follows as_of: the status line and the resolution agree.
        assert app.view is not None and app.view.query.as_of == seen[-1]
        for point in reversed(expected.points[:-1]):
            await pilot.press("comma")
            await settle_all(pilot)
            assert app.inputs.as_of == point.first_instant
        await pilot.press("A")
        await settle_all(pilot)
        screen = app.screen
        assert isinstance(screen, AgendaScreen)
        await screen.done.wait()
        upcoming = [p.first_instant for p in screen.points if p.upcoming(screen.query_.as_of)]
        assert upcoming[: len(expected.points) - 1] == [
            p.first_instant for p in expected.points[1:]
        ]
        await pilot.press("enter")
        await settle_all(pilot)
        assert app.inputs.as_of == expected.points[1].first_instant


async def test_what_the_repository_said_two_commits_ago(tmp_path: Path) -> None:
    sample = build_git_sample(tmp_path)
    status, sums = porcelain(sample.work), tree_checksum(sample.work)
    app = make_app(sample.context, role="support", as_of=TODAY)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle_all(pilot)
        assert app.view is not None
        assert "policies.refunds@2" in [i.obj.key for i in app.view.included]
        await pilot.press("p", "g")
        await settle_all(pilot)
        assert isinstance(app.screen, RevisionScreen)
        await pilot.press("down", "down", "down", "enter")  # HEAD~2: the oldest commit
        await settle_all(pilot)
        assert app.revision is not None
        assert app.view is not None
        keys = [i.obj.key for i in app.view.included]
        assert "policies.refunds@1" in keys and "policies.refunds@2" not in keys
        assert (
            app.feature_set.compare.diff is not None
            and app.feature_set.compare.diff.b.rev == app.revision
        )
        bar = str(app.main.query_one("#extras-bar").render())
        assert "said" in bar and "in effect" in bar  # the two questions, kept apart
        app.feature_set.revisions.set_revision(None)
        await settle_all(pilot)
        assert app.revision is None and app.feature_set.compare.diff.same
    assert tree_checksum(sample.work) == sums and porcelain(sample.work) == status


async def test_why_not_in_the_detail_pane() -> None:
    app = make_app(role="support", as_of=TODAY)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle_all(pilot)
        app.action_jump("policies.ai-assistant-disclosure")
        await settle_all(pilot)
        box = app.main.query_one("#whynot")
        assert box.display and "2027-01-01" in str(box.render())
        app.action_jump("pricing.enterprise")  # denied: nothing more than id and reason
        await settle_all(pilot)
        assert not app.main.query_one("#whynot").display
        app.action_jump("mission")
        await settle_all(pilot)
        assert not app.main.query_one("#whynot").display


async def test_starting_at_a_revision(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from octui.tui.__main__ import main

    sample = build_git_sample(tmp_path)
    assert main([str(sample.context), "--rev", "no-such-rev"]) == 2
    err = capsys.readouterr().err
    assert "unknown git revision" in err and len(err.strip().splitlines()) == 1
    app = make_app(sample.context, role="support", as_of=TODAY)
    app.start_at_revision("HEAD~2")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle_all(pilot)
        assert app.view is not None
        keys = [i.obj.key for i in app.view.included]
        assert "policies.refunds@1" in keys and "policies.refunds@2" not in keys
        assert "revision HEAD~2" in str(app.main.query_one("#extras-bar").render())


async def test_the_agenda_scrolls_through_every_change_and_toggles() -> None:
    """The agenda lists every change at any instant (back to June and before), each with its
    cause; a switches between what support receives and every digest change."""
    repo = load_repository(SAMPLE)
    full = change_agenda(repo, Query(role="support", as_of=TODAY))
    receiving = full.receiving()
    assert len(receiving.points) < len(full.points)
    app = make_app(role="support", as_of=TODAY)
    async with app.run_test(size=(150, 40)) as pilot:
        await settle_all(pilot)
        await pilot.press("A")
        await settle_all(pilot)
        screen = app.screen
        assert isinstance(screen, AgendaScreen)
        await screen.done.wait()
        await settle_all(pilot)
        table = screen.query_one("#agenda-table", RowTable)
        assert [p.first_instant for p in table.rows] == [p.first_instant for p in receiving.points]
        # scroll to the very first change, far before as_of, through a virtualised table
        for _ in range(len(table.rows) // 5 + 2):
            await pilot.press("pageup")
        await settle_all(pilot)
        assert table.cursor == 0
        june = next(i for i, p in enumerate(table.rows) if p.at == parse_instant("2026-06-01"))
        cells = screen._cells(table.rows[june], june)
        assert "policies.refunds@2 takes effect" in cells[2][0]
        assert "+policies.refunds@2" in cells[3][0] and "-policies.refunds@1" in cells[3][0]
        title = str(screen.query_one("#agenda-title").render())
        assert "changes to what the role receives" in title
        await pilot.press("a")
        await settle_all(pilot)
        assert [p.first_instant for p in table.rows] == [p.first_instant for p in full.points]
        assert "every digest change" in str(screen.query_one("#agenda-title").render())
        assert app.feature_set.agenda.everything  # . and , follow the same choice
        await pilot.press("a")
        await settle_all(pilot)
        assert len(table.rows) == len(receiving.points) and not app.feature_set.agenda.everything
        await pilot.press("end", "enter")
        await settle_all(pilot)
        assert app.inputs.as_of == receiving.points[-1].first_instant


async def test_the_diff_view_toggles_every_exclusion_change() -> None:
    app = make_app(role="support", as_of=MARCH)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle_all(pilot)
        await pilot.press("p")
        await settle_all(pilot)
        app.set_as_of(TODAY)
        await settle_all(pilot)
        await pilot.press("D")
        await settle_all(pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        assert "decisions.2026-05-12-event-bus-sqs" not in screen.body_text
        assert "12 other exclusion changes hidden" in screen.body_text
        assert screen.body_text.count("policies.refunds@1") == 1  # one heading per object
        await pilot.press("a")
        await settle_all(pilot)
        assert "decisions.2026-05-12-event-bus-sqs@1: not-yet-valid" in screen.body_text
        await pilot.press("a")
        await settle_all(pilot)
        assert "decisions.2026-05-12-event-bus-sqs" not in screen.body_text
