"""The explorer's audit view: findings with their roles, the objects × roles matrix, the
Roles block of the detail pane, the fix loop through the user's editor, and export."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from octui.analysis.audit import Audit, AuditFinding, AuditObject, Fate
from octui.core.enums import ExclusionReason, FateState, Severity, WarningCode
from octui.core.model import Exclusion, Finding, RepositorySource
from octui.resolve.result import Included
from octui.tui.__main__ import build_parser, child_args
from octui.tui.app import OctuiApp
from octui.tui.auditmodel import FindingsIndex, MatrixFilter, fate_cell, matrix_rows
from octui.tui.editor import NO_EDITOR, EditorError, editor_command
from octui.tui.screens.audit import AuditScreen
from octui.tui.screens.export import ExportScreen
from octui.tui.screens.help import HelpScreen
from octui.tui.widgets.audittables import FindingsTable, MatrixTable
from octui.tui.widgets.detail import DetailPane
from octui.tui.widgets.results import WarningsTable

from .conftest import AS_OF, SAMPLE, make_app, settle, table_lines, wait_for


async def open_audit(pilot: Pilot[Any]) -> AuditScreen:
    """Wait until the audit view shows its audit."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
    screen = app.screen
    assert isinstance(screen, AuditScreen)
    await wait_for(
        pilot,
        lambda: (
            screen.audit is not None
            and bool(screen.query(MatrixTable))
            and bool(screen.query_one(FindingsTable).rows)
        ),
    )
    await pilot.pause()
    return screen


def findings(screen: AuditScreen) -> list[AuditFinding]:
    return list(screen.query_one(FindingsTable).rows)


def move_to_finding(screen: AuditScreen, code: str, object_id: str) -> AuditFinding:
    table = screen.query_one(FindingsTable)
    f: AuditFinding
    for i, f in enumerate(table.rows):
        if f.finding.code.value == code and object_id in f.finding.ids:
            table.move_to(i)
            return f
    raise AssertionError(f"no {code} on {object_id}")


# -- opening ------------------------------------------------------------------------------------


