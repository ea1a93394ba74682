"""The explorer application: inputs → resolver (off the UI thread) → panes.

Structure (so features can be added in their own modules):

- the app owns one :class:`~octui.tui.state.Inputs` value and one
  :class:`~octui.tui.state.View` (the latest resolution);
- every input change calls :meth:`OctuiApp.request_resolve`: an exclusive,
  debounced worker resolves in a thread and hands the view to
  :meth:`OctuiApp.apply_view`, which drops anything but the newest generation;
- every widget with a ``show_view(view)`` method receives each new view
  (:meth:`apply_view` queries for them), so a new pane only has to define it;
- what is on the explorer's own screen — its layout, the selection, the fields' events —
  is :class:`~octui.tui.screens.explorer.ExplorerScreen` (``app.main``, the first
  screen of the stack); the app keeps the keys, whose actions call it, and the state;
- result tabs come from :data:`~octui.tui.screens.explorer.RESULT_TABS`; palette
  commands from :meth:`OctuiApp.palette_commands`; help from the bindings themselves;
- the features (:mod:`octui.tui.features`: compare, the change agenda, revisions, why
  not, time travel, orientation, export) are objects the app constructs with itself as
  their :class:`~octui.tui.host.Host`; their keys run through :meth:`OctuiApp.action_feature`
  and they hear :class:`~octui.tui.messages.ViewApplied` and
  :class:`~octui.tui.messages.SelectionChanged` from the app;
- one :meth:`OctuiApp.on_worker_state_changed` reports any worker's failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, cast

from textual import events, on, work
from textual.actions import SkipAction
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Checkbox, Input, Select, TabbedContent
from textual.worker import Worker, WorkerState

from octui.bundle.bundle import bundle_dict, dumps_bundle
from octui.core.textsafe import inert
from octui.core.timeutil import now_utc
from octui.load.known_at import known_at_revision
from octui.session import Session
from octui.tui import paint_at_explorer_rate
from octui.tui.auditapp import edit_selected, roles_settled
from octui.tui.auditmodel import AuditCache
from octui.tui.bindings import APP_BINDINGS
from octui.tui.commands import OctuiCommands, fixed_commands
from octui.tui.features.registry import Features
from octui.tui.feedback import save_screenshot
from octui.tui.host import Command
from octui.tui.keys import key_label
from octui.tui.literal import line, toast_text
from octui.tui.looks import apply_theme
from octui.tui.messages import (
    CommitChosen,
    RevisionChanged,
    RevisionRequested,
    Row,
    SelectionChanged,
    ViewApplied,
)
from octui.tui.resolving import Resolving
from octui.tui.screens.error import ErrorScreen
from octui.tui.screens.explorer import ExplorerScreen
from octui.tui.screens.help import HelpScreen, key_groups
from octui.tui.state import END_OF_TIME_NOTE, Inputs, View
from octui.tui.viewcache import ViewCache
from octui.tui.web import guard_web_session
from octui.tui.widgets.inputs import InputsPane, parse_as_of
from octui.tui.widgets.rowtable import RowTable
from octui.tui.widgets.status import StatusBar


class OctuiApp(App[None]):
    """Explore what a role is given, what is left out and why, at any instant."""

    TITLE = "octui"
    CSS_PATH = "app.tcss"
    COMMANDS: ClassVar[set[Any]] = App.COMMANDS | {OctuiCommands}
    ENABLE_COMMAND_PALETTE = True
    AUTO_FOCUS = "#included-table"

    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS

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
        paint_at_explorer_rate()
        if "TEXTUAL_ANIMATIONS" not in os.environ:
            # Textual animates the tab underline for 0.3 s after a tab key: about 15 more
            # paints of the screen (25-30 ms of the UI thread) for a slide. An explicit
            # TEXTUAL_ANIMATIONS still decides.
            self.animation_level = "none"
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
        self.view: View | None = None
        self.watch_disk = watch
        self.poll_interval = poll_interval
        self.debounce = debounce
        self.cursor_blink = cursor_blink
        self._init_state()

    def _init_state(self) -> None:
        """What the app keeps while it runs (it starts empty)."""
        self.generation = 0
        """Generation of the newest resolution asked for."""
        self.applied_generation = 0
        self.error: tuple[str, str, str] | None = None
        self.error_screen: ErrorScreen | None = None
        self.loaded = False
        self.selected: Row | None = None
        self.settled = asyncio.Event()
        self.revision: str | None = None
        """The git revision being read, as the user named it (None: the files on disk)."""
        self.revision_commit: str | None = None
        self.audits = AuditCache(lambda repo: self.session.cache_for(repo))
        """The audits of this run (the audit view, the Roles block, the editor's lines)."""
        self.paints = 0
        """Screen updates so far (background work waits for the key's own: :meth:`after_paint`)."""
        self.views = ViewCache()
        """The views of this run, by query: a key asking for one again (or for one the
        prefetch made) shows it without resolving."""
        self.roles_worker: Worker[None] | None = None
        self.digest_worker: Worker[None] | None = None
        """The worker computing the digest of the view on show, if one ran (see
        :meth:`~octui.tui.resolving.Resolving.finish_digest`)."""
        self.feature_set = Features(self)
        """The explorer's features (compare, agenda, revisions, why not, …)."""
        self.resolving = Resolving(self)
        """The bodies of the loading, watching and resolving workers."""

    # -- layout --------------------------------------------------------------------------

    def get_default_screen(self) -> ExplorerScreen:
        return ExplorerScreen()

    def compose(self) -> ComposeResult:
        yield from self.explorer.widgets()

    @property
    def explorer(self) -> ExplorerScreen:
        """The explorer's own screen, typed (see :attr:`main`)."""
        return cast(ExplorerScreen, self.main)

    def on_unmount(self) -> None:
        self.resolving.close()
        for feature in self.feature_set.all:
            feature.close()

    # -- features and their messages -----------------------------------------------------

    async def action_feature(self, name: str, action: str) -> None:
        """Run a feature's action (its bindings are routed here: see ``features``)."""
        result = getattr(self.feature_set.by_name[name], f"action_{action}")()
        if inspect.isawaitable(result):
            await result

    async def on_event(self, event: events.Event) -> None:
        """Every key stops the prefetch first and puts the garbage collection off (both
        start again once the explorer is idle)."""
        if isinstance(event, events.Key):
            self.feature_set.prefetch.poke()
            self.feature_set.collector.poke()
        await super().on_event(event)

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        """Count every screen update (see :meth:`after_paint`)."""
        super()._display(screen, renderable)
        if renderable is not None:
            self.paints += 1

    async def after_paint(self, since: int, limit: float = 1.0) -> None:
        """Return once the screen was updated after ``since`` (a value of :attr:`paints`), or
        after ``limit`` s: background work started for a key lets the key's own paint go
        first (it shares the interpreter with it)."""
        waited = 0.0
        while self.paints <= since and waited < limit:
            await asyncio.sleep(0.01)
            waited += 0.01

    def on_view_applied(self, message: ViewApplied) -> None:
        if not self._main_ready():
            return  # shutting down: nothing to show it on
        for feature in self.feature_set.all:
            feature.on_view_applied(message)

    def on_selection_changed(self, message: SelectionChanged) -> None:
        if not self._main_ready():
            return
        for feature in self.feature_set.all:
            feature.on_selection_changed(message)

    def on_revision_changed(self, message: RevisionChanged) -> None:
        if not self._main_ready():
            return
        for feature in self.feature_set.all:
            feature.on_revision_changed(message)

    def on_revision_requested(self, message: RevisionRequested) -> None:
        self.feature_set.revisions.set_revision(message.rev, message.known_at)

    def on_commit_chosen(self, message: CommitChosen) -> None:
        self.feature_set.timetravel.open_commit(message)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Any worker that fails says so (every worker catches what it expects itself)."""
        worker = event.worker
        if event.state is not WorkerState.ERROR:
            return
        what = worker.name or worker.group
        self.notify(inert(f"{what} failed: {worker.error}"), severity="error", markup=False)

    def use_session(self, session: Session, rev: str | None, commit: str | None) -> None:
        """Read the repository through ``session`` (at ``rev``) from now on."""
        self.session = session
        self.revision, self.revision_commit = rev, commit
        if self.is_running:  # (before the app runs: its first view shows the revision)
            self.post_message(RevisionChanged(rev))

    def start_at_revision(self, rev: str) -> None:
        """Open on git revision ``rev`` (before the app runs; raises GitRevisionError)."""
        self.feature_set.revisions.start_at(rev)

    def start_at_known_at(self, when: datetime) -> None:
        """Open on the commit known at ``when`` (before the app runs; raises
        GitRevisionError)."""
        commit = self.feature_set.revisions.start_at(known_at_revision(self.root, when), when)
        self.feature_set.timetravel.start_at(when, commit)

    # -- keys, screenshots, the context header -------------------------------------------

    def get_key_display(self, binding: Binding) -> str:
        """Keys as people read them (``Esc``, ``,``, ``?``), in the footer and the help."""
        if binding.key_display:
            return binding.key_display
        return key_label(binding.key.split(",")[0])

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Save a screenshot; without a folder, in ``~/Downloads`` or (when that is not a
        writable folder) the temporary folder — and say where, and why there."""
        if self.is_web or path is not None:
            return super().deliver_screenshot(filename, path, time_format)
        save_screenshot(self, filename, time_format)
        return None

    def show_context(self) -> None:
        """The context header: repository, revision, role, task and as_of."""
        self.explorer.show_context()

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
        self.feature_set.collector.start()
        apply_theme(self, self.requested_theme)
        if self.is_web:
            guard_web_session(self)
        self.explorer.layout_for(self.size.width)
        self.explorer.show_loading()
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
        self.explorer.layout_for(event.size.width)

    @property
    def narrow(self) -> bool:
        return self.explorer.narrow

    # -- loading and watching ------------------------------------------------------------

    @work(exclusive=True, group="load", exit_on_error=False)
    async def reload_repository(self) -> None:
        """(Re)load the repository in a thread; show an error screen when it cannot be read."""
        await self.resolving.reload()

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_repository(self) -> None:
        """Reload when the files changed (:class:`~octui.tui.loading.DiskWatch`)."""
        await self.resolving.watch(self.reload_repository)

    def action_reload(self) -> None:
        self.reload_repository()

    # -- resolving -----------------------------------------------------------------------

    def set_inputs(self, inputs: Inputs) -> None:
        """Change the inputs, show them, and re-resolve (debounced).

        The context header names what the tables answer: once a view is on show it changes
        with the next view (:meth:`apply_view`), while the status line says "resolving…"
        meanwhile. (Changed here as well, the header at the top and the status line at the
        bottom made the frame during the resolution repaint the whole screen between them:
        2-3 ms of the UI thread per character typed at 50k objects, while the resolver
        thread shares the interpreter with it.)"""
        if inputs == self.inputs:
            return
        self.inputs = inputs
        self.main.query_one(InputsPane).show(inputs)
        if self.view is None:  # nothing answered yet: the header names what is asked
            self.show_context()
        self.request_resolve()

    def request_resolve(self, *, debounce: bool = True) -> None:
        if not self.loaded:
            return
        self.generation += 1
        self.settled.clear()
        kept = self.resolving.kept_view(self.generation, self.inputs)
        if kept is not None:  # made before (or by the prefetch): shown now, in this paint
            self.apply_view(kept)
            return
        self.main.query_one(StatusBar).show(
            self.view, pending=True, following_now=self.inputs.as_of is None
        )
        self._resolve(self.generation, self.inputs, self.debounce if debounce else 0.0)

    @work(exclusive=True, group="resolve", exit_on_error=False)
    async def _resolve(self, generation: int, inputs: Inputs, delay: float) -> None:
        """Debounce, then resolve on the single resolver thread (see
        :meth:`~octui.tui.resolving.Resolving.resolve`)."""
        await self.resolving.resolve(generation, inputs, delay)

    def apply_view(self, view: View) -> bool:
        """Show ``view`` unless a newer resolution was asked for since. Returns True if shown."""
        return self.resolving.apply_view(view)

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
        """Wait until the newest resolution (or load error) is on screen, with its digest
        and the detail pane's Roles block (for tests)."""
        await self.settled.wait()
        worker = self.digest_worker
        if worker is not None:
            with contextlib.suppress(Exception):  # cancelled by a newer view
                await worker.wait()
        await roles_settled(self)

    # -- selection (the main screen's) -------------------------------------------------

    def active_table(self) -> RowTable | None:
        return self.explorer.active_table()

    def _refresh_selection(self) -> None:
        if self._main_ready():
            self.explorer.refresh_selection()

    @on(TabbedContent.TabActivated, "#results")
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        self._refresh_selection()
        self.feature_set.orientation.follow_active_table()

    def action_jump(self, ref: str) -> None:
        """Show the object ``id`` or ``id@version`` in the pane that holds it."""
        self.explorer.jump(ref)

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

    def focus_key(self) -> None:
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
        self.focus_key()
        self.focus_field("#task")

    def action_focus_as_of(self) -> None:
        self.focus_key()
        self.focus_field("#as-of")

    def action_focus_input(self, which: str) -> None:
        self.focus_key()
        self.focus_field(f"#{which}")

    def action_focus_role(self) -> None:
        self.focus_key()
        self.focus_field("#role")
        self.main.query_one("#role", Select).expanded = True

    def action_show_tab(self, pane_id: str) -> None:
        self.explorer.show_tab(pane_id)

    def action_cycle_reason(self) -> None:
        self.explorer.cycle_reason()

    def action_toggle_side(self) -> None:
        self.explorer.toggle_side()

    def action_results(self) -> None:
        self.explorer.back_to_results()

    async def action_copy_digest(self) -> None:
        view = self.view
        if view is None:
            return
        found = await self.digest_of(view)
        self.copy_to_clipboard(found)
        self.notify(f"copied {found}", title="Digest")

    async def digest_of(self, view: View) -> str:
        """``view``'s digest, never computed on the UI thread (see
        :meth:`~octui.tui.resolving.Resolving.digest`)."""
        return await self.resolving.digest(view)

    def bundle_text(self, view: View | None = None) -> str:
        """``view``'s bundle (None: the view on show), as ``opencontext resolve --format
        json`` prints it."""
        shown = view if view is not None else self.view
        assert shown is not None
        return dumps_bundle(bundle_dict(shown.resolution))

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
        return key_groups(list(self.BINDINGS))

    def palette_commands(self) -> list[Command]:
        """Fixed commands of the palette (:func:`~octui.tui.commands.fixed_commands`)."""
        return fixed_commands(self)


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
