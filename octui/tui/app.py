"""The explorer application: inputs → resolver (off the UI thread) → panes.

Structure (so features can be added in their own modules):

- the app owns one :class:`~octui.tui.state.Inputs` value and one
  :class:`~octui.tui.state.View` (the latest resolution);
- every input change calls :meth:`OctuiApp.request_resolve`: an exclusive,
  debounced worker resolves in a thread and hands the view to
  :meth:`OctuiApp.apply_view`, which drops anything but the newest generation;
- every widget with a ``show_view(view)`` method receives each new view
  (:meth:`apply_view` queries for them), so a new pane only has to define it;
- result tabs come from :data:`RESULT_TABS`; palette commands from
  :meth:`OctuiApp.palette_commands`; help from the bindings themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from textual import on, work
from textual.actions import SkipAction
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Checkbox, Footer, Input, Select, TabbedContent, TabPane

from octui.bundle.bundle import bundle_dict, dumps_bundle
from octui.core.model import Exclusion, Finding
from octui.core.textsafe import inert
from octui.core.timeutil import now_utc
from octui.load.config import ConfigError, NotARepository, load_config
from octui.load.tree import FsTree
from octui.load.watching import open_events
from octui.resolve.result import Included, UnknownRole
from octui.session import Session
from octui.tui.aids import AID_BINDINGS, ExplorerAids, changed_paths, reload_note
from octui.tui.auditapp import edit_selected, roles_settled, show_roles_block
from octui.tui.background import DaemonExecutor, in_daemon_thread
from octui.tui.commands import OctuiCommands
from octui.tui.exporting import ExportExists, ExportRefused, default_export_path, write_atomic
from octui.tui.extras import EXTRA_BINDINGS, ExplorerExtras
from octui.tui.keys import keys_label
from octui.tui.literal import line, toast_text
from octui.tui.looks import apply_theme
from octui.tui.screens.error import ErrorScreen
from octui.tui.screens.export import ExportScreen
from octui.tui.screens.help import HelpScreen
from octui.tui.settings import initial_role, load_settings, remember_role
from octui.tui.state import END_OF_TIME_NOTE, Inputs, View, make_view, warning_key
from octui.tui.timetravel import TIME_BINDINGS, TimeTravel
from octui.tui.web import deliver_bundle, guard_web_session
from octui.tui.widgets.detail import DetailPane
from octui.tui.widgets.filterbar import FilterBar
from octui.tui.widgets.header import ContextHeader, utc_text
from octui.tui.widgets.inputs import InputsPane, parse_as_of, parse_limit, parse_min
from octui.tui.widgets.results import ExcludedPane, IncludedTable, WarningsTable
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


class OctuiApp(TimeTravel, ExplorerAids, ExplorerExtras, App[None]):
    """Explore what a role is given, what is left out and why, at any instant."""

    TITLE = "octui"
    CSS_PATH = "app.tcss"
    COMMANDS: ClassVar[set[Any]] = App.COMMANDS | {OctuiCommands}
    ENABLE_COMMAND_PALETTE = True
    AUTO_FOCUS = "#included-table"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", tooltip="every key (F1 too)"),
        Binding("f1", "help", "Help", show=False),
        # The keys that move into a field are priority bindings (see _focus_key).
        Binding("r", "focus_role", "Role", tooltip="choose the role", priority=True),
        Binding(
            "a",
            "focus_as_of",
            "as_of",
            tooltip="edit as_of: now, a date or a datetime (UTC unless it has an offset)",
            priority=True,
        ),
        Binding(
            "t",
            "focus_task",
            "Task",
            show=False,
            tooltip="edit the task (it orders the bundle)",
            priority=True,
        ),
        Binding(
            "slash",
            "filter",
            "Filter",
            tooltip="filter the table on show by id or text (Enter keeps, Esc clears)",
            priority=True,
        ),
        Binding(
            "2",
            "show_tab('tab-excluded')",
            "Why excluded",
            tooltip="the Excluded tab: every object left out, its reason, and why not",
        ),
        Binding("left_square_bracket", "step_day(-1)", "−1 day", show=False),
        Binding(
            "right_square_bracket",
            "step_day(1)",
            "±day",
            key_display="[ ]",
            show=False,
            tooltip="+1 day",
        ),
        Binding("left_curly_bracket", "step_month(-1)", "−1 month", show=False),
        Binding(
            "right_curly_bracket",
            "step_month(1)",
            "±month",
            key_display="{ }",
            show=False,
            tooltip="+1 month",
        ),
        Binding(
            "n",
            "toggle_now",
            "Now⇄date",
            show=False,
            tooltip="as_of: toggle between now and the chosen date",
        ),
        Binding("h", "flip('historical')", "Toggle include-historical", show=False),
        Binding("s", "flip('strict')", "Toggle strict", show=False),
        Binding("l", "focus_input('limit')", "Edit limit", show=False, priority=True),
        Binding(
            "m", "focus_input('min-relevance')", "Edit min-relevance", show=False, priority=True
        ),
        Binding("1", "show_tab('tab-included')", "Included pane", show=False),
        Binding("3", "show_tab('tab-warnings')", "Warnings pane", show=False),
        Binding("f", "cycle_reason", "Filter exclusions by reason", show=False),
        Binding(
            "d",
            "toggle_side",
            "Detail",
            tooltip="into the detail pane (it scrolls with the keys); again: back to the table",
        ),
        Binding("escape", "results", "Back to the results", show=False),
        Binding("x", "export", "Export", tooltip="export the bundle (JSON) to a file"),
        Binding(
            "e",
            "edit",
            "Edit",
            show=False,
            tooltip="open the selected object's file in $VISUAL / $EDITOR",
        ),
        Binding(
            "u", "audit", "Audit", show=False, tooltip="audit view: every finding and role at once"
        ),
        Binding("c", "copy_digest", "Copy digest", show=False),
        Binding("ctrl+r", "reload", "Reload from disk", show=False),
        *EXTRA_BINDINGS,
        *AID_BINDINGS,
        *TIME_BINDINGS,
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        root: str | Path,
        *,
        role: str | None = None,
        task: str = "",
        as_of: datetime | None = None,
        include_historical: bool = False,
        strict: bool = False,
        limit: int | None = None,
        min_relevance: float | None = None,
        watch: bool = True,
        poll_interval: float = 1.0,
        debounce: float = 0.15,
        cursor_blink: bool = True,
        cache: bool = True,
        session: Session | None = None,
        clock: Callable[[], datetime] = now_utc,
        clock_check: float = 5.0,
        theme: str | None = None,
        audit: bool = False,
    ) -> None:
        super().__init__()
        self.open_audit = audit
        """Open on the audit view (``octui --audit``)."""
        self.requested_theme = theme
        """``--theme`` (this run only); else the saved theme; else Textual's default."""
        self.root = Path(root)
        self.session = session or Session(
            self.root, store=_parse_store(self.root) if cache else None
        )
        """Loads and resolves (in threads); tests may pass their own."""
        self.clock = clock
        """What "now" is, read at each resolution (tests may pass a fake clock)."""
        self.clock_check = clock_check
        self.inputs = Inputs(
            role=role,
            task=task,
            as_of=as_of,
            chosen=as_of,
            include_historical=include_historical,
            strict=strict,
            limit=limit,
            min_relevance=min_relevance,
        )
        self.requested_role = role
        self._remembered_role: str | None = None
        self.view: View | None = None
        self.watch_disk = watch
        self.poll_interval = poll_interval
        self.debounce = debounce
        self.cursor_blink = cursor_blink
        self.generation = 0
        """Generation of the newest resolution asked for."""
        self.applied_generation = 0
        self.error: tuple[str, str, str] | None = None
        self.error_screen: ErrorScreen | None = None
        self.loaded = False
        self._seen_fingerprint: tuple[object, ...] | None = None
        self._jump_cycle: tuple[tuple[object, ...], int] | None = None
        self.selected: Included | Exclusion | Finding | None = None
        self.settled = asyncio.Event()
        self._executor = DaemonExecutor("octui-resolve")  # a thread quitting never waits for

    # -- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        roles = _declared_roles(self.root)
        if roles and self.inputs.role is None:
            role = initial_role(roles, load_settings().role_for(self.root))
            self.inputs = replace(self.inputs, role=role)
        yield ContextHeader(id="context")
        yield InputsPane(roles, self.inputs.role, id="inputs")
        yield FilterBar(id="filter-bar")
        with Horizontal(id="body"):
            with TabbedContent(id="results"):
                for pane_id, title, factory in RESULT_TABS:
                    with TabPane(title, id=pane_id):
                        yield factory()
            with Vertical(id="side"):
                yield TimelinePane(id="timeline")
                yield DetailPane(id="detail")
        yield StatusBar(id="status")
        yield Footer(compact=True)

    def on_unmount(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
        self.close_extras()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Show a notification whose text is always literal.

        Notifications carry role names, ids, titles, paths and error messages: markup
        is never interpreted (``markup`` is accepted for compatibility and ignored) and
        control characters are shown as visible escapes, in the message and the title.
        Every toast of the explorer, its screens and widgets comes through here.
        """
        del markup
        super().notify(
            toast_text(message),
            title=line(title) if title else "",
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def on_mount(self) -> None:
        apply_theme(self, self.requested_theme)
        if self.is_web:
            guard_web_session(self)
        self._layout_for(self.size.width)
        if not self.cursor_blink:
            for field in self.main.query(Input):
                field.cursor_blink = False
        self.main.query_one(InputsPane).show(self.inputs)
        self.show_context()
        self.main.query_one(StatusBar).show(None, loading=self.root.name or str(self.root))
        for table in self.main.query(RowTable):
            table.waiting = f"loading {self.root.name or self.root}…"
        self.reload_repository()
        if self.watch_disk:
            self.watch_repository()
        self.set_interval(self.clock_check, self.follow_clock)
        if self.open_audit:
            self.action_audit()

    def follow_clock(self) -> None:
        """Following "now": re-resolve when the minute changes, so as_of stays honest."""
        view = self.view
        if self.inputs.as_of is not None or view is None or not self.loaded:
            return
        if self.applied_generation != self.generation:
            return  # a resolution is on its way (it reads the clock itself)
        now = self.clock()
        if now.replace(second=0, microsecond=0) != view.query.as_of.replace(
            second=0, microsecond=0
        ):
            self.request_resolve(debounce=False)

    def on_resize(self, event: Any) -> None:
        self._layout_for(event.size.width)

    def _layout_for(self, width: int) -> None:
        narrow = width < NARROW
        if narrow == self.main.has_class("-narrow"):
            return
        self.main.set_class(narrow, "-narrow")
        # narrow: the footer offers d (detail) instead of ^p (still in F1 help)
        for footer in self.main.query(Footer):
            footer.show_command_palette = not narrow
        self.refresh_bindings()

    @property
    def narrow(self) -> bool:
        return self.main.has_class("-narrow")

    # -- loading and watching ------------------------------------------------------------

    @work(exclusive=True, group="load", exit_on_error=False)
    async def reload_repository(self) -> None:
        """(Re)load the repository in a thread; show an error screen when it cannot be read."""
        self.settled.clear()
        session = self.session
        before, seen_by = self._seen_fingerprint, getattr(self, "_fingerprint_session", None)
        self._fingerprint_session = session
        try:
            await in_daemon_thread(self._load_once)
        except NotARepository as exc:
            await self.show_error(
                "Not an OpenContext repository",
                str(self.root / "opencontext.yaml"),
                "not found: the folder is not an OpenContext repository until it holds "
                "opencontext.yaml",
            )
            del exc
            return
        except ConfigError as exc:
            await self.show_error(
                "The configuration cannot be read",
                exc.file + (f" — key {exc.key}" if exc.key else ""),
                exc.problem,
            )
            return
        except Exception as exc:  # never a traceback: say what failed
            await self.show_error("The repository cannot be read", str(self.root), str(exc))
            return
        self.clear_error()
        after = self._seen_fingerprint
        if self.loaded and before is not None and after is not None and seen_by is session:
            # an edit on disk (or ctrl+r): say what the reload found, in words
            self.notify(inert(reload_note(changed_paths(before, after))), title="Reload")
        self.loaded = True
        self._roles_changed()
        self.request_resolve(debounce=False)

    def _load_once(self) -> None:
        """Load (in a worker thread) and remember what the load's own scan saw: one walk of
        the tree at start, not two. After a failed load, what is on disk now; if that is no
        longer the failure the load saw (the config was just fixed), nothing, so the next
        check reloads."""
        try:
            self.session.load()
        except BaseException:
            seen = self.session.fingerprint()
            self._seen_fingerprint = seen if seen[0] in ("no-config", "bad-config") else None
            raise
        self._seen_fingerprint = self.session.loader.fingerprint

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_repository(self) -> None:
        """Reload when the files changed (also while the error screen shows): on filesystem
        events where they can be had (:mod:`octui.load.watching`), else by polling. Either way
        the fingerprint confirms a change before anything reloads."""
        if isinstance(self.session.tree, FsTree):
            events = open_events(self.session.root)
            if events is not None:
                try:
                    while await events.next():
                        await self._reload_if_changed()
                finally:
                    events.close()
        await self._poll_repository()

    async def _reload_if_changed(self) -> None:
        with contextlib.suppress(Exception):
            if await in_daemon_thread(self.session.fingerprint) != self._seen_fingerprint:
                self.reload_repository()

    async def _poll_repository(self) -> None:
        interval = self.poll_interval
        while True:
            await asyncio.sleep(interval)
            started = time.perf_counter()
            try:
                fingerprint = await in_daemon_thread(self.session.fingerprint)
            except Exception:
                continue
            # a huge repository takes a while to stat: never spend more than ~1/5 of the time
            interval = max(self.poll_interval, 5 * (time.perf_counter() - started))
            if fingerprint != self._seen_fingerprint:
                self.reload_repository()

    def action_reload(self) -> None:
        self.reload_repository()

    async def show_error(self, title: str, where: str, problem: str) -> None:
        """Show (or update) the error screen; ``error`` is set once it is on screen."""
        if self.error_screen is not None:
            self.error_screen.update_error(title, where, problem)
        else:
            self.error_screen = ErrorScreen(title, where, problem)
            await self.push_screen(self.error_screen)
            await asyncio.sleep(0)
        self.error = (title, where, problem)
        self.settled.set()

    def clear_error(self) -> None:
        self.error = None
        screen, self.error_screen = self.error_screen, None
        if screen is not None:
            while screen in self.screen_stack and len(self.screen_stack) > 1:
                self.pop_screen()

    def _roles_changed(self) -> None:
        repo = self.session.repository
        assert repo is not None
        roles = list(repo.config.roles)  # as declared: the first one is the default
        role = self.inputs.role
        if role not in roles:
            if role is not None and self.view is not None:
                self.notify(
                    inert(
                        f"role {role!r} is no longer declared; "
                        f"showing {roles[0] if roles else 'none'}",
                        keep_newlines=False,
                    ),
                    severity="warning",
                    markup=False,  # role names come from the repository's configuration
                )
            elif role is not None:
                self.notify(
                    inert(
                        f"unknown role {role!r}; declared roles: {', '.join(roles) or 'none'}",
                        keep_newlines=False,
                    ),
                    severity="error",
                    markup=False,
                )
            role = roles[0] if roles else None
            self.inputs = replace(self.inputs, role=role)
        self.main.query_one(InputsPane).set_roles(roles, role)

    # -- resolving -----------------------------------------------------------------------

    def set_inputs(self, inputs: Inputs) -> None:
        """Change the inputs, show them, and re-resolve (debounced)."""
        if inputs == self.inputs:
            return
        self.inputs = inputs
        self.main.query_one(InputsPane).show(inputs)
        self.show_context()
        self.request_resolve()

    def request_resolve(self, *, debounce: bool = True) -> None:
        if not self.loaded:
            return
        self.generation += 1
        self.settled.clear()
        self.main.query_one(StatusBar).show(
            self.view, pending=True, following_now=self.inputs.as_of is None
        )
        self._resolve(self.generation, self.inputs, self.debounce if debounce else 0.0)

    @work(exclusive=True, group="resolve", exit_on_error=False)
    async def _resolve(self, generation: int, inputs: Inputs, delay: float) -> None:
        """Debounce, then resolve on the single resolver thread.

        ``exclusive`` cancels the previous worker, but a thread cannot be stopped: so
        resolutions run one at a time on a one-thread executor, a job that is still
        queued when it is cancelled never starts, and a job whose generation is no
        longer the newest returns at once.
        """
        if delay:
            await asyncio.sleep(delay)
        query = inputs.query(self.clock())
        session = self.session

        def compute() -> View | None:
            if generation != self.generation:
                return None  # a newer request exists: skip the work
            return make_view(session.resolve(query), generation)

        loop = asyncio.get_running_loop()
        try:
            view = await loop.run_in_executor(self._executor, compute)
        except UnknownRole as exc:
            self.notify(inert(str(exc), keep_newlines=False), severity="error", markup=False)
            self.settled.set()
            return
        except Exception as exc:  # pragma: no cover - a bug in the core; say so, keep running
            self.notify(inert(f"resolution failed: {exc}"), severity="error", markup=False)
            self.settled.set()
            return
        if view is not None:
            self.apply_view(view)

    def apply_view(self, view: View) -> bool:
        """Show ``view`` unless a newer resolution was asked for since. Returns True if shown."""
        if view.generation != self.generation or view.generation <= self.applied_generation:
            return False
        if not self._main_ready():
            return False
        self.applied_generation = view.generation
        self.view = view
        for widget in self.main.query("*"):
            show_view = getattr(widget, "show_view", None)
            if callable(show_view):
                show_view(view)
        self.main.query_one(StatusBar).show(view, following_now=self.inputs.as_of is None)
        self.show_context()
        self.follow_active_table()
        if view.query.role is not None and view.query.role != self._remembered_role:
            self._remembered_role = view.query.role
            remember_role(self.root, view.query.role)  # the explorer reopens on it
        self.view_applied(view)
        self.call_after_refresh(self._refresh_selection)
        self.settled.set()
        return True

    @property
    def main(self) -> Screen[Any]:
        """The explorer's own screen (queries must not go to help/error/export on top)."""
        if not self.screen_stack:
            raise NoMatches("the app has no screens (shutting down)")
        return self.screen_stack[0]

    def _main_ready(self) -> bool:
        """False while the app is shutting down (workers may still finish then)."""
        try:
            self.main.query_one("#results", TabbedContent)
        except NoMatches:
            return False
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """On the error screen only quit, help and reload make sense."""
        if self.error_screen is not None and self.screen is self.error_screen:
            return action in ("quit", "help", "reload", "command_palette")
        if getattr(self.screen, "OWN_KEYS", False):  # e.g. the audit view: its keys only
            return action in ("quit", "command_palette")
        return True

    async def wait_settled(self) -> None:
        """Wait until the newest resolution (or load error) is on screen, with the detail
        pane's Roles block (for tests)."""
        await self.settled.wait()
        await roles_settled(self)

    # -- selection -----------------------------------------------------------------------

    def _active_table(self) -> RowTable | None:
        tabs = self.main.query_one("#results", TabbedContent)
        pane = tabs.get_pane(tabs.active) if tabs.active else None
        if pane is None:
            return None
        tables = list(pane.query(RowTable))
        return tables[0] if tables else None

    def _refresh_selection(self) -> None:
        if not self._main_ready():
            return
        table = self._active_table()
        self._select(table.current_row if table is not None else None)

    def _select(self, item: Included | Exclusion | Finding | None) -> None:
        self.selected = item
        view = self.view
        self.main.query_one(DetailPane).show(view, item)
        self.item_selected(view, item)
        show_roles_block(self, view, item)
        timeline = self.main.query_one(TimelinePane)
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

    def on_row_table_highlighted(self, event: RowTable.Highlighted) -> None:
        if not self._main_ready():
            return
        if event.table is self._active_table():
            self._select(event.row)

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        if isinstance(event.row, Finding):
            self._jump_to_finding(event.row)
        elif self.narrow:
            self.main.add_class("-show-side")

    @on(TabbedContent.TabActivated, "#results")
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        self._refresh_selection()
        self.follow_active_table()

    def _jump_to_finding(self, finding: Finding) -> None:
        if not finding.ids:
            self.notify("this warning names no object")
            return
        key = warning_key(finding)
        index = 0
        if self._jump_cycle is not None and self._jump_cycle[0] == key:
            index = (self._jump_cycle[1] + 1) % len(finding.ids)
        self._jump_cycle = (key, index)
        target = finding.ids[index]
        if len(finding.ids) > 1:
            self.notify(
                inert(f"{index + 1}/{len(finding.ids)}: {target} (Enter on the warning: next)"),
                markup=False,
            )
        self.action_jump(target)

    def action_jump(self, ref: str) -> None:
        """Show the object ``id`` or ``id@version`` in the pane that holds it."""
        view = self.view
        if view is None:
            return
        object_id, _, version = ref.partition("@")

        def matches(i: str, v: int | None) -> bool:
            return i == object_id and (not version or str(v) == version)

        for index, inc in enumerate(view.included):
            if matches(inc.obj.id, inc.obj.version):
                self.action_show_tab("tab-included")
                table = self.main.query_one("#included-table", IncludedTable)
                table.move_to(index)
                self._select(inc)
                return
        excluded = self.main.query_one(ExcludedPane)
        candidates = [e for e in view.exclusions if matches(e.id, e.version)]
        if not candidates and version:
            candidates = [e for e in view.exclusions if e.id == object_id]
        if not candidates:
            self.notify(inert(f"{ref} is not in this resolution"), severity="warning", markup=False)
            return
        target = candidates[0]
        if excluded.reason not in ("all", target.reason.value):
            excluded.set_reason("all")
        self.action_show_tab("tab-excluded")
        excluded_table = excluded.table
        index = next(i for i, e in enumerate(excluded_table.rows) if e is target)
        excluded_table.move_to(index)
        self._select(target)

    # -- input events --------------------------------------------------------------------

    @on(Select.Changed, "#role")
    def _role_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self.set_inputs(replace(self.inputs, role=event.value))
            # the choice is made: back to the table, so j/k and the tab keys work again
            self.call_after_refresh(self._focus_results)

    @on(Input.Changed, "#task")
    def _task_changed(self, event: Input.Changed) -> None:
        self.set_inputs(replace(self.inputs, task=event.value))

    @on(Input.Changed, "#as-of")
    def _as_of_changed(self, event: Input.Changed) -> None:
        if not event.value.strip():
            return  # half-way through typing: keep the current instant
        ok, when = parse_as_of(event.value)
        event.input.set_class(not ok, "-invalid")
        kept = self.view.query.as_of if self.view is not None else self.inputs.as_of
        self.main.query_one(InputsPane).show_as_of_problem(
            event.value, None if kept is None else utc_text(kept)
        )
        if ok:
            assert when is None or isinstance(when, datetime)
            self.set_inputs(self.inputs.with_as_of(when))

    @on(Input.Changed, "#limit")
    def _limit_changed(self, event: Input.Changed) -> None:
        ok, value = parse_limit(event.value)
        event.input.set_class(not ok, "-invalid")
        if ok:
            self.set_inputs(replace(self.inputs, limit=value))

    @on(Input.Changed, "#min-relevance")
    def _min_changed(self, event: Input.Changed) -> None:
        ok, value = parse_min(event.value)
        event.input.set_class(not ok, "-invalid")
        if ok:
            self.set_inputs(replace(self.inputs, min_relevance=value))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if event.input.id in ("task", "as-of", "limit", "min-relevance", "table-filter"):
            self._focus_results()

    @on(Checkbox.Changed, "#historical")
    def _historical_changed(self, event: Checkbox.Changed) -> None:
        self.set_inputs(replace(self.inputs, include_historical=event.value))

    @on(Checkbox.Changed, "#strict")
    def _strict_changed(self, event: Checkbox.Changed) -> None:
        self.set_inputs(replace(self.inputs, strict=event.value))

    # -- actions -------------------------------------------------------------------------

    def set_as_of(self, when: datetime | None) -> None:
        self.set_inputs(self.inputs.with_as_of(when))

    def set_role(self, role: str) -> None:
        self.set_inputs(replace(self.inputs, role=role))

    def action_step_day(self, days: int) -> None:
        self._step(self.inputs.step(days=days, now=self.clock()))

    def action_step_month(self, months: int) -> None:
        self._step(self.inputs.step(months=months, now=self.clock()))

    def _step(self, moved: Inputs | None) -> None:
        if moved is None:
            self.notify(END_OF_TIME_NOTE, severity="warning")
            return
        self.set_inputs(moved)

    def action_toggle_now(self) -> None:
        self.set_inputs(self.inputs.toggle_now())

    def action_flip(self, which: str) -> None:
        box = self.main.query_one(f"#{which}", Checkbox)
        box.value = not box.value

    def _focus_key(self) -> None:
        """Let a focus key through as text when a field (or the role list) has the focus.

        The keys that move into a field are priority bindings and focus at once, so the
        characters typed right after them reach the field, however busy the app is (an
        ordinary binding runs only when the key has travelled to the focused table, and
        the keys typed meanwhile would already be on their way there).
        """
        focused = self.focused
        typing = isinstance(focused, Input) or (
            focused is not None
            and any(isinstance(w, Select) and w.expanded for w in focused.ancestors_with_self)
        )
        if typing or self.screen is not self.main:
            raise SkipAction()

    def focus_field(self, selector: str) -> None:
        """Focus a field of the inputs pane now (not after the keys already queued)."""
        self.main.set_focus(self.main.query_one(selector))

    def action_focus_task(self) -> None:
        self._focus_key()
        self.focus_field("#task")

    def action_focus_as_of(self) -> None:
        self._focus_key()
        self.focus_field("#as-of")

    def action_focus_input(self, which: str) -> None:
        self._focus_key()
        self.focus_field(f"#{which}")

    def action_focus_role(self) -> None:
        self._focus_key()
        self.focus_field("#role")
        self.main.query_one("#role", Select).expanded = True

    def action_show_tab(self, pane_id: str) -> None:
        self.main.query_one("#results", TabbedContent).active = pane_id
        self.main.remove_class("-show-side")
        self._focus_results()

    def _focus_results(self) -> None:
        table = self._active_table()
        if table is not None:
            table.focus()

    def action_cycle_reason(self) -> None:
        self.main.query_one("#results", TabbedContent).active = "tab-excluded"
        self.main.query_one(ExcludedPane).cycle_reason()
        self._focus_results()

    def action_toggle_side(self) -> None:
        detail = self.main.query_one(DetailPane)
        if self.narrow:
            self.main.toggle_class("-show-side")
            if self.main.has_class("-show-side"):
                detail.focus()
            else:
                self._focus_results()
        elif detail.has_focus:
            self._focus_results()
        else:
            detail.focus()  # the detail pane scrolls with the arrows, PgUp/PgDn, Home/End

    def action_results(self) -> None:
        if self.main.has_class("-show-side"):
            self.main.remove_class("-show-side")
        self._focus_results()

    def action_copy_digest(self) -> None:
        if self.view is None:
            return
        self.copy_to_clipboard(self.view.digest)
        self.notify(f"copied {self.view.digest}", title="Digest")

    def bundle_text(self) -> str:
        """The current bundle, as ``opencontext resolve --format json`` prints it."""
        assert self.view is not None
        return dumps_bundle(bundle_dict(self.view.resolution))

    def action_export(self) -> None:
        view = self.view
        if view is None:
            self.notify("nothing to export yet", severity="warning")
            return
        default = default_export_path(
            self.root, view.query.role, as_of=view.query.as_of, digest=view.digest
        )
        if self.is_web:  # the file goes to the viewer's browser, never onto the server
            deliver_bundle(self, self.bundle_text(), default.name)
            return
        summary = (
            f"role {inert(str(view.query.role), keep_newlines=False)} · "
            f"{len(view.included)} objects · digest {view.digest[:19]}…"
        )

        def done(result: tuple[Path, bool] | None) -> None:
            if result is not None:
                self.export_to(result[0], overwrite=result[1])

        self.push_screen(ExportScreen(default, self.root, summary), done)

    @work(exclusive=True, group="export", exit_on_error=False)
    async def export_to(self, path: Path, *, overwrite: bool = False) -> Path | None:
        """Write the current bundle atomically; never into the repository."""
        text = self.bundle_text()
        try:
            written = await asyncio.to_thread(
                write_atomic, path, text, self.root, overwrite=overwrite
            )
        except ExportExists as exc:
            self.notify(inert(f"{exc}; not overwritten"), severity="warning", markup=False)
            return None
        except ExportRefused as exc:
            self.notify(inert(str(exc)), severity="error", title="Export refused", markup=False)
            return None
        self.notify(inert(f"wrote {written}"), title="Exported", markup=False)
        return written

    def action_audit(self) -> None:
        """Open the audit view (every finding and every role's fate at once)."""
        from octui.tui.screens.audit import AuditScreen

        if not isinstance(self.screen, AuditScreen):
            self.push_screen(AuditScreen())

    async def action_edit(self) -> None:
        await edit_selected(self)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.help_groups()))

    def help_groups(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Every key, from the bindings themselves (plus the fields' own keys)."""

        def rows(bindings: list[BindingType]) -> list[tuple[str, str]]:
            return [
                (keys_label(b.key), b.tooltip or b.description)
                for b in bindings
                if isinstance(b, Binding)
            ]

        from octui.tui.widgets.inputs import AsOfInput

        return [
            ("Anywhere", [*rows(list(self.BINDINGS)), ("Ctrl+P", "Command palette")]),
            (
                "Tables (Included, Excluded, Warnings)",
                [*rows(list(RowTable.BINDINGS)), ("click / double-click", "select / open")],
            ),
            (
                "as_of field",
                [
                    *rows(list(AsOfInput.BINDINGS)),
                    ("type", "now, YYYY-MM-DD or RFC 3339 datetime (no offset: UTC)"),
                ],
            ),
            (
                "Fields",
                [
                    ("Tab / Shift+Tab", "next / previous field"),
                    ("Enter", "back to the results"),
                ],
            ),
            (
                "Help, diff, validate and detail views",
                [
                    ("↑ / ↓, PgUp / PgDn", "scroll"),
                    ("Home / End", "top / bottom"),
                    ("mouse wheel", "scroll"),
                    ("Esc", "close (the detail pane: back to the results)"),
                ],
            ),
        ]

    def palette_commands(self) -> list[tuple[str, Callable[[], object], str]]:
        """Fixed commands of the palette; dynamic ones (jump, as_of) are in OctuiCommands."""
        from functools import partial

        commands: list[tuple[str, Callable[[], object], str]] = []
        repo = self.session.repository
        for role in sorted(repo.config.roles) if repo is not None else []:
            shown = line(role)  # the palette shows it as literal content (commands.py)
            commands.append((f"Set role: {shown}", partial(self.set_role, role), "resolve for it"))
        commands += [
            ("Set as_of: now", partial(self.set_as_of, None), "follow the clock"),
            (
                "Set as_of…",
                partial(self.focus_field, "#as-of"),
                "type a date (or: 'as_of 2026-03-15' here)",
            ),
            ("Export bundle", self.action_export, "x: write the bundle JSON to a file"),
            ("Audit the repository", self.action_audit, "u: every finding and role at once"),
            ("Open in editor", self.action_edit, "e: the selected object's file, at its line"),
            ("Copy digest", self.action_copy_digest, "to the terminal clipboard"),
            ("Toggle include-historical", partial(self.action_flip, "historical"), ""),
            ("Toggle strict", partial(self.action_flip, "strict"), ""),
            ("Filter exclusions by reason", self.action_cycle_reason, "cycle the reasons"),
            ("Reload from disk", self.action_reload, ""),
            ("Help (keys)", self.action_help, "F1"),
        ]
        commands += self.extra_palette_commands()
        commands += self.aid_palette_commands()
        commands += self.time_palette_commands()
        return commands


def _declared_roles(root: Path) -> list[str]:
    """The roles of the configuration in declaration order, read up front so the role
    select starts filled."""
    try:
        return list(load_config(root).roles)
    except Exception:  # the loader reports problems properly a moment later
        return []


def _parse_store(root: Path) -> Any:
    """The persistent parse cache (faster cold starts); None when disabled or unusable."""
    try:
        from octui.load.parse_cache import open_store

        return open_store(root)
    except Exception:  # a cache is an optimisation: never a reason not to start
        return None


def create_app(
    root: str | Path,
    *,
    role: str | None = None,
    task: str = "",
    as_of: datetime | None = None,
    **options: Any,
) -> OctuiApp:
    """The app factory used by ``main()``, the tests and the screenshot script."""
    return OctuiApp(root, role=role, task=task, as_of=as_of, **options)


def first_as_of(text: str | None) -> datetime | None:
    """Parse ``--as-of`` (None = now)."""
    if text is None:
        return None
    ok, value = parse_as_of(text)
    if not ok:
        raise ValueError(f"--as-of: expected now, a date or an RFC 3339 datetime, got {text!r}")
    assert value is None or isinstance(value, datetime)
    return value