async def test_octui_audit_opens_on_the_audit_view() -> None:
    assert build_parser().parse_args(["--audit"]).audit
    args = build_parser().parse_args(["--audit", str(SAMPLE)])
    assert "--audit" in child_args(args, SAMPLE)  # the browser sessions open on it too
    app = make_app(audit=True, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_audit(pilot)
        rows = findings(screen)
        assert len(rows) == 20
        # severity first: every error before every warning
        severities = [f.finding.severity for f in rows]
        assert severities == sorted(severities, key=lambda s: s is not Severity.ERROR)
        assert severities[0] is Severity.ERROR and severities[-1] is Severity.WARNING
        head = str(screen.query_one("#audit-head").render())
        assert "7 errors, 13 warnings" in head and "5 roles" in head
        counts = str(screen.query_one("#audit-counts").render())
        assert "duplicate-canonical 2" in counts and "stale 4" in counts


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_ids_and_file_lines_keep_their_ends_when_cut(size: tuple[int, int]) -> None:
    """An id cut at its end would name only its folder (``procedures.after-h…``) and a
    path cut at its end would lose its line: both are cut in their middle, and they share
    the line with the roles, so that no column is starved."""
    app = make_app(audit=True, role="support")
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        table = screen.query_one(FindingsTable)
        shown = table_lines(table)
        broken = next(line for line in shown if "broken-reference" in line and "decision" in line)
        cells = broken.split("broken-reference", 1)[1].split()
        ids, where = cells[0], cells[1]
        assert ids.startswith("decision") and ids.endswith("provider")
        assert where.startswith("decision") and where.endswith(".md:17")
        widths = table.widths(table.size.width)
        assert min(widths[2:]) >= 12


async def test_the_key_the_palette_and_help_open_it_from_anywhere() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert ("u", "audit view: every finding and role at once") in app.help_groups()[0][1]
        titles = {title: cb for title, cb, _ in app.palette_commands()}
        assert "Audit the repository" in titles
        await pilot.press("u")
        screen = await open_audit(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main
        titles["Audit the repository"]()
        await open_audit(pilot)
        assert screen is not app.screen  # a fresh view each time
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        title, rows = help_screen.groups[0]
        assert title == "Audit view"
        assert ("s", "findings: all → errors → warnings") in rows
        assert ("e", "open the file in $VISUAL / $EDITOR at the line") in rows


# -- findings -----------------------------------------------------------------------------------


async def test_severity_key_filters_to_errors_then_warnings() -> None:
    app = make_app(audit=True, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_audit(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: len(findings(screen)) == 7)
        assert {f.finding.severity for f in findings(screen)} == {Severity.ERROR}
        await pilot.press("s")
        await wait_for(pilot, lambda: len(findings(screen)) == 13)
        assert {f.finding.severity for f in findings(screen)} == {Severity.WARNING}
        await pilot.press("s")
        await wait_for(pilot, lambda: len(findings(screen)) == 20)


async def test_typing_filters_by_code_id_path_and_role() -> None:
    app = make_app(audit=True, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_audit(pilot)
        await pilot.press("slash", *"pricing/team")
        await wait_for(pilot, lambda: len(findings(screen)) < 20)
        assert {f.finding.code for f in findings(screen)} == {
            WarningCode.DUPLICATE_CANONICAL,
            WarningCode.MULTIPLE_ACTIVE_VERSIONS,
            WarningCode.UNKNOWN_FIELD,
        }
        field = screen.query_one("#findings-filter")
        field.value = "public-bot"  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: all("public-bot" in f.roles for f in findings(screen)))
        assert findings(screen)


async def test_a_finding_lists_its_files_roles_and_the_other_findings_on_its_objects() -> None:
    app = make_app(audit=True, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_audit(pilot)
        f = move_to_finding(screen, "duplicate-canonical", "pricing.team")
        await pilot.pause()
        text = str(screen.query_one("#finding-detail").render())
        assert "files: pricing/team.v1.md, pricing/team.v2.md" in text
        assert "roles: leadership, sales" in text
        assert f.finding.hint is not None and f.finding.hint in text
        assert (
            "also on pricing.team@1: unknown-field `superseeded_by` at pricing/team.v1.md:17"
        ) in text
        assert "also on pricing.team@1, pricing.team@2: multiple-active-versions" in text
        # listed, never guessed as a cause
        assert "cause" not in text.lower()


async def test_enter_on_a_finding_shows_its_object_in_a_role_it_affects() -> None:
    app = make_app(audit=True, role="support")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_audit(pilot)
        move_to_finding(screen, "duplicate-canonical", "pricing.team")  # support: not affected
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is app.main and app.inputs.role == "leadership")
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.selected, Included | Exclusion))
        assert app.view is not None and app.view.query.role == "leadership"
        selected = app.selected
        assert isinstance(selected, Included) and selected.obj.id == "pricing.team"


async def test_enter_on_a_matrix_cell_shows_that_object_in_that_role() -> None:
    app = make_app(audit=True, role="support")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_audit(pilot)
        await pilot.press("2")
        await pilot.pause()
        matrix = screen.matrix
        assert matrix.has_focus
        row = next(i for i, o in enumerate(matrix.rows) if o.obj.id == "notes.ticket-4812")
        matrix.move_to(row)
        await pilot.press("right")  # engineering → leadership
        await pilot.pause()
        assert matrix.current_role == "leadership"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is app.main and app.inputs.role == "leadership")
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.selected, Exclusion))
        selected = app.selected
        assert isinstance(selected, Exclusion) and selected.id == "notes.ticket-4812"
        assert selected.reason is ExclusionReason.CONFLICT  # as the cell said: ✗ conflict


async def test_matrix_filters_by_glob_and_differs_and_sorts_by_receivers() -> None:
    app = make_app(audit=True, role="support")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_audit(pilot)
        await pilot.press("2", "slash", *"identity.*")
        await wait_for(
            pilot, lambda: all(o.obj.id.startswith("identity.") for o in screen.matrix.rows)
        )
        assert len(screen.matrix.rows) == 4
        await pilot.press("enter", "t")  # back to the table, then differs only
        await pilot.pause()
        assert [o.obj.id for o in screen.matrix.rows] == ["identity.glossary"]
        await pilot.press("t", "o")
        await pilot.pause()
        receivers = [o.receivers for o in screen.matrix.rows]
        assert receivers == sorted(receivers, reverse=True) and receivers[-1] == 4


