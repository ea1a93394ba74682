"""The audit view: the whole repository at once, for its owner.

Findings: every finding with its files, line and the roles whose bundle carries it,
severity first, filtered by typing (code, id, path, role) and by severity; the selected
one's message, hint, files, roles and the other findings on the same objects. Matrix:
objects × roles, each cell a glyph and a short reason, filtered by id glob and "differs
between roles", sorted by id or by how many roles receive each object. Enter goes to the
object in a role's view; ``e`` opens the file in the editor; ``x`` exports.

This is the owner's view (like ``opencontext audit``): it names every object and file.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input, Static, TabbedContent, TabPane

from octui.analysis.audit import Audit, AuditFinding, AuditObject
from octui.core.enums import AuditFormat
from octui.core.timeutil import format_instant
from octui.render.audit import render
from octui.render.findings import glyph
from octui.tui.auditapp import audit_for, jump_in_role, open_in_editor
from octui.tui.auditmodel import (
    LEGEND,
    SEVERITIES,
    SORTS,
    FindingsIndex,
    MatrixFilter,
    also_on,
    matrix_rows,
    object_line,
)
from octui.tui.exporting import ExportExists, ExportRefused, default_export_path, write_atomic
from octui.tui.host import Host
from octui.tui.literal import line as one_line
from octui.tui.screens.export import ExportScreen
from octui.tui.screens.help import HelpScreen
from octui.tui.widgets.audittables import (
    FindingsTable,
    MatrixTable,
    cell_widths,
    prepare_findings,
)
from octui.tui.widgets.results import ReasonCounts
from octui.tui.widgets.rowtable import RowTable

FORMATS = {".json": AuditFormat.JSON, ".csv": AuditFormat.CSV}
"""Export format by the file's suffix; anything else is the Markdown report."""

DEBOUNCE = 0.15


