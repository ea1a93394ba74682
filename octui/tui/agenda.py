"""The change agenda in the explorer: walk as_of from one change of the bundle to the next.

``.`` / ``,`` move ``as_of`` (and so the timeline marker) to the next / previous instant
at which the bundle of the current role, task and revision changes — objects starting,
expiring, being superseded or going stale — and say what changed. ``A`` lists the
changes around ``as_of`` (found lazily, a few at a time, off the UI thread); Enter on
one moves ``as_of`` there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from octui.changes import ChangePoint, walk_changes
from octui.diff import ObjectChange
from octui.loader import Repository
from octui.pipeline import Query
from octui.textsafe import inert
from octui.timeutil import format_day, format_instant
from octui.tui.background import in_daemon_thread
from octui.tui.widgets.rowtable import Cell, Column, RowTable

AROUND = 12
"""How many changes the agenda lists on each side of ``as_of``."""


def summarize(point: ChangePoint) -> str:
    """One line: what came in, what went out, what else changed."""
    d = point.diff
    ins = [c for c in d.objects if c.primary in ("added", "now-included")]
    outs = [c for c in d.objects if c.primary in ("removed", "now-excluded")]
    other = [c for c in d.objects if c not in ins and c not in outs and c.aspects != ("rank",)]
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


def when_text(point: ChangePoint) -> str:
    return ("after " if point.after else "") + format_day(point.at)


def around(
    repository: Repository, query: Query, rev: str | None, count: int = AROUND
) -> tuple[Iterator[ChangePoint], Iterator[ChangePoint]]:
    """Lazy walkers: changes after ``query.as_of`` and changes already in effect at it."""
    return (
        walk_changes(repository, query, forward=True, rev=rev),
        walk_changes(repository, query, forward=False, rev=rev),
    )


class AgendaScreen(ModalScreen[datetime | None]):
    """The changes around ``as_of`` for the current inputs. Enter moves as_of there."""

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
    ]

    def __init__(self, repository: Repository, query: Query, rev: str | None) -> None:
        super().__init__()
        self.repository = repository
        self.query_ = query
        self.rev = rev
        self.points: list[ChangePoint] = []
        self.done = asyncio.Event()

    def compose(self) -> ComposeResult:
        q = self.query_
        role = inert(str(q.role), keep_newlines=False)
        where = f"revision {inert(self.rev, keep_newlines=False)}" if self.rev else "working tree"
        with Vertical():
            yield Static(
                Text.assemble(
                    ("Changes to the bundle", "bold"),
                    f" for role {role} · {where} · as_of {format_instant(q.as_of)}\n",
                    ("Enter: move as_of there · . , next/previous change · Esc: close", "dim"),
                ),
                id="agenda-title",
            )
            yield RowTable(
                [
                    Column("when", 22),
                    Column("", 8),
                    Column("what changes", None, min_width=20),
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
            (summarize(point), ""),
        ]

    def on_mount(self) -> None:
        self.query_one(RowTable).focus()
        self._find()

    @work(exclusive=True, group="agenda", exit_on_error=False)
    async def _find(self) -> None:
        ahead, behind = around(self.repository, self.query_, self.rev)
        future: list[ChangePoint] = []
        past: list[ChangePoint] = []
        table = self.query_one(RowTable)
        for walker, into in ((ahead, future), (behind, past)):
            for _ in range(AROUND):
                point = await in_daemon_thread(next, walker, None)
                if point is None:
                    break
                into.append(point)
                self.points = list(reversed(past)) + future
                table.set_rows(self.points)
        if not self.points:
            table.empty_text = "(no change of this bundle at any instant)"
            table.refresh()
        else:
            # Put the cursor on the first upcoming change.
            table.move_to(len(past) if future else len(past) - 1)
        self.done.set()

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        event.stop()
        point: ChangePoint = event.row
        self.dismiss(point.first_instant)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def query_for_walk(query: Query, as_of: datetime) -> Query:
    return replace(query, as_of=as_of)