# -- the Roles block ----------------------------------------------------------------------------


async def test_the_detail_pane_has_a_roles_block_for_objects_the_role_may_read() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        detail = app.main.query_one(DetailPane)
        app.action_jump("policies.data-retention@2")
        await wait_for(pilot, lambda: "included #" in detail.roles_text)
        text = detail.roles_text
        lines = text.splitlines()
        assert lines[0].startswith("Roles")
        assert lines[1] == "  judged on what this role may read"
        assert [line.split()[0] for line in lines[2:]] == [
            "engineering",
            "leadership",
            "public-bot",
            "sales",
            "support",
        ]
        assert "engineering  ✗ not-in-scope" in text
        assert "public-bot   ⊘ classification-denied" in text
        assert "support      ✓ included #6" in text
        # a row denied to this role shows its id and reason only: no Roles block
        denied = next(e for e in app.view.exclusions if e.reason.is_denial)  # type: ignore[union-attr]
        app.action_jump(denied.id)
        await pilot.pause()
        await pilot.pause()
        assert app.selected is denied
        assert detail.roles_text == ""
        # nor does a warning
        app.action_show_tab("tab-warnings")
        await pilot.pause()
        assert isinstance(app.selected, Finding)
        assert detail.roles_text == ""


async def test_warnings_tab_lists_errors_before_warnings() -> None:
    app = make_app(role="leadership")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        rows = list(app.main.query_one(WarningsTable).rows)
        severities = [w.severity for w in rows]
        assert Severity.ERROR in severities and Severity.WARNING in severities
        first_warning = severities.index(Severity.WARNING)
        assert Severity.ERROR not in severities[first_warning:]


# -- the fix loop -------------------------------------------------------------------------------


@contextlib.contextmanager
def _no_terminal() -> Iterator[None]:
    yield


