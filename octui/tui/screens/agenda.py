"""The change agenda screen (``A``): every change of the bundle at any instant.

The agenda is swept once, off the UI thread, into a virtualised table, each change with
its cause and what changes; Enter on one moves ``as_of`` there. ``a`` switches between
the changes to what the role receives (the default) and every digest change. Walking
from one change to the next (``.`` / ``,``) is :mod:`octui.tui.features.agenda`.

The sweep runs as a worker of the app (not of this screen), so the app's one
``Worker.StateChanged`` handler reports it when it fails; a sweep that ends after the
screen closed shows nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import ClassVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from octui.analysis.agenda import change_agenda
from octui.analysis.agenda_points import ChangePoint
from octui.analysis.diff_result import ObjectChange
from octui.core.textsafe import inert
from octui.core.timeutil import format_day, format_instant
from octui.load.assemble import Repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.result import Query
from octui.tui.background import in_daemon_thread
from octui.tui.host import Host
from octui.tui.widgets.cells import Cell, Column
from octui.tui.widgets.rowtable import RowTable


def summarize(point: ChangePoint) -> str:
    """One line: what came in, what went out, what else changed."""
    d = point.diff
    ins = [c for c in d.objects if c.moved_in]
    outs = [c for c in d.objects if c.moved_out]
    other = [c for c in d.objects if c not in ins and c not in outs and not c.rank_only]
    parts = []
    if ins:
        parts.append("+" + ", +".join(_label(c) for c in ins))
    if outs:
        parts.append("-" + ", -".join(_label(c) for c in outs))
    stale = [c for c in other if "stale" in c.aspects and c.after is not None and c.after.stale]
    if stale:
        parts.append("stale: " + ", ".join(c.id for c in stale))
    rest = [c for c in other if c not in stale]
    for change in rest[:3]:
        after = change.after
        state = after.state if after is not None else "changed"
        parts.append(f"~{_label(change)} now {state}")
    if len(rest) > 3:
        parts.append(f"{len(rest) - 3} more")
    if not parts:
        parts.append("order or warnings only")
    return inert("; ".join(parts), keep_newlines=False)


def _label(change: ObjectChange) -> str:
    entry = change.after or change.before
    return entry.label if entry is not None else change.id


def causes_text(point: ChangePoint) -> str:
    """Why the bundle changes then: "policies.refunds@2 takes effect", "pricing.team@1 goes
    stale"."""
    return inert("; ".join(c.detail for c in point.causes), keep_newlines=False)


def when_text(point: ChangePoint) -> str:
    return ("after " if point.after else "") + format_day(point.at)


MODES = {
    False: "changes to what the role receives",
    True: "every digest change",
}


def shown(points: Sequence[ChangePoint], everything: bool) -> list[ChangePoint]:
    """The points of one mode: every digest change, or those changing what the role receives."""
    return list(points) if everything else [p for p in points if p.receives]


class AgendaScreen(ModalScreen[datetime | None]):
    """Every change of the bundle for the current inputs, at any instant: scroll through the
    whole agenda (a virtualised table, any length). ``a`` switches between the changes to
    what the role receives and every digest change; Enter moves as_of there."""

    DEFAULT_CSS = """
    AgendaScreen { align: center middle; }
    AgendaScreen > Vertical {
        width: 90%; height: 80%; border: round $primary; background: $surface; padding: 0 1;
    }
    AgendaScreen #agenda-title { height: auto; }
    AgendaScreen RowTable { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Close"),
        Binding("A", "dismiss_none", "Close", show=False),
        Binding("a", "toggle_all", "Receives / every digest change"),
    ]

    def __init__(
        self,
        repository: Repository,
        query: Query,
        rev: str | None,
        everything: bool = False,
        on_toggle: Callable[[bool], None] | None = None,
        cache: ResolutionCache | None = None,
    ) -> None:
        super().__init__()
        self.repository = repository
        self.cache = cache
        """``repository``'s resolution cache (the session's)."""
        self.query_ = query
        self.rev = rev
        self.everything = everything
        self.on_toggle = on_toggle
        self.all_points: tuple[ChangePoint, ...] = ()
        self.points: list[ChangePoint] = []
        self.done = asyncio.Event()

    def _title(self) -> Text:
        q = self.query_
        role = inert(str(q.role), keep_newlines=False)
        where = f"revision {inert(self.rev, keep_newlines=False)}" if self.rev else "working tree"
        count = f" · {len(self.points)} of {len(self.all_points)}" if self.done.is_set() else ""
        return Text.assemble(
            ("Changes to the bundle", "bold"),
            f" for role {role} · {where} · as_of {format_instant(q.as_of)}\n",
            ("showing: ", "dim"),
            (MODES[self.everything], "bold cyan"),
            (count, "dim"),
            ("\nEnter: move as_of there · a: " + MODES[not self.everything], "dim"),
            (" · . , next/previous change · Esc: close", "dim"),
        )

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._title(), id="agenda-title")
            yield RowTable(
                [
                    Column("when", 22),
                    Column("", 8),
                    Column("because", None, min_width=20, weight=1),
                    Column("what changes", None, min_width=20, weight=2),
                ],
                self._cells,
                lambda p: (p.at, p.after),
                empty="(looking for changes…)",
                id="agenda-table",
            )

    def _cells(self, point: ChangePoint, index: int) -> list[Cell]:
        upcoming = point.upcoming(self.query_.as_of)
        return [
            (when_text(point), "bold" if upcoming else ""),
            ("upcoming" if upcoming else "past", "cyan" if upcoming else "dim"),
            (causes_text(point), ""),
            (summarize(point), ""),
        ]

    def on_mount(self) -> None:
        self.query_one(RowTable).focus()
        host = cast("Host", self.app)
        host.run_worker(self._find, name="the change agenda", group="agenda", exit_on_error=False)

    async def _find(self) -> None:
        # The screen never shows a point's digest: the sweep compares bundles and hashes none
        # (a query that trims, resolved at every candidate instead, is compared by digest).
        agenda = await in_daemon_thread(
            change_agenda,
            self.repository,
            self.query_,
            rev=self.rev,
            cache=self.cache,
            digests=False,
        )
        if not self.is_attached:
            return  # closed meanwhile
        self.all_points = agenda.points
        self.done.set()
        self._show()

    def _show(self) -> None:
        """Fill the table for the current mode; the cursor on the first upcoming change."""
        table = self.query_one(RowTable)
        self.points = shown(self.all_points, self.everything)
        table.set_rows(self.points)
        self.query_one("#agenda-title", Static).update(self._title())
        if not self.points:
            table.empty_text = "(no change of this bundle at any instant)"
            table.refresh()
            return
        as_of = self.query_.as_of
        upcoming = next((i for i, p in enumerate(self.points) if p.upcoming(as_of)), None)
        table.move_to(upcoming if upcoming is not None else len(self.points) - 1)

    def action_toggle_all(self) -> None:
        self.everything = not self.everything
        if self.on_toggle is not None:
            self.on_toggle(self.everything)
        if self.done.is_set():
            self._show()
        else:
            self.query_one("#agenda-title", Static).update(self._title())

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        event.stop()
        point: ChangePoint = event.row
        self.dismiss(point.first_instant)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