class AuditScreen(Screen[None]):
    """Every finding with who it affects; every object with what each role gets."""

    OWN_KEYS = True
    """The role view's keys are off here (the app checks this): only quit and the palette."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,u", "close", "Back", tooltip="back to the role view"),
        Binding("f1,question_mark", "help", "Help"),
        Binding(
            "slash", "filter", "Filter", tooltip="filter: code, id, path, role (matrix: id glob)"
        ),
        Binding("s", "severity", "Severity", tooltip="findings: all → errors → warnings"),
        Binding("1", "tab('audit-findings')", "Findings", show=False),
        Binding("2", "tab('audit-matrix')", "Matrix", show=False),
        Binding(
            "t",
            "differs",
            "Differs",
            show=False,
            tooltip="matrix: only objects whose fate differs between roles",
        ),
        Binding(
            "o",
            "sort",
            "Sort",
            show=False,
            tooltip="matrix: sort by id / by how many roles receive it",
        ),
        Binding("e", "edit", "Edit", tooltip="open the file in $VISUAL / $EDITOR at the line"),
        Binding("x", "export", "Export", tooltip="export the audit: .json, .csv or .md report"),
    ]

    DEFAULT_CSS = """
    AuditScreen #audit-head { height: 1; padding: 0 1; background: $boost; text-style: bold; }
    AuditScreen #audit-counts { height: auto; max-height: 2; padding: 0 1; color: $text-muted; }
    AuditScreen #audit-tabs { height: 1fr; }
    AuditScreen #audit-tabs > ContentSwitcher { height: 1fr; }
    AuditScreen TabPane { height: 1fr; padding: 0; }
    AuditScreen .audit-bar { height: 1; }
    AuditScreen .audit-bar Input { width: 1fr; }
    AuditScreen .audit-bar Static { width: auto; padding: 0 1; color: $text-muted; }
    AuditScreen RowTable { overflow-x: hidden; }
    AuditScreen #findings-table { height: 1fr; }
    AuditScreen #finding-box {
        height: 1fr; max-height: 14; border-top: solid $primary-background; padding: 0 1;
    }
    AuditScreen #matrix-legend { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    """

    severity: reactive[str] = reactive("all", init=False)

    def __init__(self) -> None:
        super().__init__()
        self.audit: Audit | None = None
        self.index: FindingsIndex | None = None
        self.cell_widths: dict[int, tuple[int, int]] = {}
        """The width of each finding's ids and file:line cells, measured with :attr:`index`."""
        self.matrix_how = MatrixFilter()
        self.findings_text = ""
        self._repo: object = None
        self._as_of: object = None

    def compose(self) -> ComposeResult:
        yield Static("Audit · loading…", id="audit-head", markup=False)
        yield ReasonCounts(id="audit-counts")
        with TabbedContent(id="audit-tabs"):
            with TabPane("1 Findings", id="audit-findings"):
                with Horizontal(classes="audit-bar"):
                    yield Input(
                        placeholder="/ filter: code, id, path or role",
                        compact=True,
                        id="findings-filter",
                    )
                    yield Static("severity: all", id="severity-label", markup=False)
                yield FindingsTable(id="findings-table")
                with VerticalScroll(id="finding-box"):
                    yield Static("", id="finding-detail", markup=False)
            with TabPane("2 Matrix", id="audit-matrix"):
                with Horizontal(classes="audit-bar"):
                    yield Input(
                        placeholder="/ id glob, e.g. pricing.*", compact=True, id="matrix-filter"
                    )
                    yield Static("", id="matrix-mode", markup=False)
                yield Static("", id="matrix-slot")
                yield Static(LEGEND, id="matrix-legend", markup=False)
        yield Footer(compact=True)

    @property
    def host(self) -> Host:
        """The explorer, as its parts see it."""
        return cast("Host", self.app)

    def on_mount(self) -> None:
        app = self.host
        if not app.cursor_blink:
            for field in self.query(Input):
                field.cursor_blink = False
        self.query_one("#matrix-slot").display = False
        self.query_one(FindingsTable).waiting = "auditing every role…"
        self.query_one(FindingsTable).focus()
        self.recompute()
        self.set_interval(0.5, self._follow)

    # -- computing ----------------------------------------------------------------------------

    def _follow(self) -> None:
        """Recompute when the explorer reloaded the repository or moved its instant."""
        app = self.host
        view = app.view
        if self.audit is None or view is None:
            return
        if app.session.repository is not self._repo or view.query.as_of != self._as_of:
            self.recompute()

    @work(exclusive=True, group="audit-view", exit_on_error=False)
    async def recompute(self) -> None:
        app = self.host
        await app.wait_settled()
        if app.error is not None or app.view is None:
            self.query_one("#audit-head", Static).update(
                "Audit · the repository cannot be read: "
                + one_line(app.error[2] if app.error else "")
            )
            return
        repo, as_of = app.session.repository, app.view.query.as_of
        a = await audit_for(app, as_of)
        if a is None:
            return
        index = await asyncio.to_thread(FindingsIndex, a.findings)
        widths = await asyncio.to_thread(cell_widths, index)
        table = self.query_one(FindingsTable)
        text = self.findings_text
        prepared = await asyncio.to_thread(
            prepare_findings, table, index, widths, text, self.severity
        )
        self._repo, self._as_of = repo, as_of
        self.cell_widths = widths
        self.show_audit(a, index)
        if text == self.findings_text:
            rows, keys, widest = prepared
            table.set_rows(rows, index=keys, widths=widest)

    def show_audit(self, a: Audit, index: FindingsIndex) -> None:
        self.audit, self.index = a, index
        revision = f" (git {a.source.commit[:12]})" if a.source.commit else ""
        self.query_one("#audit-head", Static).update(
            f"Audit {format_instant(a.as_of)}{revision} · {len(a.objects)} objects · "
            f"{len(a.roles)} roles · {a.errors} errors, {a.warnings} warnings"
        )
        counts = self.query_one("#audit-counts", ReasonCounts)
        counts.parts = [f"{code} {n}" for code, n in index.code_counts()] or ["no findings"]
        counts.refresh(layout=True)
        self._mount_matrix(a)

    def _refill_findings(self) -> None:
        if self.index is None:
            return
        self._filter_findings(self.findings_text, debounce=False)

    def _mount_matrix(self, a: Audit) -> None:
        old = self.query(MatrixTable)
        if old and old.first().roles == list(a.roles):
            self._refill_matrix()
            return
        old.remove()
        table = MatrixTable(a.roles, id="matrix-table")
        self.query_one("#audit-matrix", TabPane).mount(table, after="#matrix-slot")
        self.call_after_refresh(self._refill_matrix)

    def _refill_matrix(self) -> None:
        if self.audit is None:
            return
        how = self.matrix_how
        tables = self.query(MatrixTable)
        if not tables:
            return
        tables.first().set_rows(matrix_rows(self.audit.objects, how))
        self.query_one("#matrix-mode", Static).update(
            f"differs only: {'on' if how.differs else 'off'} (t) · sort: {how.sort} (o)"
        )

    @property
    def matrix(self) -> MatrixTable:
        return self.query_one(MatrixTable)

    # -- typing ---------------------------------------------------------------------------

    @on(Input.Changed, "#findings-filter")
    def _findings_typed(self, event: Input.Changed) -> None:
        self._filter_findings(event.value)

    @work(exclusive=True, group="findings-filter", exit_on_error=False)
    async def _filter_findings(self, text: str, debounce: bool = True) -> None:
        if debounce:
            await asyncio.sleep(DEBOUNCE)  # a newer keystroke cancels this one
        index, widths = self.index, self.cell_widths
        self.findings_text = text
        if index is None:
            return
        table = self.query_one(FindingsTable)
        rows, keys, widest = await asyncio.to_thread(
            prepare_findings, table, index, widths, text, self.severity
        )
        if index is self.index and text == self.findings_text:
            table.set_rows(rows, index=keys, widths=widest)

    @on(Input.Changed, "#matrix-filter")
    def _matrix_typed(self, event: Input.Changed) -> None:
        self._filter_matrix(event.value)

    @work(exclusive=True, group="matrix-filter", exit_on_error=False)
    async def _filter_matrix(self, text: str) -> None:
        await asyncio.sleep(DEBOUNCE)
        a = self.audit
        self.matrix_how = MatrixFilter(text, self.matrix_how.differs, self.matrix_how.sort)
        if a is None:
            return
        rows = await asyncio.to_thread(matrix_rows, a.objects, self.matrix_how)
        if a is self.audit and self.query(MatrixTable):
            self.matrix.set_rows(rows)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self._active_table().focus()

    # -- selection ------------------------------------------------------------------------

    def on_row_table_highlighted(self, event: RowTable.Highlighted) -> None:
        event.stop()
        if isinstance(event.table, FindingsTable):
            self._show_finding(event.row)

    def _show_finding(self, f: AuditFinding | None) -> None:
        box = self.query_one("#finding-detail", Static)
        if f is None or self.audit is None:
            box.update("")
            return
        box.update("\n".join(self.finding_lines(f)))

    def finding_lines(self, f: AuditFinding) -> list[str]:
        """What the detail box says about a finding (plain text)."""
        assert self.audit is not None
        w = f.finding
        roles = one_line(", ".join(f.roles)) or "(no role's bundle carries it)"
        lines = [
            f"{glyph(w)} {w.code.value} ({w.severity.value}) · roles: {roles}",
            one_line(w.message),
        ]
        if w.hint:
            lines.append(f"→ {one_line(w.hint)}")
        files = [
            f"{p}:{w.line}" if n == 0 and w.line is not None else p for n, p in enumerate(w.paths)
        ]
        lines.append("files: " + (one_line(", ".join(files)) or "(none)"))
        lines += [one_line(s) for s in also_on(self.audit, f)]
        if w.ids:
            role = self._role_for(f)
            lines.append(
                f"Enter: {one_line(w.ids[0])} in role {one_line(role or '?')} · e: edit "
                f"{one_line(w.paths[0]) if w.paths else 'its file'}"
            )
        return lines

    def _role_for(self, f: AuditFinding) -> str | None:
        current = self.host.inputs
        role = current.role if current is not None else None
        if f.roles and role not in f.roles:
            return f.roles[0]
        return role

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        event.stop()
        row = event.row
        if isinstance(row, AuditFinding):
            if not row.finding.ids:
                self.app.notify("this finding names no object", severity="warning")
                return
            self._jump(self._role_for(row), row.finding.ids[0])
        elif isinstance(row, AuditObject) and isinstance(event.table, MatrixTable):
            self._jump(event.table.current_role, row.obj.key)

    def _jump(self, role: str | None, ref: str) -> None:
        app = self.host

        async def jump() -> None:
            await jump_in_role(app, role, ref)

        app.run_worker(
            jump, name="the jump", group="audit-jump", exclusive=True, exit_on_error=False
        )

    # -- actions --------------------------------------------------------------------------

    def _active_tab(self) -> str:
        return self.query_one("#audit-tabs", TabbedContent).active

    def _active_table(self) -> RowTable:
        if self._active_tab() == "audit-matrix" and self.query(MatrixTable):
            return self.matrix
        return self.query_one(FindingsTable)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_tab(self, pane: str) -> None:
        self.query_one("#audit-tabs", TabbedContent).active = pane
        self._active_table().focus()  # now: the keys typed next go to the table

    def action_filter(self) -> None:
        which = "#matrix-filter" if self._active_tab() == "audit-matrix" else "#findings-filter"
        self.set_focus(self.query_one(which))

    def action_severity(self) -> None:
        self.severity = SEVERITIES[(SEVERITIES.index(self.severity) + 1) % len(SEVERITIES)]

    def watch_severity(self, value: str) -> None:
        label = {"all": "all", "error": "errors", "warning": "warnings"}[value]
        self.query_one("#severity-label", Static).update(f"severity: {label} (s)")
        self._refill_findings()

    def action_differs(self) -> None:
        h = self.matrix_how
        self.matrix_how = MatrixFilter(h.glob, not h.differs, h.sort)
        self._refill_matrix()

    def action_sort(self) -> None:
        h = self.matrix_how
        self.matrix_how = MatrixFilter(h.glob, h.differs, SORTS[(SORTS.index(h.sort) + 1) % 2])
        self._refill_matrix()

    async def action_edit(self) -> None:
        a = self.audit
        if a is None:
            return
        row = self._active_table().current_row
        if isinstance(row, AuditFinding):
            if not row.finding.paths:
                self.app.notify("this finding names no file", severity="warning")
                return
            rel, line = row.finding.paths[0], row.finding.line
        elif isinstance(row, AuditObject):
            rel, line = row.obj.path, object_line(a, row.obj.path)
        else:
            return
        if await open_in_editor(self.host, rel, line):
            self.recompute()

    def action_export(self) -> None:
        app = self.host
        a = self.audit
        if a is None:
            app.notify("the audit is not ready yet", severity="warning")
            return
        default = default_export_path(app.root, None).with_name("opencontext-audit.md")
        summary = (
            f"{len(a.findings)} findings · {len(a.objects)} objects · {len(a.roles)} roles — "
            "the suffix picks the format: .md report, .json, .csv matrix"
        )

        def done(result: tuple[Path, bool] | None) -> None:
            if result is not None:
                self.export_to(a, result[0], overwrite=result[1])

        app.push_screen(
            ExportScreen(default, app.root, summary, title="Export the audit (.md, .json, .csv)"),
            done,
        )

    # a description: else Textual builds one from repr(a), the whole audit
    @work(exclusive=True, group="audit-export", exit_on_error=False, description="export")
    async def export_to(self, a: Audit, path: Path, *, overwrite: bool = False) -> Path | None:
        """Write the audit atomically, in the format its suffix names; never into the
        repository."""
        app = self.host
        fmt = FORMATS.get(path.suffix.lower(), AuditFormat.MARKDOWN)
        text = await asyncio.to_thread(render, a, fmt)
        try:
            written = await asyncio.to_thread(
                write_atomic, path, text, app.root, overwrite=overwrite
            )
        except ExportExists as exc:
            app.notify(one_line(f"{exc}; not overwritten"), severity="warning")
            return None
        except ExportRefused as exc:
            app.notify(one_line(str(exc)), severity="error", title="Export refused")
            return None
        app.notify(one_line(f"wrote {written} ({fmt.value})"), title="Exported")
        return written

    def action_help(self) -> None:
        app = self.host
        rows = []
        for b in [*self.BINDINGS, *MatrixTable.BINDINGS]:
            if isinstance(b, Binding):
                rows.append((b.key.replace("slash", "/"), b.tooltip or b.description))
        rows.append(("enter", "finding: its object in a role it affects · matrix: that role"))
        app.push_screen(HelpScreen([("Audit view", rows), *app.help_groups()]))
