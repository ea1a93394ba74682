"""Pilot tests of orientation and feedback: the context header, keys people can read and
find, every view scrolling from the keyboard, filters and sort on every table, the
palette's id@version and did-you-mean, and rejections that say why."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input, Label, Select

from octui.core.enums import Severity
from octui.load.fingerprint import NO_CONFIG, Fingerprint, invalid_config
from octui.render.timeline import fit_key
from octui.tui.app import OctuiApp
from octui.tui.asof_words import as_of_problem
from octui.tui.commands import OctuiCommands
from octui.tui.exporting import export_name
from octui.tui.feedback import changed_paths, reload_note, screenshot_folder
from octui.tui.keys import key_label, keys_label
from octui.tui.screens.diff import DiffScreen
from octui.tui.screens.help import HelpScreen
from octui.tui.screens.validate import ValidateScreen
from octui.tui.widgets.cells import Column, column_widths, share
from octui.tui.widgets.detail import DetailPane
from octui.tui.widgets.header import ContextHeader
from octui.tui.widgets.rowtable import RowTable
from octui.tui.widgets.status import StatusBar

from .conftest import AS_OF, make_app, screen_text, settle, wait_for


def header_text(app: OctuiApp) -> str:
    return str(app.query_one(ContextHeader).render())


# -- the header ----------------------------------------------------------------------------


async def test_header_names_repository_sample_role_task_and_utc_instant() -> None:
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        first = text.splitlines()[0]
        assert "sample-repo" in first and "(bundled sample)" in first
        assert "working tree" in first
        assert "role support" in first and "task refund" in first
        assert "as_of 2026-11-30 00:00 UTC" in first
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("down", "enter")  # the next role
        await settle(pilot)
        assert app.inputs.role != "support"
        assert f"role {app.inputs.role}" in header_text(app)


async def test_header_names_the_view_on_show_while_the_next_is_resolved() -> None:
    """The header says what the tables answer: a task typed meanwhile is in the field and
    the status line says "resolving…"; the header names the new task with its tables."""
    app = make_app(role="support", task="refund", debounce=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        release = threading.Event()
        resolve = app.session.resolve

        def held(query: Any) -> Any:
            release.wait(10)
            return resolve(query)

        app.session.resolve = held  # type: ignore[method-assign]
        await pilot.press("t", "end", "s")
        await wait_for(pilot, lambda: "resolving" in str(app.query_one(StatusBar).render()))
        assert app.query_one("#task", Input).value == "refunds"
        assert "task refund" in header_text(app) and "task refunds" not in header_text(app)
        release.set()
        await settle(pilot)
        assert "task refunds" in header_text(app)
        assert app.view is not None and app.view.query.task == "refunds"


async def test_header_of_a_copy_is_not_the_bundled_sample(repo_copy: Path) -> None:
    app = make_app(repo_copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = screen_text(app).splitlines()[0]
        assert "repo" in first and "bundled sample" not in first


async def test_as_of_field_says_a_datetime_without_offset_is_utc() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        field = app.query_one("#as-of", Input)
        assert "without an offset is UTC" in str(field.tooltip)
        assert "as_of (UTC)" in screen_text(app)


# -- focus and keys -------------------------------------------------------------------------


async def test_choosing_a_role_returns_focus_to_the_table() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert app.query_one("#role", Select).expanded
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.inputs.role != "support"
        assert isinstance(app.focused, RowTable)
        before = app.focused.cursor
        await pilot.press("j")
        assert app.focused.cursor == before + 1  # j/k work at once


async def test_question_mark_opens_help_and_keys_read_as_people_read_them() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "Esc" in text and "escape" not in text
        assert "comma" not in text and "slash" not in text and "square_bracket" not in text
        await pilot.press("question_mark")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        footer = screen_text(app).splitlines()[-1]
        assert "? Help" in footer


def test_key_labels() -> None:
    assert key_label("escape") == "Esc"
    assert key_label("comma") == ","
    assert key_label("ctrl+p") == "Ctrl+P"
    assert key_label("f1") == "F1"
    assert keys_label("up,k") == "↑ / k"
    assert key_label("pagedown") == "PgDn"


async def test_footer_reaches_excluded_and_what_changed_without_help() -> None:
    for size in ((80, 24), (120, 40)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            footer = screen_text(app).splitlines()[-1]
            assert "2 Why excluded" in footer, (size, footer)
            assert "A What changed" in footer, (size, footer)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_help_is_whole_and_scrolls_with_keys(size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        scroll = app.screen.query_one("#help-scroll", VerticalScroll)
        assert app.focused is scroll
        region = scroll.region
        assert region.bottom <= size[1] and region.right <= size[0]  # not cut off
        assert scroll.max_scroll_y > 0  # more help than screen: it must scroll
        await pilot.press("down")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("home")
        await pilot.pause()
        assert scroll.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 1
        await pilot.press("pageup")
        await pilot.pause()
        assert scroll.scroll_y == 0


async def test_diff_view_scrolls_with_keys() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("down", "enter")
        await settle(pilot)
        await wait_for(pilot, lambda: app.feature_set.compare.diff is not None)
        await pilot.press("D")
        await pilot.pause()
        assert isinstance(app.screen, DiffScreen)
        scroll = app.screen.query_one("#diff-scroll", VerticalScroll)
        assert app.focused is scroll
        assert scroll.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press("home")
        await pilot.pause()
        assert scroll.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y


async def test_detail_pane_scrolls_with_keys() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_jump("policies.refunds")
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        detail = app.query_one(DetailPane)
        assert app.focused is detail
        assert detail.max_scroll_y > 0
        await pilot.press("down", "down")
        await pilot.pause()
        assert detail.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert detail.scroll_y == detail.max_scroll_y
        await pilot.press("home")
        await pilot.pause()
        assert detail.scroll_y == 0
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.focused, RowTable)


# -- filter and sort -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tab", "table_id", "word"),
    [
        ("1", "#included-table", "refund"),
        ("2", "#excluded-table", "observed"),
        ("3", "#warnings-table", "stale"),
    ],
)
async def test_slash_filters_each_table(tab: str, table_id: str, word: str) -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(tab)
        table = app.query_one(table_id, RowTable)
        total = len(table.rows)
        await pilot.press("slash", *word)
        await pilot.pause()
        assert 0 < len(table.rows) < total
        assert all(word in table._search(r).casefold() for r in table.rows)  # type: ignore[misc]
        assert f"{len(table.rows)} of {total} rows" in screen_text(app)
        await pilot.press("enter")  # back to the table, the filter kept
        assert app.focused is table and len(table.rows) < total
        await pilot.press("slash", "escape")  # Esc in the filter clears it
        await pilot.pause()
        assert len(table.rows) == total and app.focused is table


async def test_filter_matches_the_text_not_only_the_id() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"valid from")
        await pilot.pause()
        table = app.query_one("#excluded-table", RowTable)
        assert table.rows and all("valid from" in r.detail for r in table.rows)


async def test_o_cycles_the_sort_column_and_the_header_shows_it() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        table = app.query_one("#excluded-table", RowTable)
        original = list(table.rows)
        await pilot.press("o")
        await pilot.pause()
        ids = [r.id for r in table.rows]
        assert ids == sorted(ids) and table.sort_column == 0
        assert "id ↑" in screen_text(app)
        await pilot.press("o")
        reasons = [r.reason.value for r in table.rows]
        assert reasons == sorted(reasons)
        assert "reason ↑" in screen_text(app)
        for _ in range(len(table.sortable) - 1):
            await pilot.press("o")
        assert list(table.rows) == original and table.sort_column is None


# -- widths ---------------------------------------------------------------------------------


def test_share_gives_natural_widths_when_they_fit_and_cuts_the_widest_first() -> None:
    assert share([25, 60], [12, 6], 100) == [25, 60]
    assert share([25, 60], [12, 6], 70) == [25, 45]  # the short id stays whole
    assert share([25, 60], [12, 6], 40) == [20, 20]
    assert share([30], [12], 10) == [12]


def test_a_filling_column_takes_what_the_fitted_ones_leave_and_halves_with_a_wide_one() -> None:
    """The Warnings tab: the ids are fitted to their widest cell, the message fills. Short
    ids stay whole and the message takes the rest; ids wider than half the room are cut to
    the half, never leaving the message its minimum alone; nothing is measured for it."""
    columns = [
        Column("code", 24),
        Column("ids", None, min_width=10, fit=str),
        Column("message", None, min_width=16, fill=True),
    ]
    # 24 + two blanks: 74 cells of 100 left for the ids and the message
    assert column_widths(columns, {1: 20}, 100) == [24, 20, 54]
    assert column_widths(columns, {1: 68}, 100) == [24, 37, 37]
    assert column_widths(columns, {1: 68}, 200) == [24, 68, 106]
    assert column_widths(columns, {1: 68}, 50) == [24, 12, 16]  # minimums before all
    # without ``fill`` the message was a leftover: a wide id left it its minimum
    plain = [*columns[:2], Column("message", None, min_width=16)]
    assert column_widths(plain, {1: 68}, 100) == [24, 58, 16]


async def test_excluded_detail_is_readable_at_120_and_ids_waste_nothing_at_200() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await pilot.pause()
        text = screen_text(app)
        assert "no in…" not in text and "by po…" not in text
        assert "no include pattern" in text
    app = make_app(role="support")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        table = app.query_one("#included-table", RowTable)
        widths = table.widths(table.scrollable_content_region.width)
        longest = max(len(r.obj.id) for r in table.rows)
        assert widths[1] <= longest + 2  # the id column is as wide as its longest id
        await pilot.press("2")
        await pilot.pause()
        excluded = app.query_one("#excluded-table", RowTable)
        w = excluded.widths(excluded.scrollable_content_region.width)
        assert w[0] <= max(len(r.id) for r in excluded.rows) + 2


def test_timeline_labels_keep_the_version() -> None:
    assert fit_key("policies.refunds-observed@2", 17).endswith("@2")
    assert fit_key("policies.refunds@1", 17) == "policie…refunds@1"
    assert fit_key("policies.refunds@3", 30) == "policies.refunds@3".ljust(30)


async def test_timeline_at_120_tells_the_versions_apart() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_jump("policies.refunds")
        await pilot.pause()
        text = screen_text(app)
        for version in ("@1", "@2", "@3"):
            assert any(
                line.rstrip().split("▏")[-1].lstrip().split(" ")[0].endswith(version)
                for line in text.splitlines()
            ), version


# -- the palette ----------------------------------------------------------------------------


async def palette_titles(app: OctuiApp, query: str) -> list[str]:
    provider = OctuiCommands(app.screen)
    return [str(hit.text) async for hit in provider.search(query)]


async def test_palette_offers_id_at_version_and_jumps_to_it() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = await palette_titles(app, "policies.refunds@3")
        assert "Jump to policies.refunds@3" in titles
        app.action_jump("policies.refunds@3")
        await pilot.pause()
        assert app.selected is not None and getattr(app.selected, "version", None) == 3


async def test_palette_did_you_mean_when_nothing_matches() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = await palette_titles(app, "polciies.refudns")
        assert any(t.startswith("Did you mean policies.refunds") for t in titles), titles
        titles = await palette_titles(app, "supprot")
        assert any("Did you mean role support" in t for t in titles), titles


async def test_palette_has_tabs_validate_copy_and_warnings_filters() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = [t for t, _, _ in app.palette_commands()]
        for wanted in (
            "Show Included",
            "Show Excluded",
            "Show Warnings",
            "Validate the whole repository",
            "Copy id@version of the selected row",
            "Copy path of the selected object",
            "Copy bundle JSON",
            "Warnings: errors only",
        ):
            assert wanted in titles
        errors_only = next(c for t, c, _ in app.palette_commands() if t == "Warnings: errors only")
        errors_only()
        await pilot.pause()
        table = app.query_one("#warnings-table", RowTable)
        assert table.rows and all(w.severity is Severity.ERROR for w in table.rows)
        assert len(table.rows) == app.view.errors  # type: ignore[union-attr]
        assert "errors only" in screen_text(app)


async def test_validate_shows_the_whole_repository_findings_as_the_cli() -> None:
    import contextlib
    import io

    from octui.cli import main as cli

    from .conftest import SAMPLE

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["validate", str(SAMPLE), "--as-of", "2026-11-30", "--color", "never"])
    cli_lines = out.getvalue().splitlines()
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.feature_set.orientation.action_validate()
        await wait_for(pilot, lambda: isinstance(app.screen, ValidateScreen))
        screen = app.screen
        assert isinstance(screen, ValidateScreen)
        assert screen.lines == cli_lines[:-1]  # the same findings, with their files
        assert "errors" in screen.summary and "UTC" in screen.summary
        assert app.focused is screen.query_one("#validate-scroll")
        await pilot.press("escape")
        assert not isinstance(app.screen, ValidateScreen)


async def test_copy_offers_id_path_and_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(role="support")
    copied: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        app.action_jump("policies.refunds")
        await pilot.pause()
        app.feature_set.orientation.action_copy_id()
        app.feature_set.orientation.action_copy_path()
        app.feature_set.orientation.action_copy_bundle()
        assert copied[0] == "policies.refunds@2"
        assert copied[1].endswith(".md") and "refunds" in copied[1]
        import json

        assert json.loads(copied[2])["digest"] == app.view.digest  # type: ignore[union-attr]


# -- feedback in words ----------------------------------------------------------------------


def test_as_of_problems_in_words() -> None:
    assert "month names" in (as_of_problem("march 15") or "")
    assert "no day 30 in February 2026" in (as_of_problem("2026-02-30") or "")
    assert "2026-03-15" in (as_of_problem("2026-3-15") or "")
    assert as_of_problem("2026-03-15") is None and as_of_problem("now") is None


@pytest.mark.parametrize("typed", ["march 15", "2026-02-30", "2026-3-15"])
async def test_bad_as_of_says_why_and_keeps_the_last_instant(typed: str) -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        digest = app.view.digest  # type: ignore[union-attr]
        await pilot.press("a", "ctrl+a", "ctrl+k", *typed)
        await pilot.pause(0.3)
        await settle(pilot)
        problem = str(app.query_one("#as-of-problem", Label).render())
        kept = "(still showing 2026-11-30 00:00 UTC)"
        assert problem.startswith(f"✗ as_of {typed!r} not used {kept}: ")
        assert problem.endswith(as_of_problem(typed))  # type: ignore[arg-type]
        assert "still showing" in screen_text(app)
        assert app.view.digest == digest and app.view.query.as_of == AS_OF  # type: ignore[union-attr]
        await pilot.press("ctrl+a", "ctrl+k", *"2026-03-15")
        await settle(pilot)
        assert "still showing" not in screen_text(app)


def test_reload_note_counts_changed_files() -> None:
    a = Fingerprint(b"cfg", (("x.md", 1, 1, 1, 1), ("y.md", 1, 1, 1, 1)))
    b = Fingerprint(b"cfg", (("x.md", 2, 2, 1, 2), ("y.md", 1, 1, 1, 1)))
    c = Fingerprint(b"cfg2", (("y.md", 1, 1, 1, 1), ("z.md", 1, 1, 1, 1)))
    assert reload_note(changed_paths(a, b)) == "reloaded: 1 file changed (x.md)"
    assert changed_paths(a, c) == ["opencontext.yaml", "x.md", "z.md"]
    assert reload_note([]) == "reloaded: no file changed"
    # a configuration that could not be read or was not valid: only the configuration
    assert changed_paths(a, invalid_config(b"cfg:")) == ["opencontext.yaml"]
    assert changed_paths(NO_CONFIG, a) == ["opencontext.yaml"]
    assert changed_paths(invalid_config(b"x"), invalid_config(b"x")) == []
    # the same files, but a path became unreadable
    d = a._replace(problems=(("z.md", "permission denied"),))
    assert changed_paths(a, d) == ["(unreadable files or sources)"]


async def test_reload_after_an_edit_on_disk_notifies(repo_copy: Path) -> None:
    app = make_app(repo_copy, watch=True, poll_interval=0.1, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        target = repo_copy / "policies" / "refunds.md"
        if not target.exists():
            target = next((repo_copy / "policies").glob("*.md"))
        target.write_text(target.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
        rel = target.relative_to(repo_copy).as_posix()
        want = f"reloaded: 1 file changed ({rel})"
        await wait_for(pilot, lambda: any(n.message == want for n in app._notifications))


def test_screenshot_folder_falls_back_when_downloads_is_missing(tmp_path: Path) -> None:
    folder, why = screenshot_folder(tmp_path)
    assert folder != tmp_path / "Downloads" and folder.is_dir()
    assert why == f"{tmp_path / 'Downloads'} does not exist"
    (tmp_path / "Downloads").mkdir()
    assert screenshot_folder(tmp_path) == (tmp_path / "Downloads", None)


async def test_palette_screenshot_lands_somewhere_and_says_where(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/Downloads there
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    app = make_app(role="support")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.deliver_screenshot()  # what the palette's "Screenshot" calls
        await pilot.pause()
        saved = list(tmp_path.glob("*.svg"))
        assert len(saved) == 1
        messages = [n.message for n in app._notifications]
        assert any(str(saved[0]) in m and "does not exist" in m for m in messages), messages


def test_export_is_named_after_role_as_of_and_digest() -> None:
    name = export_name("support", AS_OF, "sha256:07da09f6aaaa")
    assert name == "opencontext-bundle-support-2026-11-30-07da09f6.json"


async def test_export_screen_proposes_the_descriptive_name() -> None:
    from octui.tui.screens.export import ExportScreen

    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        short = app.view.digest.removeprefix("sha256:")[:8]  # type: ignore[union-attr]
        field = app.screen.query_one(Input)
        assert field.value.endswith(f"opencontext-bundle-support-2026-11-30-{short}.json")


def test_timeline_labels_keep_the_version_in_a_narrow_pane() -> None:
    from octui.load.loader import load_repository
    from octui.render.timeline import layout
    from octui.resolve.engine import resolve
    from octui.resolve.result import Query

    from .conftest import SAMPLE

    resolution = resolve(load_repository(SAMPLE), Query(role="support", as_of=AS_OF))
    timeline = layout(resolution, "policies.refunds", 40)
    labels = [
        line.runs[0][0].strip()
        for line in timeline.lines
        if line.runs and line.runs[0][1] == "label"
    ]
    assert len(labels) == 3
    assert [label[-2:] for label in labels] == ["@1", "@2", "@3"]
