"""Both time axes in the explorer, and each object's git history.

* The axes bar (:class:`~octui.tui.widgets.axes.AxesBar`) shows the two axes side by side
  and apart while a revision is read: *repository* — a git revision, or the commit known
  at an instant — and *in effect* — as_of.
* ``K`` ("what did we believe then") asks for one date and sets both axes to it: the
  repository as committed then, resolved as of then. The other keys still move as_of
  alone; the repository stays where ``K`` put it.
* ``L`` shows, in the detail pane, every commit that changed the selected object
  (:class:`~octui.tui.widgets.objectlog.ObjectLogView`); choosing a commit there
  (:class:`~octui.tui.messages.CommitChosen`) opens the repository at it.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from functools import partial
from typing import ClassVar

from textual.binding import Binding
from textual.css.query import NoMatches

from octui.analysis.objlog import object_log
from octui.core.model import Exclusion
from octui.load.gitrun import GitRevisionError
from octui.load.known_at import CommitInfo, commit_info, known_at_revision
from octui.resolve.result import Included
from octui.tui.features import Command, Feature
from octui.tui.messages import CommitChosen, RevisionRequested, Row, SelectionChanged, ViewApplied
from octui.tui.screens.believe import BelieveScreen
from octui.tui.state import View
from octui.tui.widgets.axes import AxesBar, axes_text, day_text
from octui.tui.widgets.objectlog import ObjectLogView
from octui.tui.widgets.status import above_status


class TimeTravel(Feature):
    """The axes bar, "what did we believe then" (``K``), an object's history (``L``)."""

    NAME = "timetravel"
    BINDINGS: ClassVar[list[Binding]] = [
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

    known_at: datetime | None = None
    """The instant the repository axis was set to by ``K`` / ``--known-at`` (else None)."""
    known_at_commit: str | None = None
    """The commit known at :attr:`known_at`."""
    object_log_on: bool = False
    """Whether the detail pane shows the selected object's history (``L``)."""
    _commit_info: CommitInfo | None = None

    def on_view_applied(self, message: ViewApplied) -> None:
        self.show_axes(message.view)

    def on_selection_changed(self, message: SelectionChanged) -> None:
        self._show_object_log(message.item)

    def palette_commands(self) -> list[Command]:
        return [
            ("What did we believe then…", self.action_believe, "K: one date for both axes"),
            ("Object history (git)", self.action_toggle_object_log, "L: who changed it"),
        ]

    # -- the axes -----------------------------------------------------------------------------

    def _known(self) -> datetime | None:
        if self.known_at is not None and self.host.revision_commit == self.known_at_commit:
            return self.known_at
        return None

    def show_axes(self, view: View) -> None:
        host = self.host
        try:
            main = host.main
        except NoMatches:
            return
        bar = above_status(main, AxesBar, "axes", lambda: AxesBar("", id="axes"))
        if bar is None:
            return
        commit = host.revision_commit
        if commit is None:
            bar.display = False  # the files on disk: the inputs pane's as_of says it all
            return
        info = self._commit_info
        if info is None or info.commit != commit:
            info = self._commit_info = commit_info(host.root, commit)
        bar.update(
            axes_text(
                as_of=view.query.as_of,
                following_now=host.inputs.as_of is None,
                revision=host.revision,
                commit=info,
                known_at=self._known(),
            )
        )
        bar.display = True

    @property
    def axes_line(self) -> str:
        """The axis line as plain text ("" when hidden), for tests."""
        try:
            bar = self.host.main.query_one("#axes", AxesBar)
        except NoMatches:
            return ""
        return str(bar.render()) if bar.display else ""

    def action_believe(self) -> None:
        current = self.host.inputs.as_of or self.host.clock()

        def done(when: datetime | None) -> None:
            if when is not None:
                self.believe(when)

        self.host.push_screen(BelieveScreen(day_text(current)), done)

    def believe(self, when: datetime) -> None:
        """Set both axes to ``when``: the repository as known then, and as_of."""
        self.run(partial(self._believe, when), name="what we believed then", group="believe")

    async def _believe(self, when: datetime) -> None:
        host = self.host
        try:
            commit = await asyncio.to_thread(known_at_revision, host.root, when)
        except GitRevisionError as exc:
            host.notify(str(exc), severity="error", title="Known at")
            return
        self.known_at, self.known_at_commit = when, commit
        host.set_as_of(when)
        host.post_message(RevisionRequested(commit, known_at=when))

    def start_at(self, when: datetime, commit: str) -> None:
        """The explorer opens on ``commit``, the one known at ``when`` (``--known-at``)."""
        self.known_at, self.known_at_commit = when, commit

    # -- the object's history -----------------------------------------------------------------

    def action_toggle_object_log(self) -> None:
        self.object_log_on = not self.object_log_on
        self._show_object_log(self.host.selected)

    def _show_object_log(self, item: Row | None) -> None:
        try:
            detail = self.host.main.query_one("#detail")
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
            self.run(
                partial(self._load_object_log, box, object_id),
                name="object history",
                group="objlog",
            )

    async def _load_object_log(self, box: ObjectLogView, object_id: str) -> None:
        try:
            log = await asyncio.to_thread(object_log, str(self.host.root), object_id)
        except GitRevisionError as exc:
            box.show_log(object_id, None, str(exc))
            return
        if self.host.selected is None or not box.display:
            return
        box.show_log(object_id, log)

    def open_commit(self, message: CommitChosen) -> None:
        """A commit was chosen in the object's history: read the repository there."""
        self.known_at = None
        self.host.post_message(RevisionRequested(message.commit))
        self.host.notify(
            f"Reading the repository at commit {message.commit[:12]}; as_of is unchanged.",
            title="Revision",
        )


__all__ = ["TimeTravel"]
