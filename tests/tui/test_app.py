"""Pilot tests of the explorer: each behaviour of issue 3, driven through the UI."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox, Input, Select, Static, TabbedContent

from octui.bundle.bundle import bundle_dict, dumps_bundle
from octui.cli import main as cli
from octui.core.enums import ExclusionReason
from octui.core.model import Exclusion, Finding
from octui.core.timeutil import format_instant
from octui.load.loader import load_repository
from octui.resolve.engine import resolve
from octui.resolve.result import Included, Query
from octui.tui.app import OctuiApp
from octui.tui.screens.error import ErrorScreen
from octui.tui.screens.export import ExportScreen
from octui.tui.screens.help import HelpScreen
from octui.tui.state import make_view
from octui.tui.widgets.detail import DetailPane
from octui.tui.widgets.results import ExcludedPane, IncludedTable, WarningsTable
from octui.tui.widgets.timeline import TimelinePane

from .conftest import AS_OF, SAMPLE, make_app, screen_text, settle, wait_for


def included_ids(app: OctuiApp) -> list[str]:
    assert app.view is not None
    return [i.obj.key for i in app.view.included]


def cli_json(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["resolve", str(SAMPLE), "--format", "json", *args])
    assert code in (0, 1)
    doc: dict[str, Any] = json.loads(out.getvalue())
    return doc


async def test_starts_on_first_declared_role_and_matches_core() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # the first role declared in opencontext.yaml (not "engineering", the first sorted)
        assert app.inputs.role == "support"
        expected = resolve(load_repository(SAMPLE), Query(role="support", as_of=AS_OF))
        assert included_ids(app) == [i.obj.key for i in expected.included]
        table = app.query_one("#included-table", IncludedTable)
        assert len(table.rows) == len(expected.included)


async def test_typing_refund_reorders_included() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = included_ids(app)
        await pilot.press("t", *"refund")
        await settle(pilot)
        after = included_ids(app)
        assert app.inputs.task == "refund"
        assert sorted(before) == sorted(after) and before != after
        # first non-floor object is the refund policy, as the core ranks it
        expected = resolve(
            load_repository(SAMPLE), Query(role="support", as_of=AS_OF, task="refund")
        )
        assert after == [i.obj.key for i in expected.included]
        table = app.query_one("#included-table", IncludedTable)
        assert [r.obj.key for r in table.rows] == after
        assert any(i.matched for i in app.view.included)  # type: ignore[union-attr]


async def test_switching_role_changes_exclusions() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        support = {(e.id, e.version, e.reason) for e in app.view.exclusions}  # type: ignore[union-attr]
        app.query_one("#role", Select).value = "sales"
        await settle(pilot)
        assert app.inputs.role == "sales"
        sales = {(e.id, e.version, e.reason) for e in app.view.exclusions}  # type: ignore[union-attr]
        assert sales != support
        expected = resolve(load_repository(SAMPLE), Query(role="sales", as_of=AS_OF))
        assert sales == {(e.id, e.version, e.reason) for e in expected.exclusions}
        pane = app.query_one(ExcludedPane)
        assert len(pane.table.rows) == len(expected.exclusions)


async def test_stepping_as_of_to_march_brings_back_march_and_moves_marker() -> None:
    app = make_app(role="support", as_of=AS_OF)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        assert "policies.refunds@2" in included_ids(app)
        app.action_jump("policies.refunds")
        await pilot.pause()
        timeline = app.query_one(TimelinePane)
        assert timeline.timeline is not None
        marker_november = timeline.timeline.marker_column
        # 2026-11-30 → 8 months back → 2026-03-30 → 15 days back → 2026-03-15
        await pilot.press(*["left_curly_bracket"] * 8, *["left_square_bracket"] * 15)
        await settle(pilot)
        assert format_instant(app.view.query.as_of) == "2026-03-15T00:00:00Z"  # type: ignore[union-attr]
        march = included_ids(app)
        assert "policies.refunds@1" in march and "policies.refunds@2" not in march
        assert "policies.outage-credit-2026-q1@1" in march  # valid until 2026-04-01
        expected = resolve(
            load_repository(SAMPLE),
            Query(role="support", as_of=app.view.query.as_of),  # type: ignore[union-attr]
        )
        assert march == [i.obj.key for i in expected.included]
        assert timeline.timeline is not None
        assert timeline.timeline.object_id == "policies.refunds"
        assert timeline.timeline.marker_column < marker_november  # type: ignore[operator]
        # the as_of field shows the instant; n toggles to now and back
        assert app.query_one("#as-of", Input).value == "2026-03-15"
        await pilot.press("n")
        await settle(pilot)
        assert app.inputs.as_of is None
        assert app.query_one("#as-of", Input).value == "now"
        await pilot.press("n")
        await settle(pilot)
        assert format_instant(app.inputs.as_of) == "2026-03-15T00:00:00Z"  # type: ignore[arg-type]


async def test_typing_a_date_in_the_as_of_field() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("a", "ctrl+a", "ctrl+k", *"2026-03-15")
        await settle(pilot)
        assert format_instant(app.view.query.as_of) == "2026-03-15T00:00:00Z"  # type: ignore[union-attr]
        await pilot.press("up")  # +1 day inside the field
        await settle(pilot)
        assert format_instant(app.view.query.as_of) == "2026-03-16T00:00:00Z"  # type: ignore[union-attr]
        await pilot.press("ctrl+a", "ctrl+k", *"2026-13-")
        await settle(pilot)
        assert app.query_one("#as-of", Input).has_class("-invalid")
        assert format_instant(app.view.query.as_of) == "2026-03-16T00:00:00Z"  # type: ignore[union-attr]


async def test_digest_equals_cli_for_same_inputs() -> None:
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h", "s")
        await settle(pilot)
        assert app.inputs.include_historical and app.inputs.strict
        bundle = cli_json(
            "--role", "support", "--task", "refund", "--as-of", "2026-11-30",
            "--include-historical", "--strict",
        )  # fmt: skip
        assert app.view is not None
        assert app.view.digest == bundle["digest"]
        status = str(app.query_one("#status", Static).render())
        assert app.view.digest.removeprefix("sha256:")[:8] in status
        assert "FAIL" in status  # the sample repository has errors; strict fails


async def test_denied_object_shows_only_id_and_reason() -> None:
    repo = load_repository(SAMPLE)
    denied = next(o for o in repo.objects if o.id == "notes.board-offsite-2026-10")
    app = make_app(role="support")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.action_jump("notes.board-offsite-2026-10")
        await pilot.pause(0.2)
        detail = app.query_one(DetailPane)
        assert isinstance(detail.item, Exclusion)
        assert detail.item.reason is ExclusionReason.PERMISSION_DENIED
        why = detail.why_text
        assert "notes.board-offsite-2026-10" in why and "permission-denied" in why
        assert detail.field_rows == []
        screen = screen_text(app)
        for secret in (denied.title, denied.summary, denied.path, denied.owner):
            assert secret and secret not in screen
        for line in denied.content.splitlines():
            if len(line.strip()) > 12:
                assert line.strip() not in screen
        timeline = app.query_one(TimelinePane)
        assert timeline.timeline is None and timeline.denied_reason is not None


async def test_excluded_object_explains_why_with_related() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.action_jump("policies.refunds@1")
        await pilot.pause(0.2)
        detail = app.query_one(DetailPane)
        assert isinstance(detail.item, Exclusion)
        assert detail.item.reason is ExclusionReason.SUPERSEDED
        why = detail.why_text
        assert "superseded" in why and "policies.refunds@2" in why
        fields = dict(detail.field_rows)
        assert fields["path"] == "policies/refunds.v1.md" and "valid_until" in fields
        assert set(fields) >= {"id", "version", "authority", "content", "supersedes", "access"}
        assert app.query_one("#results", TabbedContent).active == "tab-excluded"


async def test_included_object_shows_matched_signals() -> None:
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.action_jump("policies.refunds")
        await pilot.pause(0.2)
        detail = app.query_one(DetailPane)
        assert isinstance(detail.item, Included)
        why = detail.why_text
        assert "included" in why and "matched" in why and "refund" in why


async def test_excluded_filter_by_reason_and_counts() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.query_one(ExcludedPane)
        assert app.view is not None
        total = len(app.view.exclusions)
        pane.set_reason("not-in-scope")
        await pilot.pause()
        expected = [e for e in app.view.exclusions if e.reason.value == "not-in-scope"]
        assert list(pane.table.rows) == expected and 0 < len(expected) < total
        counts = str(pane.query_one("#reason-counts", Static).render())
        assert f"not-in-scope {len(expected)}" in counts
        await pilot.press("f")  # cycle to the next reason
        assert pane.reason != "not-in-scope"
        assert all(e.reason.value == pane.reason for e in pane.table.rows)


async def test_selecting_a_warning_jumps_to_its_objects() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        table = app.query_one(WarningsTable)
        assert app.view is not None
        index = next(i for i, w in enumerate(table.rows) if w.code.value == "conflict-ambiguous")
        warning: Finding = table.rows[index]
        table.move_to(index)
        await pilot.pause()
        assert app.query_one(DetailPane).item is warning
        await pilot.press("enter")
        await pilot.pause()
        first = warning.ids[0]
        assert isinstance(app.selected, Included) and app.selected.obj.id == first
        assert app.query_one("#results", TabbedContent).active == "tab-included"
        # Enter on the warning again goes to the next object it names
        await pilot.press("3")
        table.move_to(index)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.selected, Included) and app.selected.obj.id == warning.ids[1]


async def test_selection_and_scroll_survive_a_reresolve() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one("#included-table", IncludedTable)
        table.focus()
        table.move_to(len(table.rows) - 2)
        await pilot.pause()
        key = table.current_key
        scroll = table.scroll_y
        assert scroll > 0
        await pilot.press("s")  # strict on: same rows, re-resolved
        await settle(pilot)
        assert app.applied_generation >= 2
        assert table.current_key == key
        assert table.scroll_y == scroll


async def test_stale_results_never_overwrite_newer_ones() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        repo = app.session.repository
        assert repo is not None and app.view is not None
        old = make_view(resolve(repo, Query(role="sales", as_of=AS_OF)), app.generation - 1)
        shown = app.view
        assert app.apply_view(old) is False
        assert app.view is shown
        # a result for a generation that was superseded by a newer request is dropped too
        app.generation += 1
        pending = make_view(resolve(repo, Query(role="sales", as_of=AS_OF)), app.generation - 1)
        assert app.apply_view(pending) is False
        newest = make_view(resolve(repo, Query(role="sales", as_of=AS_OF)), app.generation)
        assert app.apply_view(newest) is True and app.view is newest


async def test_export_is_byte_identical_in_content_and_atomic(tmp_path: Path) -> None:
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        target = tmp_path / "bundle.json"
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        field = app.screen.query_one("#export-path", Input)
        field.value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, target.exists)
        await app.workers.wait_for_complete()
        text = target.read_text(encoding="utf-8")
        exported = json.loads(text)
        cli_bundle = cli_json("--role", "support", "--task", "refund", "--as-of", "2026-11-30")
        for key in ("bundle_id", "generated_at"):
            exported.pop(key)
            cli_bundle.pop(key)
        assert exported == cli_bundle
        # formatting is the CLI's own: same text once the two per-run fields are equal
        same = bundle_dict(app.view.resolution, bundle_id="x", generated_at=AS_OF)  # type: ignore[union-attr]
        assert text.splitlines()[3:] == dumps_bundle(same).splitlines()[3:]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle.json"]  # no temp left

        # an existing file is not replaced without confirmation
        target.write_text("keep me", encoding="utf-8")
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#export-path", Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)  # asks first
        assert target.read_text(encoding="utf-8") == "keep me"
        await pilot.press("enter")  # confirmed
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert json.loads(target.read_text(encoding="utf-8"))["digest"] == exported["digest"]

        # never inside the repository being read
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#export-path", Input).value = str(SAMPLE / "bundle.json")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        assert "inside the repository" in str(app.screen.query_one("#export-message").render())
        assert not (SAMPLE / "bundle.json").exists()
        await pilot.press("escape")


async def test_export_writes_the_view_its_dialog_described(tmp_path: Path) -> None:
    """A view that arrives while the export dialog is open is not what gets written: the
    file is the bundle whose role and digest the dialog showed."""
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        described = app.view
        assert described is not None
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        app.generation += 1  # meanwhile, another role's view comes in
        repo = load_repository(SAMPLE)
        newer = make_view(resolve(repo, Query(role="sales", as_of=AS_OF)), app.generation)
        assert app.apply_view(newer) is True
        target = tmp_path / "bundle.json"
        app.screen.query_one("#export-path", Input).value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, target.exists)
        await app.workers.wait_for_complete()
        written = json.loads(target.read_text(encoding="utf-8"))
        assert written["inputs"]["role"] == "support"
        assert written["digest"] == bundle_dict(described.resolution)["digest"]


async def test_copy_digest_uses_the_clipboard() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        assert app.view is not None
        assert app.clipboard == app.view.digest


async def test_broken_config_shows_error_screen_and_recovers(repo_copy: Path) -> None:
    config = repo_copy / "opencontext.yaml"
    good = config.read_text(encoding="utf-8")
    config.write_text(good.replace("inferred, historical]", "inferred]", 1), encoding="utf-8")
    app = make_app(repo_copy, watch=True, poll_interval=0.1, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorScreen))
        await pilot.pause(0.1)
        # the box's lines run together: a long temporary path (a pytest-xdist worker's is
        # longer) wraps inside the file name
        text = "".join(line.strip(" ┃") for line in screen_text(app).splitlines())
        assert "opencontext.yaml" in text and "authority.precedence" in text
        assert "missing historical" in text
        config.write_text(good, encoding="utf-8")
        await wait_for(pilot, lambda: app.view is not None)
        assert not isinstance(app.screen, ErrorScreen)
        assert app.inputs.role == "support"
        # and it breaks again, and recovers again
        config.write_text("spec: [", encoding="utf-8")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorScreen))
        config.write_text(good, encoding="utf-8")
        await wait_for(pilot, lambda: not isinstance(app.screen, ErrorScreen))


async def test_not_a_repository_shows_error_screen(tmp_path: Path) -> None:
    app = make_app(tmp_path, watch=True, poll_interval=0.1)
    async with app.run_test(size=(160, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorScreen))
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "opencontext.yaml" in text and "not an OpenContext repository" in text
        (tmp_path / "opencontext.yaml").write_text("spec: 1\nroles: {ops: {}}\n", encoding="utf-8")
        await wait_for(pilot, lambda: app.view is not None)
        assert app.inputs.role == "ops" and not isinstance(app.screen, ErrorScreen)


async def test_disk_edits_are_picked_up(repo_copy: Path) -> None:
    app = make_app(repo_copy, watch=True, poll_interval=0.1, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "policies.newly-added@1" not in included_ids(app)
        (repo_copy / "policies" / "newly-added.md").write_text(
            "---\nid: policies.newly-added\nauthority: approved\ntitle: Added while open\n"
            "---\nHello.\n",
            encoding="utf-8",
        )
        await wait_for(pilot, lambda: "policies.newly-added@1" in included_ids(app))
        (repo_copy / "policies" / "newly-added.md").unlink()
        await wait_for(pilot, lambda: "policies.newly-added@1" not in included_ids(app))


async def test_help_lists_every_key() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 50)) as pilot:  # tall enough to show every key
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        for _ in range(10):  # the help is taller than the screen: page through it
            await pilot.press("pagedown")
            await pilot.pause()
            text += screen_text(app)
        for binding in app.BINDINGS:
            assert (binding.tooltip or binding.description) in text  # type: ignore[union-attr]
        assert "What did we believe in March?" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_command_palette_jumps_to_an_id_and_sets_role() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Jump to policies.refunds-observed")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.selected, Exclusion)
        assert app.selected.id == "policies.refunds-observed"
        assert app.selected.reason is ExclusionReason.CONFLICT
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Set role: sales")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot)
        assert app.inputs.role == "sales" and app.view is not None
        assert app.view.query.role == "sales"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"as_of 2026-03-15")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot)
        assert format_instant(app.view.query.as_of) == "2026-03-15T00:00:00Z"


async def test_limit_and_min_relevance_fields() -> None:
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("l", "2", "enter")
        await settle(pilot)
        assert app.inputs.limit == 2
        assert app.view is not None
        trimmed = [e for e in app.view.exclusions if e.reason is ExclusionReason.NOT_RELEVANT]
        assert trimmed
        floor = [i for i in app.view.included if i.obj.is_floor_layer]
        assert len(app.view.included) == len(floor) + 2
        await pilot.press("m", "x")
        await settle(pilot)
        assert app.query_one("#min-relevance", Input).has_class("-invalid")
        assert app.inputs.min_relevance is None


async def test_narrow_layout_shows_detail_on_demand() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.main.has_class("-narrow")
        assert not app.query_one("#side").display or not app.query_one("#side").region.width
        table = app.query_one("#included-table", IncludedTable)
        table.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.main.has_class("-show-side")
        assert app.query_one("#side").region.width > 0
        await pilot.press("escape")
        await pilot.pause()
        assert not app.main.has_class("-show-side")


async def test_switch_widgets_drive_inputs() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.click("#historical")
        await settle(pilot)
        assert app.query_one("#historical", Checkbox).value
        assert app.view is not None and app.view.query.include_historical
        assert any(i.lifecycle.value != "active" for i in app.view.included)


async def test_roles_edited_on_disk(repo_copy: Path) -> None:
    config = repo_copy / "opencontext.yaml"
    good = config.read_text(encoding="utf-8")
    app = make_app(repo_copy, watch=True, poll_interval=0.1, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # the role in use disappears: the first one declared is shown, never a crash
        config.write_text(good.replace("  support:\n", "  helpdesk:\n", 1), encoding="utf-8")
        await wait_for(pilot, lambda: app.view is not None and app.view.query.role != "support")
        assert app.inputs.role == "helpdesk"
        # no roles at all: the whole repository is judged (as opencontext validate does)
        head = good.split("\nroles:")[0]
        config.write_text(head + "\n", encoding="utf-8")
        await wait_for(pilot, lambda: app.view is not None and app.view.query.role is None)
        assert app.query_one("#role", Select).disabled


def test_the_explorer_does_not_animate_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tab underline's slide costs about 15 paints of the screen after every tab key:
    off, unless TEXTUAL_ANIMATIONS asks for it."""
    monkeypatch.delenv("TEXTUAL_ANIMATIONS", raising=False)
    assert make_app(role="support").animation_level == "none"
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "full")
    assert make_app(role="support").animation_level == "full"
