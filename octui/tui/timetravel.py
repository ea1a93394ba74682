"""Both time axes in the explorer, and each object's git history.

* :class:`AxesBar` shows the two axes side by side and apart: *repository* — the files
  on disk, a git revision, or the commit known at an instant — and *in effect* — as_of.
* ``K`` ("what did we believe then") asks for one date and sets both axes to it: the
  repository as committed then, resolved as of then. The other keys still move as_of
  alone; the repository stays where ``K`` put it.
* ``L`` shows, in the detail pane, every commit that changed the selected object (author,
  date, subject, each field old → new); the list scrolls and takes the keyboard, and
  selecting a commit opens the repository at it.

:class:`TimeTravel` is mixed into :class:`~octui.tui.app.OctuiApp` before
:class:`~octui.tui.extras.ExplorerExtras`, whose hooks it extends.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from octui.analysis.objlog import ObjectLog, object_log, show_value
from octui.core.model import Exclusion, Finding
from octui.core.textsafe import inert
from octui.core.timeutil import format_instant, parse_instant
from octui.load.gitrun import GitRevisionError
from octui.load.gittree import GitTree
from octui.load.known_at import CommitInfo, commit_info, known_at_revision
from octui.resolve.result import Included
from octui.session import Session

if TYPE_CHECKING:
    from octui.tui.state import View

TIME_BINDINGS = [
    Binding(
        "K",
        "believe",
        "What did we believe then",
        show=False,
        tooltip="one date for both axes: the repository as committed then, as_of then",
    ),
    Binding(
        "L",
        "toggle_object_log",
        "Object history",
        show=False,
        tooltip="the object's git history in the detail pane (Enter opens a commit)",
    ),
]


def _day(when: datetime) -> str:
    text = format_instant(when)
    return text[:10] if text.endswith("T00:00:00Z") else text


def axes_text(
    *,
    as_of: datetime,
    following_now: bool,
    revision: str | None,
    commit: CommitInfo | None,
    known_at: datetime | None,
) -> Text:
    """``repository: … · in effect: as_of …`` as one line, each axis on its own."""
    if commit is None:
        repository = Text.assemble(("working tree", "bold"), " (the files on disk)")
    else:
        subject = inert(commit.subject, keep_newlines=False)
        where = Text.assemble(
            "commit ", (commit.short, "bold yellow"), f" {subject!r}" if subject else ""
        )
        if known_at is not None:
            repository = Text.assemble(
                ("known at ", "bold"), (_day(known_at), "bold"), " · ", where
            )
        else:
            label = inert(revision or commit.commit, keep_newlines=False)
            repository = Text.assemble(("revision ", "bold"), label, " · ", where)
    effect = Text.assemble(("as_of ", "bold"), _day(as_of), " (now)" if following_now else "")
    return Text.assemble(
        ("repository: ", "cyan"),
        repository,
        "   │   ",
        ("in effect: ", "cyan"),
        effect,
    )


class AxesBar(Static):
    """The two time axes: what the repository said (files read) and what was in effect."""

    DEFAULT_CSS = "AxesBar { height: auto; padding: 0 1; }"


class BelieveScreen(ModalScreen[datetime | None]):
    """Ask for one date; dismiss with it (or None when cancelled)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    BelieveScreen { align: center middle; }
    BelieveScreen > Vertical {
        width: 80; max-width: 100%; height: auto; border: round $primary;
        background: $surface; padding: 0 1;
    }
    BelieveScreen #believe-message.-error { color: $error; }
    """

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "What did we believe then?"
            yield Static(
                "One date for both axes: the repository as committed then (the last commit "
                "at or before it) and as_of then. YYYY-MM-DD or RFC 3339."
            )
            yield Input(self.default, id="believe-when")
            yield Static("Enter sets both. Esc cancels.", id="believe-message")

    def on_mount(self) -> None:
        self.query_one("#believe-when", Input).focus()

    @on(Input.Submitted, "#believe-when")
    def submit(self) -> None:
        text = self.query_one("#believe-when", Input).value
        try:
            when = parse_instant(text)
        except ValueError as exc:
            message = self.query_one("#believe-message", Static)
            message.update(Text(str(exc)))
            message.set_class(True, "-error")
            return
        self.dismiss(when)

    def action_cancel(self) -> None:
        self.dismiss(None)


def log_options(log: ObjectLog) -> list[Option]:
    """One option per commit: its short id, date, author and subject, then each change."""
    options = []
    for c in log.commits:
        text = Text.assemble(
            (c.commit[:7], "bold yellow"),
            " ",
            (_day(c.date), "cyan"),
            " ",
            inert(c.author, keep_newlines=False),
            "\n  ",
            (inert(c.subject, keep_newlines=False), "bold"),
        )
        for change in c.changes:
            mark = {"added": "+", "removed": "-"}.get(change.kind, "~")
            text.append(f"\n  {mark} @{change.version} {change.kind}")
            for name, (old, new) in change.fields.items():
                text.append(
                    inert(
                        f"\n      {name}: {show_value(old)} → {show_value(new)}", keep_newlines=True
                    )
                )
            if change.body_diff:
                added = sum(1 for x in change.body_diff.splitlines() if x.startswith("+"))
                removed = sum(1 for x in change.body_diff.splitlines() if x.startswith("-"))
                text.append(f"\n      body: +{max(0, added - 1)} −{max(0, removed - 1)} lines")
        options.append(Option(text, id=c.commit))
    return options


class ObjectLogView(Vertical):
    """The commits that changed one object, newest first; Enter opens the repository at one."""

    DEFAULT_CSS = """
    ObjectLogView { height: auto; margin-bottom: 1; }
    ObjectLogView OptionList { height: auto; max-height: 16; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pending: tuple[str, ObjectLog | None, str] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="object-log-title")
        yield OptionList(id="object-log-list")

    def on_mount(self) -> None:
        self.call_after_refresh(self._render_state)

    def show_log(self, object_id: str, log: ObjectLog | None, problem: str = "") -> None:
        self._pending = (object_id, log, problem)
        self._render_state()

    def _render_state(self) -> None:
        if self._pending is None:
            return
        try:
            title = self.query_one("#object-log-title", Static)
        except NoMatches:
            return  # not composed yet: on_mount shows it
        object_id, log, problem = self._pending
        listing = self.query_one("#object-log-list", OptionList)
        listing.clear_options()
        label = inert(object_id, keep_newlines=False)
        if log is None:
            title.update(Text.assemble((f"History of {label}", "bold"), f": {problem}"))
            listing.display = False
            return
        count = len(log.commits)
        title.update(
            Text.assemble(
                (f"History of {label}", "bold"),
                f" — {count} commit{'s' if count != 1 else ''}, newest first "
                "(Enter opens the repository at one)",
            )
        )
        listing.add_options(log_options(log))
        listing.display = bool(count)