def fake_editor(folder: Path, log: Path) -> Path:
    """A ``vi`` that logs its arguments and fixes the superseeded_by typo in its file."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "vi"
    script.write_text(
        f"#!{sys.executable}\n"
        "import pathlib, sys\n"
        f"pathlib.Path({str(log)!r}).write_text(' '.join(sys.argv[1:]))\n"
        "p = pathlib.Path(sys.argv[-1])\n"
        "p.write_text(p.read_text().replace('superseeded_by:', 'superseded_by:'))\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


async def test_the_editor_key_fixes_the_typo_and_the_duplicate_canonical_disappears(
    repo_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "argv.txt"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(fake_editor(tmp_path / "bin", log)))
    before = (repo_copy / "pricing/team.v1.md").read_text()
    app = make_app(repo_copy, audit=True, role="support")
    suspended: list[bool] = []

    @contextlib.contextmanager
    def suspend() -> Iterator[None]:  # headless: there is no terminal to hand over
        suspended.append(True)
        yield

    monkeypatch.setattr(app, "suspend", suspend)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_audit(pilot)
        codes = [(f.finding.code.value, f.finding.ids) for f in findings(screen)]
        assert ("duplicate-canonical", ("pricing.team",)) in codes
        move_to_finding(screen, "unknown-field", "pricing.team")
        old = screen.audit
        await pilot.press("e")
        await wait_for(pilot, lambda: screen.audit is not old, timeout=20)
        assert suspended == [True]
        assert log.read_text() == f"+17 {repo_copy / 'pricing/team.v1.md'}"
        codes = [(f.finding.code.value, f.finding.ids) for f in findings(screen)]
        assert ("duplicate-canonical", ("pricing.team",)) not in codes
        assert ("unknown-field", ("pricing.team",)) not in codes
        assert ("duplicate-canonical", ("policies.data-retention",)) in codes
    after = (repo_copy / "pricing/team.v1.md").read_text()
    assert after == before.replace("superseeded_by:", "superseded_by:")


async def test_the_editor_key_in_a_role_view_opens_the_selected_objects_file(
    repo_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "argv.txt"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(fake_editor(tmp_path / "bin", log)))
    app = make_app(repo_copy, role="sales")
    monkeypatch.setattr(app, "suspend", _no_terminal)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.action_jump("pricing.team@1")
        await pilot.pause()
        await pilot.press("e")
        await wait_for(pilot, lambda: log.exists())
        assert log.read_text() == f"+17 {repo_copy / 'pricing/team.v1.md'}"
        await settle(pilot)
        assert not any(
            w.code is WarningCode.DUPLICATE_CANONICAL and w.ids == ("pricing.team",)
            for w in app.view.resolution.warnings  # type: ignore[union-attr]
        )


async def test_no_editor_set_says_which_variables_to_set(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app = make_app(repo_copy, audit=True, role="support")
    ran: list[bool] = []
    monkeypatch.setattr(app, "suspend", lambda: ran.append(True))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_audit(pilot)
        await pilot.press("e")
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any("$VISUAL" in m and "$EDITOR" in m for m in messages)
        assert ran == []  # nothing was suspended, nothing ran


def test_editor_command_puts_the_line_where_each_editor_wants_it(tmp_path: Path) -> None:
    f = tmp_path / "a b.md"
    assert editor_command(f, 7, {"EDITOR": "nvim"}) == ["nvim", "+7", str(f)]
    assert editor_command(f, 7, {"VISUAL": "code --wait", "EDITOR": "vi"}) == [
        "code",
        "--wait",
        "-g",
        f"{f}:7",
    ]
    assert editor_command(f, None, {"EDITOR": "/usr/bin/emacs -nw"}) == [
        "/usr/bin/emacs",
        "-nw",
        str(f),
    ]
    assert editor_command(f, 3, {"EDITOR": "ed"}) == ["ed", str(f)]  # no known line syntax
    # never a shell: a ; or $() is a word, not a command
    assert editor_command(f, 1, {"EDITOR": "vi; rm -rf ~"}) == ["vi;", "rm", "-rf", "~", str(f)]
    with pytest.raises(EditorError) as exc:
        editor_command(f, 1, {"EDITOR": " ", "PATH": os.defpath})
    assert str(exc.value) == NO_EDITOR
    with pytest.raises(EditorError, match=r"\$EDITOR cannot be parsed"):
        editor_command(f, 1, {"EDITOR": "vi 'unclosed"})


# -- export -------------------------------------------------------------------------------------


async def test_audit_exports_json_csv_and_markdown_never_into_the_repository(
    tmp_path: Path,
) -> None:
    app = make_app(audit=True, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_audit(pilot)
        assert screen.audit is not None
        expected = screen.audit.to_json()
        for name in ("audit.json", "matrix.csv", "report.md"):
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, ExportScreen)
            app.screen.query_one("#export-path").value = str(tmp_path / name)  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_for(pilot, lambda n=name: (tmp_path / n).exists())  # type: ignore[misc]
        assert json.loads((tmp_path / "audit.json").read_text()) == expected
        assert (tmp_path / "matrix.csv").read_text().startswith("id,version,path,engineering,")
        assert "duplicate-canonical" in (tmp_path / "report.md").read_text()
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#export-path").value = str(SAMPLE / "audit.md")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)  # refused: it stays open and says why
        assert "repository" in str(app.screen.query_one("#export-message").render())
        assert not (SAMPLE / "audit.md").exists()


# -- scale --------------------------------------------------------------------------------------


def synthetic_audit(n: int, roles: int = 8) -> Audit:
    from octui.core.model import ContextObject

    names = tuple(f"role-{r}" for r in range(roles))
    included = [Fate(FateState.INCLUDED, rank=r + 1) for r in range(roles)]
    out = Fate(FateState.EXCLUDED, reason=ExclusionReason.NOT_IN_SCOPE)
    objects = []
    fields = ContextObject.__dataclass_fields__
    for i in range(n):
        obj = object.__new__(ContextObject)
        for name in fields:
            object.__setattr__(obj, name, None if name not in ("unknown_fields",) else ())
        object.__setattr__(obj, "id", f"obj.{i:06d}")
        object.__setattr__(obj, "version", 1)
        object.__setattr__(obj, "path", f"o/{i:06d}.md")
        object.__setattr__(obj, "uid", i)
        fates = tuple(included[r] if (i + r) % 3 else out for r in range(roles))
        objects.append(AuditObject(obj, fates))
    found = tuple(
        AuditFinding(
            Finding(
                WarningCode.STALE if i % 2 else WarningCode.DUPLICATE_CANONICAL,
                (f"obj.{i:06d}",),
                "m",
                None,
                (f"o/{i:06d}.md",),
            ),
            (names[i % roles],),
        )
        for i in range(n)
    )
    return Audit(AS_OF, RepositorySource(None, None), names, found, tuple(objects), ())


class MatrixApp(App[None]):
    def __init__(self, audit: Audit) -> None:
        super().__init__()
        self.audit = audit

    def compose(self) -> ComposeResult:
        yield MatrixTable(self.audit.roles, id="m")


async def test_the_matrix_formats_only_the_visible_rows_at_50k_objects_by_8_roles() -> None:
    audit = synthetic_audit(50_000)
    app = MatrixApp(audit)
    async with app.run_test(size=(140, 30)) as pilot:
        table = app.query_one(MatrixTable)
        table.set_rows(matrix_rows(audit.objects, MatrixFilter()))
        table.focus()
        await pilot.pause()
        visible = table.size.height - 1  # lines under the header
        assert visible < 40
        for key in ("pagedown", "pagedown", "end", "pageup"):
            await pilot.press(key)
            await pilot.pause()
            table.forget_rendered()
            table.refresh()  # a whole frame: exactly the visible rows are formatted
            await pilot.pause()
            top = round(table.scroll_y)
            assert table.rendered == set(range(top, min(top + visible, 50_000)))
        assert table.cursor > 49_000


def test_findings_filter_and_cells_units() -> None:
    audit = synthetic_audit(1_000)
    index = FindingsIndex(audit.findings)
    assert len(index.filter("", "error")) == 500
    assert [f.finding.ids for f in index.filter("obj.000123")] == [("obj.000123",)]
    assert len(index.filter("role-3 stale")) == len(
        [f for f in audit.findings if "role-3" in f.roles and f.finding.code is WarningCode.STALE]
    )
    assert fate_cell(Fate(FateState.INCLUDED, rank=3)) == ("✓ #3", "green")
    assert fate_cell(Fate(FateState.EXCLUDED, reason=ExclusionReason.PERMISSION_DENIED))[0] == (
        "⊘ denied"
    )
    differs = matrix_rows(audit.objects, MatrixFilter(differs=True))
    assert len(differs) == 1_000  # every synthetic object is out for some role
    assert isinstance(OctuiApp, type)


async def test_repository_text_in_the_audit_view_is_shown_literally(tmp_path: Path) -> None:
    """Ids, keys and paths come from the repository: never markup, never escapes."""
    osc = "\x1b]52;c;Y3VybCBldmlsfHNo\x07"
    root = tmp_path / "repo"
    (root / "p").mkdir(parents=True)
    (root / "opencontext.yaml").write_text("spec: 1\nroles:\n  '[b]r[/b]': {}\n")
    key = json.dumps("[red]k" + osc)
    (root / "p" / "[red]a.md").write_text(f"---\nid: p.a\nauthority: canonical\n{key}: 1\n---\nA\n")
    app = make_app(root, audit=True)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_audit(pilot)
        move_to_finding(screen, "unknown-field", "p.a")
        await pilot.pause()
        text = str(screen.query_one("#finding-detail").render())
        assert "p/[red]a.md" in text and "[b]r[/b]" in text
        assert "\x1b" not in text and "\x07" not in text
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "p/[red]a.md" in svg.replace("&#91;", "[").replace(
            "&#93;", "]"
        )
