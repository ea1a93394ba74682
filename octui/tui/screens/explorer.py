"""The explorer's own screen: its layout, the selection and the fields' events.

It is the first screen of the app's stack (``app.main``; help, error, export and audit
screens go on top of it) and it owns what the eye sees of one resolution:

- the layout: context header, inputs, filter bar, the result tabs
  (:data:`RESULT_TABS`) beside the timeline and the detail pane, the status line; below
  :data:`NARROW` columns the side pane is shown on demand;
- the selection: the highlighted row of the active table fills the detail pane, the
  timeline and the Roles block, and is announced as
  :class:`~octui.tui.messages.SelectionChanged`; :meth:`ExplorerScreen.jump` shows any
  ``id@version`` in the tab that holds it;
- the fields: each edit becomes new :class:`~octui.tui.state.Inputs` handed to
  :meth:`~octui.tui.host.Host.set_inputs` (the app resolves them).

The screen keeps no state of the resolution: it reads the app's (:class:`~octui.tui.host.Host`)
and the app keeps the keys (their actions call the methods here).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import cast

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Checkbox, Footer, Input, Select, TabbedContent

from octui.core.model import Exclusion, Finding
from octui.core.textsafe import inert
from octui.load.config import load_config
from octui.resolve.result import Included
from octui.tui.auditapp import show_roles_block
from octui.tui.host import Host
from octui.tui.messages import Row, SelectionChanged
from octui.tui.settings import initial_role, load_settings
from octui.tui.state import warning_key
from octui.tui.widgets.detail import DetailPane
from octui.tui.widgets.filterbar import FilterBar
from octui.tui.widgets.footer import SteadyFooter
from octui.tui.widgets.header import Context, ContextHeader, is_bundled_sample, utc_text
from octui.tui.widgets.inputs import InputsPane, parse_as_of, parse_limit, parse_min
from octui.tui.widgets.results import (
    ExcludedPane,
    IncludedTable,
    ResultTab,
    ResultTabs,
    WarningsTable,
)
from octui.tui.widgets.rowtable import RowTable
from octui.tui.widgets.status import StatusBar
from octui.tui.widgets.timeline import TimelinePane

NARROW = 110
"""Below this many columns the detail pane is shown on demand instead of beside the results."""

RESULT_TABS: list[tuple[str, str, Callable[[], Widget]]] = [
    ("tab-included", "1 Included", lambda: IncludedTable(id="included-table")),
    ("tab-excluded", "2 Excluded", lambda: ExcludedPane(id="excluded-pane")),
    ("tab-warnings", "3 Warnings", lambda: WarningsTable(id="warnings-table")),
]
"""``(pane id, title, factory)`` of the result tabs; extensions may append."""


def declared_roles(root: Path) -> list[str]:
    """The roles of the configuration in declaration order, read up front so the role
    select starts filled."""
    try:
        return list(load_config(root).roles)
    except Exception:  # the loader reports problems properly a moment later
        return []


class ExplorerScreen(Screen[None]):
    """Inputs, result tabs, timeline and detail of the role being explored."""

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    """Textual's :attr:`Screen.focused`, but a new focus does not repaint the whole screen:
    the widgets that lose and gain it are restyled (``:focus``) and repaint themselves.
    Textual's repaints every line of the screen (4-6 ms of the UI thread at 50k objects),
    on every tab key and twice while a role is picked."""

    def __init__(self) -> None:
        super().__init__(id="_default")  # the id Textual gives the first screen
        self._jump_cycle: tuple[tuple[object, ...], int] | None = None
        """The warning last jumped from and which of its objects was shown."""
        self._bundled: tuple[Path, bool] | None = None
        """Whether the root is the bundled sample (resolving two paths: asked once)."""
        self._shown: tuple[object, object] | None = None
        """The (view, row) the detail pane last showed (see :meth:`select_again`)."""

    @property
    def host(self) -> Host:
        return cast(Host, self.app)

    def widgets(self) -> ComposeResult:
        """The screen's widgets, composed by the app (``OctuiApp.compose``) so they are
        mounted before the app's ``on_mount`` runs, as for any app's first screen."""
        host = self.host
        roles = declared_roles(host.root)
        if roles and host.inputs.role is None:
            role = initial_role(roles, load_settings().role_for(host.root))
            host.inputs = replace(host.inputs, role=role)
        yield ContextHeader(id="context")
        yield InputsPane(roles, host.inputs.role, self._choose_role, id="inputs")
        yield FilterBar(id="filter-bar")
        with Horizontal(id="body"):
            with ResultTabs(id="results"):
                for pane_id, title, factory in RESULT_TABS:
                    with ResultTab(title, id=pane_id):
                        yield factory()
            with Vertical(id="side"):
                yield TimelinePane(id="timeline")
                yield DetailPane(id="detail")
        yield StatusBar(id="status")
        yield SteadyFooter(compact=True)

    def show_loading(self) -> None:
        """Before the first load: the inputs, the context and "loading …" everywhere."""
        host = self.host
        if not host.cursor_blink:
            for field in self.query(Input):
                field.cursor_blink = False
        self.query_one(InputsPane).show(host.inputs)
        self.show_context()
        self.query_one(StatusBar).show(None, loading=host.root.name or str(host.root))
        for table in self.query(RowTable):
            table.waiting = f"loading {host.root.name or host.root}…"

    def show_context(self) -> None:
        """The context header: repository, revision, role, task and as_of."""
        try:
            header = self.query_one(ContextHeader)
        except NoMatches:
            return
        host = self.host
        view, repo, inputs = host.view, host.session.repository, host.inputs
        following = inputs.as_of is None
        as_of = inputs.as_of if not following else (view.query.as_of if view else None)
        known_at = repo.source.known_at if repo is not None else None
        header.show(
            Context(
                repository=host.root.name or str(host.root),
                bundled_sample=self.bundled_sample(host.root),
                revision=host.revision,
                commit=host.revision_commit,
                known_at=known_at if host.revision is not None else None,
                role=inputs.role,
                task=inputs.task,
                as_of=as_of,
                following_now=following,
            )
        )

    def bundled_sample(self, root: Path) -> bool:
        """:func:`is_bundled_sample` of ``root``, asked once per root (the header shows it
        on every input change and every view)."""
        if self._bundled is None or self._bundled[0] != root:
            self._bundled = (root, is_bundled_sample(root))
        return self._bundled[1]

    # -- layout --------------------------------------------------------------------------

    def layout_for(self, width: int) -> None:
        """Side by side, or (below :data:`NARROW` columns) the side pane on demand."""
        narrow = width < NARROW
        if narrow == self.has_class("-narrow"):
            return
        self.set_class(narrow, "-narrow")
        # narrow: the footer offers d (detail) instead of ^p (still in F1 help)
        for footer in self.query(Footer):
            footer.show_command_palette = not narrow
        self.app.refresh_bindings()

    @property
    def narrow(self) -> bool:
        return self.has_class("-narrow")

    def show_tab(self, pane_id: str) -> None:
        """Show a result tab and focus its table, and its row in the detail pane at once:
        the tab's own message (which selects it too) comes a frame later, and the detail
        pane would cost a second layout and paint of the screen."""
        self.query_one("#results", TabbedContent).active = pane_id
        self.remove_class("-show-side")
        self.focus_results()
        self.refresh_selection()

    def focus_results(self) -> None:
        table = self.active_table()
        if table is not None:
            table.focus()

    def cycle_reason(self) -> None:
        """Show the Excluded tab, filtered by the next reason."""
        self.query_one("#results", TabbedContent).active = "tab-excluded"
        self.query_one(ExcludedPane).cycle_reason()
        self.focus_results()

    def toggle_side(self) -> None:
        """Into the detail pane and back (narrow: show or hide the side pane)."""
        detail = self.query_one(DetailPane)
        if self.narrow:
            self.toggle_class("-show-side")
            if self.has_class("-show-side"):
                detail.focus()
            else:
                self.focus_results()
        elif detail.has_focus:
            self.focus_results()
        else:
            detail.focus()  # the detail pane scrolls with the arrows, PgUp/PgDn, Home/End

    def back_to_results(self) -> None:
        if self.has_class("-show-side"):
            self.remove_class("-show-side")
        self.focus_results()

    # -- selection -----------------------------------------------------------------------

    def active_table(self) -> RowTable | None:
        """The table of the result tab on show."""
        tabs = self.query_one("#results", TabbedContent)
        pane = tabs.get_pane(tabs.active) if tabs.active else None
        if pane is None:
            return None
        tables = list(pane.query(RowTable))
        return tables[0] if tables else None

    def refresh_selection(self) -> None:
        """Select the active table's current row again (a new view or another tab)."""
        table = self.active_table()
        self.select_again(table.current_row if table is not None else None)

    def select_again(self, item: Row | None) -> None:
        """:meth:`select` unless ``item`` of the view on show is what the pane shows already:
        the app selects a new view's row when it applies the view, and the table announces it
        again; the second would draw the same detail, timeline and Roles block again."""
        shown = self._shown
        if shown is not None and shown[0] is self.host.view and shown[1] is item:
            return
        self.select(item)

    def select(self, item: Row | None) -> None:
        """Show ``item`` in the detail pane, the timeline and the Roles block."""
        host = self.host
        host.selected = item
        view = host.view
        self._shown = (view, item)
        self.query_one(DetailPane).show(view, item)
        host.post_message(SelectionChanged(view, item))
        show_roles_block(host, view, item)
        timeline = self.query_one(TimelinePane)
        if view is None or item is None:
            timeline.show(view, None)
        elif isinstance(item, Included):
            timeline.show(view, item.obj.id)
        elif isinstance(item, Exclusion):
            if item.reason.is_denial:
                timeline.show(view, None, denied=f"{item.reason.value}: only id and reason")
            elif view.object_of(item) is None:
                timeline.show(view, None, denied=f"{item.reason.value}")
            else:
                timeline.show(view, item.id)
        elif item.ids:
            timeline.show(view, item.ids[0])
        else:
            timeline.show(view, None)

    def ready(self) -> bool:
        """False while the app is shutting down (workers may still finish then)."""
        try:
            self.query_one("#results", TabbedContent)
        except NoMatches:
            return False
        return True

    def on_row_table_highlighted(self, event: RowTable.Highlighted) -> None:
        if not self.ready():
            return
        if event.table is self.active_table():
            self.select_again(event.row)

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        if isinstance(event.row, Finding):
            self._jump_to_finding(event.row)
        elif self.narrow:
            self.add_class("-show-side")

    def _jump_to_finding(self, finding: Finding) -> None:
        """Show the warning's object; Enter again shows its next one."""
        if not finding.ids:
            self.host.notify("this warning names no object")
            return
        key = warning_key(finding)
        index = 0
        if self._jump_cycle is not None and self._jump_cycle[0] == key:
            index = (self._jump_cycle[1] + 1) % len(finding.ids)
        self._jump_cycle = (key, index)
        target = finding.ids[index]
        if len(finding.ids) > 1:
            self.host.notify(
                inert(f"{index + 1}/{len(finding.ids)}: {target} (Enter on the warning: next)"),
                markup=False,
            )
        self.jump(target)

    def jump(self, ref: str) -> None:
        """Show the object ``id`` or ``id@version`` in the pane that holds it."""
        view = self.host.view
        if view is None:
            return
        object_id, _, version = ref.partition("@")

        def matches(i: str, v: int | None) -> bool:
            return i == object_id and (not version or str(v) == version)

        for index, inc in enumerate(view.included):
            if matches(inc.obj.id, inc.obj.version):
                self.show_tab("tab-included")
                self.query_one("#included-table", IncludedTable).move_to(index)
                self.select(inc)
                return
        excluded = self.query_one(ExcludedPane)
        candidates = [e for e in view.exclusions if matches(e.id, e.version)]
        if not candidates and version:
            candidates = [e for e in view.exclusions if e.id == object_id]
        if not candidates:
            self.host.notify(
                inert(f"{ref} is not in this resolution"), severity="warning", markup=False
            )
            return
        target = candidates[0]
        if excluded.reason not in ("all", target.reason.value):
            excluded.set_reason("all")
        self.show_tab("tab-excluded")
        excluded_table = excluded.table
        index = next(i for i, e in enumerate(excluded_table.rows) if e is target)
        excluded_table.move_to(index)
        self.select(target)

    # -- the fields ----------------------------------------------------------------------

    def _choose_role(self, role: str) -> None:
        self.host.set_inputs(replace(self.host.inputs, role=role))
        # the choice is made: back to the table, so j/k and the tab keys work again
        self.app.call_after_refresh(self.focus_results)

    @on(Select.Changed, "#role")
    def _role_changed(self, event: Select.Changed) -> None:
        # a role picked from the list is chosen already (``RoleSelect.chosen``)
        if isinstance(event.value, str) and event.value != self.host.inputs.role:
            self._choose_role(event.value)

    @on(Input.Changed, "#task")
    def _task_changed(self, event: Input.Changed) -> None:
        self.host.set_inputs(replace(self.host.inputs, task=event.value))

    @on(Input.Changed, "#as-of")
    def _as_of_changed(self, event: Input.Changed) -> None:
        if not event.value.strip():
            return  # half-way through typing: keep the current instant
        ok, when = parse_as_of(event.value)
        event.input.set_class(not ok, "-invalid")
        host = self.host
        kept = host.view.query.as_of if host.view is not None else host.inputs.as_of
        self.query_one(InputsPane).show_as_of_problem(
            event.value, None if kept is None else utc_text(kept)
        )
        if ok:
            assert when is None or isinstance(when, datetime)
            host.set_inputs(host.inputs.with_as_of(when))

    @on(Input.Changed, "#limit")
    def _limit_changed(self, event: Input.Changed) -> None:
        ok, value = parse_limit(event.value)
        event.input.set_class(not ok, "-invalid")
        if ok:
            self.host.set_inputs(replace(self.host.inputs, limit=value))

    @on(Input.Changed, "#min-relevance")
    def _min_changed(self, event: Input.Changed) -> None:
        ok, value = parse_min(event.value)
        event.input.set_class(not ok, "-invalid")
        if ok:
            self.host.set_inputs(replace(self.host.inputs, min_relevance=value))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if event.input.id in ("task", "as-of", "limit", "min-relevance", "table-filter"):
            self.focus_results()

    @on(Checkbox.Changed, "#historical")
    def _historical_changed(self, event: Checkbox.Changed) -> None:
        self.host.set_inputs(replace(self.host.inputs, include_historical=event.value))

    @on(Checkbox.Changed, "#strict")
    def _strict_changed(self, event: Checkbox.Changed) -> None:
        self.host.set_inputs(replace(self.host.inputs, strict=event.value))


__all__ = ["NARROW", "RESULT_TABS", "ExplorerScreen", "declared_roles"]