class TimeTravel:
    """Mixin for OctuiApp: the axis line, "what did we believe then", object history."""

    known_at: datetime | None = None
    """The instant the repository axis was set to by ``K`` / ``--known-at`` (else None)."""
    known_at_commit: str | None = None
    object_log_on: bool = False
    _commit_info: CommitInfo | None = None

    @property
    def _tt(self) -> Any:
        return self

    # -- hooks ------------------------------------------------------------------------------

    def view_applied(self, view: View) -> None:
        super().view_applied(view)  # type: ignore[misc]
        self.show_axes(view)

    def item_selected(self, view: View | None, item: Included | Exclusion | Finding | None) -> None:
        super().item_selected(view, item)  # type: ignore[misc]
        self._show_object_log(item)

    def time_palette_commands(self) -> list[tuple[str, Any, str]]:
        return [
            ("What did we believe then…", self._tt.action_believe, "K: one date for both axes"),
            ("Object history (git)", self._tt.action_toggle_object_log, "L: who changed it"),
        ]

    # -- the axes -----------------------------------------------------------------------------

    def _known(self) -> datetime | None:
        app = self._tt
        if self.known_at is not None and app.revision_commit == self.known_at_commit:
            return self.known_at
        return None

    def show_axes(self, view: View) -> None:
        app = self._tt
        try:
            main = app.main
        except NoMatches:
            return
        try:
            bar = main.query_one("#axes", AxesBar)
        except NoMatches:
            try:
                status = main.query_one("#status")
            except NoMatches:
                return
            bar = AxesBar("", id="axes")
            main.mount(bar, before=status)
        commit = app.revision_commit
        if commit is None:
            bar.display = False  # the files on disk: the inputs pane's as_of says it all
            return
        info = self._commit_info
        if info is None or info.commit != commit:
            info = self._commit_info = commit_info(app.root, commit)
        bar.update(
            axes_text(
                as_of=view.query.as_of,
                following_now=app.inputs.as_of is None,
                revision=app.revision,
                commit=info,
                known_at=self._known(),
            )
        )
        bar.display = True

    @property
    def axes_line(self) -> str:
        """The axis line as plain text ("" when hidden), for tests."""
        try:
            bar = self._tt.main.query_one("#axes", AxesBar)
        except NoMatches:
            return ""
        return str(bar.render()) if bar.display else ""

    def action_believe(self) -> None:
        app = self._tt
        current = app.inputs.as_of or app.clock()

        def done(when: datetime | None) -> None:
            if when is not None:
                app.believe(when)

        app.push_screen(BelieveScreen(_day(current)), done)

    @work(exclusive=True, group="believe", exit_on_error=False)
    async def believe(self, when: datetime) -> None:
        """Set both axes to ``when``: the repository as known then, and as_of."""
        app = self._tt
        try:
            commit = await asyncio.to_thread(known_at_revision, app.root, when)
        except GitRevisionError as exc:
            app.notify(str(exc), severity="error", title="Known at")
            return
        self.known_at, self.known_at_commit = when, commit
        app.set_as_of(when)
        app.set_revision(commit, known_at=when)

    # -- the object's history -----------------------------------------------------------------

    def action_toggle_object_log(self) -> None:
        self.object_log_on = not self.object_log_on
        self._show_object_log(self._tt.selected)

    def _show_object_log(self, item: Included | Exclusion | Finding | None) -> None:
        app = self._tt
        try:
            detail = app.main.query_one("#detail")
        except NoMatches:
            return
        object_id: str | None = None
        if isinstance(item, Included):
            object_id = item.obj.id
        elif isinstance(item, Exclusion) and not item.reason.is_denial:
            object_id = item.id  # a denied object's history is never looked up
        try:
            box = detail.query_one("#object-log", ObjectLogView)
        except NoMatches:
            if not self.object_log_on or object_id is None:
                return
            box = ObjectLogView(id="object-log")
            detail.mount(box, after="#why")
        box.display = self.object_log_on and object_id is not None
        if box.display and object_id is not None:
            box.show_log(object_id, None, "reading git history…")
            self._load_object_log(box, object_id)

    @work(exclusive=True, group="objlog", exit_on_error=False)
    async def _load_object_log(self, box: ObjectLogView, object_id: str) -> None:
        app = self._tt
        try:
            log = await asyncio.to_thread(object_log, str(app.root), object_id)
        except GitRevisionError as exc:
            box.show_log(object_id, None, str(exc))
            return
        if self._tt.selected is None or not box.display:
            return
        box.show_log(object_id, log)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "object-log-list" or event.option.id is None:
            return
        event.stop()
        self.known_at = None
        self._tt.set_revision(event.option.id)
        self._tt.notify(
            f"Reading the repository at commit {event.option.id[:12]}; as_of is unchanged.",
            title="Revision",
        )


def start_at_known_at(app: Any, when: datetime) -> None:
    """Open the explorer on the commit known at ``when`` (before it runs; raises
    GitRevisionError)."""
    commit = known_at_revision(app.root, when)
    tree = GitTree(app.root, commit)
    tree.known_at = when
    app.disk_store = getattr(getattr(app.session, "loader", None), "store", None)
    app.session = Session(app.root, tree=tree)
    app.revision = commit
    app.revision_commit = tree.commit
    app.known_at = when
    app.known_at_commit = tree.commit


__all__ = [
    "TIME_BINDINGS",
    "AxesBar",
    "BelieveScreen",
    "ObjectLogView",
    "TimeTravel",
    "axes_text",
    "start_at_known_at",
]
