"""Compare, change agenda, git revisions and "why not" in the explorer (issue 6).

:class:`ExplorerExtras` is mixed into :class:`~octui.tui.app.OctuiApp`. The app calls
three hooks — :meth:`view_applied` after each new resolution is on screen,
:meth:`item_selected` after a row is selected, :meth:`extra_palette_commands` for the
command palette — and binds :data:`EXTRA_BINDINGS`. Everything else lives here and in
:mod:`.compare`, :mod:`.agenda` and :mod:`.revisions`.

Keys: ``p`` pin / unpin the bundle for comparison, ``D`` the diff against the pin,
``.`` / ``,`` next / previous change of the bundle (moves as_of and the timeline
marker), ``A`` the change agenda, ``g`` pick a git revision.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import work
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import Static

from octui.analysis.agenda import EPSILON
from octui.analysis.diff import Diff, diff_resolutions
from octui.analysis.whynot import WhyNotCancelled, why_not
from octui.core.model import Exclusion, Finding
from octui.core.textsafe import inert
from octui.core.textsafe import markup_escape as escape
from octui.core.timeutil import BEGINNING_OF_TIME
from octui.load.gittree import GitRevisionError, GitTree, list_revisions
from octui.resolve.result import Included
from octui.session import Session
from octui.tui.agenda import AgendaScreen, find_change, summarize, when_text
from octui.tui.background import LatestJob, in_daemon_thread
from octui.tui.compare import DiffScreen, Pin, decorate, marks_for
from octui.tui.literal import markup_literal
from octui.tui.revisions import WORKING_TREE, RevisionScreen
from octui.tui.state import END_OF_TIME_NOTE

if TYPE_CHECKING:
    from octui.tui.state import View

Command = tuple[str, Callable[[], object], str]

_IN = ("added", "now-included")
_OUT = ("removed", "now-excluded")

EXTRA_BINDINGS = [
    Binding("p", "pin", "Pin / unpin the bundle to compare against", show=False),
    Binding("D", "show_diff", "Diff against the pinned bundle", show=False),
    Binding(".", "next_change", "Next change of the bundle (moves as_of)", show=False),
    Binding("comma", "previous_change", "Previous change of the bundle", show=False),
    Binding(
        "A",
        "agenda",
        "What changed",
        tooltip="the change agenda: the instants around as_of at which this bundle changes",
    ),
    Binding("g", "pick_revision", "Git revision: what the repository said then", show=False),
]


class ExplorerExtras:
    """Mixin for OctuiApp: pin and compare, walk the change agenda, revisions, why not."""

    pinned: Pin | None = None
    revision: str | None = None
    """The git revision being read (as the user named it), or None for the files on disk."""
    revision_commit: str | None = None
    disk_store: Any = None
    """The persistent parse cache of the files on disk, kept while a revision is read."""
    compare_diff: Diff | None = None
    agenda_everything: bool = False
    """``.`` / ``,`` and the agenda: every digest change (True) or only the changes to what
    the role receives (False, the default); ``a`` in the agenda switches."""
    compare_marks: dict[tuple[object, ...], str] = {}  # noqa: RUF012 - replaced, never mutated

    @property
    def _app(self) -> Any:
        """The app this is mixed into (its own attributes: view, session, main, inputs...)."""
        return self

    # -- hooks called by the app ------------------------------------------------------------

    def view_applied(self, view: View) -> None:
        """A new resolution is on screen: compare it with the pin, refresh the bars."""
        self._decorate_tables()
        if self.pinned is not None:
            self._compare(self.pinned, view, self.revision)
        self._show_bar()

    def item_selected(self, view: View | None, item: Included | Exclusion | Finding | None) -> None:
        """A row is selected: add "why not" to the detail pane for an excluded object."""
        try:
            detail = self._app.main.query_one("#detail")
        except NoMatches:
            return
        try:
            box = detail.query_one("#whynot", Static)
        except NoMatches:
            box = Static("", id="whynot")
            box.styles.margin = (0, 0, 1, 0)
            detail.mount(box, after="#why")
        box.update("")
        box.display = False
        self.why_not_job.cancel()  # a new selection: the old question is not asked any more
        if view is None or not isinstance(item, Exclusion) or item.reason.is_denial:
            return
        uid = view.exclusion_uid.get(id(item))
        if uid is None:
            return
        self._why_not(view, uid, box)

    @property
    def why_not_job(self) -> LatestJob[list[str]]:
        """The one why-not worker: each selection cancels the answer it replaces."""
        job: LatestJob[list[str]] | None = getattr(self, "_why_not_worker", None)
        if job is None:
            job = LatestJob("octui-whynot")
            self._why_not_worker = job
        return job

    def close_extras(self) -> None:
        """The app is quitting: stop background work nobody will wait for."""
        self.why_not_job.close()

    def extra_palette_commands(self) -> list[Command]:
        app = self._app
        commands: list[Command] = [
            (
                "Unpin the compared bundle" if self.pinned else "Pin this bundle to compare",
                app.action_pin,
                "p: then change role, task, as_of or revision and see the difference",
            ),
            ("Show diff against the pinned bundle", app.action_show_diff, "D"),
            ("Next change of the bundle", app.action_next_change, ". moves as_of there"),
            ("Previous change of the bundle", app.action_previous_change, ", moves as_of there"),
            ("Change agenda", app.action_agenda, "A: the instants at which this bundle changes"),
            (
                "Agenda: changes to what the role receives"
                if self.agenda_everything
                else "Agenda: every digest change",
                self.action_toggle_agenda_mode,
                ". , and A: "
                + (
                    "every digest change now"
                    if self.agenda_everything
                    else "what the role receives now"
                ),
            ),
            ("Git revision…", app.action_pick_revision, "g: what the repository said at a commit"),
        ]
        if self.revision is not None:
            commands.append(
                ("Back to the working tree", partial(app.set_revision, None), "the files on disk")
            )
        return commands

    # -- compare ----------------------------------------------------------------------------

    def action_pin(self) -> None:
        app = self._app
        if self.pinned is not None:
            self.pinned = None
            self.compare_diff = None
            self.compare_marks = {}
            self._refresh_tables()
            self._show_bar()
            app.notify("Unpinned.")
            return
        if self._app.view is None:
            app.notify("nothing to pin yet", severity="warning")
            return
        self.pinned = Pin(self._app.view, self.revision)
        app.notify(
            f"Pinned {self.pinned.describe()}. Change the inputs: differences are marked "
            "in the panes; D shows the diff, p unpins.",
            title="Compare",
        )
        self._compare(self.pinned, self._app.view, self.revision)

    # a description: else Textual builds one from repr(view), the whole repository
    @work(exclusive=True, group="compare", exit_on_error=False, description="compare")
    async def _compare(self, pin: Pin, view: View, rev: str | None) -> None:
        diff = await in_daemon_thread(
            diff_resolutions,
            pin.view.resolution,
            view.resolution,
            rev_a=pin.rev,
            rev_b=rev,
            digest_a=pin.view.digest,
            digest_b=view.digest,
        )
        if self._app.view is not view or self.pinned is not pin:
            return  # superseded by a newer resolution or an unpin
        self.compare_diff = diff
        self.compare_marks = marks_for(diff)
        self._refresh_tables()
        self._show_bar()

    def action_show_diff(self) -> None:
        app = self._app
        if self.pinned is None:
            app.notify("Nothing pinned: press p to pin the bundle on screen first.")
            return
        if self.compare_diff is None:
            app.notify("comparing…")
            return
        app.push_screen(DiffScreen(self.pinned, self.compare_diff))

    def _decorate_tables(self) -> None:
        for selector in ("#included-table", "#excluded-table"):
            try:
                table = self._app.main.query_one(selector)
            except NoMatches:
                continue
            decorate(table, lambda: self.compare_marks)

    def _refresh_tables(self) -> None:
        for selector in ("#included-table", "#excluded-table"):
            try:
                self._app.main.query_one(selector).refresh()
            except NoMatches:
                continue

    # -- the bar that says what is pinned and which revision is read ---------------------------

    def _show_bar(self) -> None:
        try:
            bar = self._app.main.query_one("#extras-bar", Static)
        except NoMatches:
            try:
                status = self._app.main.query_one("#status")
            except NoMatches:
                return
            bar = Static("", id="extras-bar")
            bar.styles.height = "auto"
            bar.styles.padding = (0, 1)
            self._app.main.mount(bar, before=status)
        lines = []
        if self.revision is not None:
            short = (self.revision_commit or "")[:12]
            label = short if self.revision == self.revision_commit else self.revision
            lines.append(
                f"[b ansi_yellow]revision {escape(inert(label, keep_newlines=False))}[/]"
                + (f" ({short})" if short and short != label else "")
                + " — what the repository [i]said[/i] then (read from git) · "
                "as_of picks what was [i]in effect[/i] · g: change"
            )
        if self.pinned is not None:
            text = f"[b ansi_cyan]pinned[/] {markup_literal(self.pinned.describe())}"
            diff = self.compare_diff
            if diff is not None:
                if diff.same:
                    text += " · [ansi_green]same context[/]"
                else:
                    moved_in = sum(1 for c in diff.objects if c.primary in _IN)
                    moved_out = sum(1 for c in diff.objects if c.primary in _OUT)
                    changed = sum(
                        1
                        for c in diff.objects
                        if c.primary not in _IN + _OUT and c.aspects != ("rank",)
                    )
                    text += (
                        f" · now [ansi_green]+{moved_in} in[/] [ansi_red]-{moved_out} out[/] "
                        f"[ansi_yellow]~{changed} changed[/]"
                    )
            text += " · D diff · p unpin"
            lines.append(text)
        bar.update("\n".join(lines))
        bar.display = bool(lines)

    # -- the change agenda -------------------------------------------------------------------

    def action_next_change(self) -> None:
        self._walk(True)

    def action_previous_change(self) -> None:
        self._walk(False)

    @work(exclusive=True, group="walk", exit_on_error=False)
    async def _walk(self, forward: bool) -> None:
        app = self._app
        repo = self._app.session.repository
        if repo is None:
            return
        query = self._app.inputs.query(self._app.clock())
        everything = self.agenda_everything
        cache = app.session.cache_for(repo)
        if forward:
            point = await in_daemon_thread(
                partial(
                    find_change, forward=True, rev=self.revision, everything=everything, cache=cache
                ),
                repo,
                query,
            )
        elif query.as_of <= BEGINNING_OF_TIME:
            app.notify(END_OF_TIME_NOTE, severity="warning")
            return
        else:
            # Just before as_of: standing on a change instant, ',' goes to the one before it.
            earlier = replace(query, as_of=query.as_of - EPSILON)
            point = await in_daemon_thread(
                partial(
                    find_change,
                    forward=False,
                    rev=self.revision,
                    everything=everything,
                    cache=cache,
                ),
                repo,
                earlier,
            )
        if point is None:
            what = "change of this bundle" if everything else "change to what the role receives"
            app.notify(f"no {'later' if forward else 'earlier'} {what}")
            return
        app.set_as_of(point.first_instant)
        verb = "changes" if forward else "changed"
        app.notify(
            f"{when_text(point)}: {summarize(point)}",
            title=f"The bundle {verb} ({'next' if forward else 'previous'})",
        )

    def action_toggle_agenda_mode(self) -> None:
        self.agenda_everything = not self.agenda_everything
        mode = (
            "every digest change" if self.agenda_everything else "changes to what the role receives"
        )
        self._app.notify(f". , and the agenda: {mode}")

    def action_agenda(self) -> None:
        app = self._app
        repo = self._app.session.repository
        if repo is None:
            return
        query = self._app.inputs.query(self._app.clock())

        def done(when: datetime | None) -> None:
            if when is not None:
                app.set_as_of(when)

        def toggled(everything: bool) -> None:
            self.agenda_everything = everything

        cache = app.session.cache_for(repo)
        screen = AgendaScreen(repo, query, self.revision, self.agenda_everything, toggled, cache)
        app.push_screen(screen, done)

    # -- revisions ---------------------------------------------------------------------------

    @work(exclusive=True, group="revisions", exit_on_error=False)
    async def action_pick_revision(self) -> None:
        app = self._app
        try:
            revisions = await asyncio.to_thread(list_revisions, self._app.root)
        except GitRevisionError:
            app.notify(
                f"{self._app.root} is not inside a git repository: there are no revisions to read",
                severity="warning",
            )
            return

        def done(choice: str | None) -> None:
            if choice is None:
                return
            app.set_revision(None if choice == WORKING_TREE else choice)

        app.push_screen(RevisionScreen(revisions, self.revision_commit), done)

    @work(exclusive=True, group="revision", exit_on_error=False)
    async def set_revision(self, rev: str | None, known_at: datetime | None = None) -> None:
        """Read the repository at git revision ``rev`` (None: the files on disk) and re-resolve;
        ``known_at``: ``rev`` is the commit known at that instant (the bundle's source says so)."""
        app = self._app
        old = self._app.session
        if self.revision is None:
            # The persistent parse cache belongs to the files on disk; a revision never
            # writes into it (one entry per path would thrash it).
            self.disk_store = getattr(getattr(old, "loader", None), "store", None)
        store = self.disk_store
        if rev is None:
            session = Session(self._app.root, store=store)
            commit = None
        else:
            try:
                tree = await asyncio.to_thread(GitTree, self._app.root, rev)
            except GitRevisionError as exc:
                app.notify(str(exc), severity="error", title="Revision")
                return
            tree.known_at = known_at
            session = Session(self._app.root, tree=tree)
            commit = tree.commit
        self._app.session = session
        self.revision = rev
        self.revision_commit = commit
        old_tree = getattr(old, "tree", None)
        if isinstance(old_tree, GitTree):
            old_tree.close()
        self._show_bar()
        app.reload_repository()

    # -- why not -----------------------------------------------------------------------------

    # a description: else Textual builds one from repr(view), the whole repository
    @work(exclusive=True, group="whynot", exit_on_error=False, description="why not")
    async def _why_not(self, view: View, uid: int, box: Static) -> None:
        resolution = view.resolution
        try:
            sentences = await self.why_not_job.submit(
                lambda cancelled: why_not(
                    resolution,
                    resolution.repository,
                    uid,
                    cancelled=cancelled,
                    cache=self._app.session.cache_for(resolution.repository),
                )
            )
        except WhyNotCancelled:
            return  # another selection asked a newer question
        if self._app.view is not view:
            return
        text = "\n".join(f"• {escape(inert(s, keep_newlines=False))}" for s in sentences)
        box.update(f"[b]Why not — what would include it[/b]\n{text}")
        box.display = bool(sentences)


def start_at_revision(app: Any, rev: str) -> None:
    """Open the explorer on git revision ``rev`` (before it runs; raises GitRevisionError)."""
    tree = GitTree(app.root, rev)
    app.disk_store = getattr(getattr(app.session, "loader", None), "store", None)
    app.session = Session(app.root, tree=tree)
    app.revision = rev
    app.revision_commit = tree.commit


__all__ = ["EXTRA_BINDINGS", "ExplorerExtras", "start_at_revision"]
