"""Compare against a pin: freeze the current bundle, keep changing the inputs, see the difference.

``p`` pins the bundle on screen (its inputs, revision and digest). From then on every
new resolution is compared with the pin (:func:`octui.analysis.diff.diff_resolutions`, off
the UI thread): rows that differ are marked in the Included and Excluded panes — ``+`` on
green for what is newly in, ``-`` on red for what left the bundle, ``~`` on yellow for
what changed in place (the glyph says it without colour, through the tables' row-style
hook) — a bar above the status line counts them (and names the revision being read), and
``D`` opens the diff view (:class:`~octui.tui.screens.diff.DiffScreen`). ``p`` again
unpins.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, ClassVar

from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import Static

from octui.analysis.diff import diff_resolutions
from octui.analysis.diff_result import Diff
from octui.core.model import Exclusion
from octui.core.textsafe import inert
from octui.core.textsafe import markup_escape as escape
from octui.resolve.result import Included
from octui.tui.background import in_daemon_thread
from octui.tui.features import Command, Feature
from octui.tui.literal import markup_literal
from octui.tui.messages import RevisionChanged, ViewApplied
from octui.tui.screens.diff import DiffScreen, Pin
from octui.tui.state import View
from octui.tui.widgets.cells import Cell
from octui.tui.widgets.quiet import show_text
from octui.tui.widgets.rowtable import RowTable
from octui.tui.widgets.status import above_status

NEW_STYLE = "on #1f4d1f"
GONE_STYLE = "on #5a1e1e"
CHANGED_STYLE = "on #4d4214"
LIGHT_STYLES = {NEW_STYLE: "on #c4e8c4", GONE_STYLE: "on #f2c4c4", CHANGED_STYLE: "on #eedd9c"}
"""The same marks on a light theme (dark text stays readable on them)."""
MARK_GLYPHS = {NEW_STYLE: "+", GONE_STYLE: "-", CHANGED_STYLE: "~"}
"""What each mark says without colour (``NO_COLOR``, colour blindness)."""

MARKED_TABLES = ("#included-table", "#excluded-table")


def row_mark_key(row: Any) -> tuple[object, ...] | None:
    """How a pane row is looked up among the changes (current side)."""
    if isinstance(row, Included):
        return ("i", row.obj.id, row.obj.version)
    if isinstance(row, Exclusion):
        return ("x", row.id, row.version, row.reason.value)
    return None


def marks_for(diff: Diff) -> dict[tuple[object, ...], str]:
    """Row key (current side) → style, for every change that is more than a rank move."""
    marks: dict[tuple[object, ...], str] = {}
    for change in diff.objects:
        after = change.after
        if after is None or change.rank_only:
            continue
        key: tuple[object, ...] = (
            ("i", after.id, after.version)
            if after.included
            else ("x", after.id, after.version, after.reason)
        )
        if change.moved_in:
            marks[key] = NEW_STYLE
        elif change.moved_out:
            marks[key] = GONE_STYLE
        else:
            marks[key] = CHANGED_STYLE
    return marks


def bar_text(pin: Pin, diff: Diff | None) -> str:
    """The bar's line about the pin: what is pinned and how the bundle on screen differs."""
    text = f"[b ansi_cyan]pinned[/] {markup_literal(pin.describe())}"
    if diff is not None:
        if diff.same:
            text += " · [ansi_green]same context[/]"
        else:
            moved_in = sum(1 for c in diff.objects if c.moved_in)
            moved_out = sum(1 for c in diff.objects if c.moved_out)
            changed = sum(1 for c in diff.objects if not (c.moved_in or c.moved_out or c.rank_only))
            text += (
                f" · now [ansi_green]+{moved_in} in[/] [ansi_red]-{moved_out} out[/] "
                f"[ansi_yellow]~{changed} changed[/]"
            )
    return text + " · D diff · p unpin"


def revision_text(revision: str, commit: str | None) -> str:
    """The bar's line about the git revision being read."""
    short = (commit or "")[:12]
    label = short if revision == commit else revision
    return (
        f"[b ansi_yellow]revision {escape(inert(label, keep_newlines=False))}[/]"
        + (f" ({short})" if short and short != label else "")
        + " — what the repository [i]said[/i] then (read from git) · "
        "as_of picks what was [i]in effect[/i] · g: change"
    )


class Compare(Feature):
    """Pin a bundle, mark what differs from it in the panes, show the diff."""

    NAME = "compare"
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("p", "pin", "Pin / unpin the bundle to compare against", show=False),
        Binding("D", "show_diff", "Diff against the pinned bundle", show=False),
    ]

    pinned: Pin | None = None
    """The bundle compared against (None: nothing is pinned)."""
    diff: Diff | None = None
    """The pin against the bundle on screen, once computed."""
    marks: dict[tuple[object, ...], str] = {}  # noqa: RUF012 - replaced, never mutated
    """Row key → mark style, from :attr:`diff`."""

    def on_view_applied(self, message: ViewApplied) -> None:
        self._decorate_tables()
        if self.pinned is not None:
            self._start(self.pinned, message.view)
        self.show_bar()

    def on_revision_changed(self, message: RevisionChanged) -> None:
        self.show_bar()

    def palette_commands(self) -> list[Command]:
        return [
            (
                "Unpin the compared bundle" if self.pinned else "Pin this bundle to compare",
                self.action_pin,
                "p: then change role, task, as_of or revision and see the difference",
            ),
            ("Show diff against the pinned bundle", self.action_show_diff, "D"),
        ]

    def action_pin(self) -> None:
        host = self.host
        if self.pinned is not None:
            self.pinned, self.diff, self.marks = None, None, {}
            self._refresh_tables()
            self.show_bar()
            host.notify("Unpinned.")
            return
        if host.view is None:
            host.notify("nothing to pin yet", severity="warning")
            return
        self.pinned = Pin(host.view, host.revision)
        host.notify(
            f"Pinned {self.pinned.describe()}. Change the inputs: differences are marked "
            "in the panes; D shows the diff, p unpins.",
            title="Compare",
        )
        self._start(self.pinned, host.view)

    def _start(self, pin: Pin, view: View) -> None:
        self.run(
            partial(self._compare, pin, view, self.host.revision), name="compare", group="compare"
        )

    async def _compare(self, pin: Pin, view: View, rev: str | None) -> None:
        def compare() -> Diff:  # (the digests too, off the UI thread: see View.digest)
            return diff_resolutions(
                pin.view.resolution,
                view.resolution,
                rev_a=pin.rev,
                rev_b=rev,
                digest_a=pin.view.digest,
                digest_b=view.digest,
            )

        diff = await in_daemon_thread(compare)
        if self.host.view is not view or self.pinned is not pin:
            return  # superseded by a newer resolution or an unpin
        self.diff = diff
        self.marks = marks_for(diff)
        self._refresh_tables()
        self.show_bar()

    def action_show_diff(self) -> None:
        if self.pinned is None:
            self.host.notify("Nothing pinned: press p to pin the bundle on screen first.")
            return
        if self.diff is None:
            self.host.notify("comparing…")
            return
        self.host.push_screen(DiffScreen(self.pinned, self.diff))

    def mark_row(self, table: RowTable, row: Any, cells: Sequence[Cell]) -> Sequence[Cell]:
        """The row-style hook of the marked tables: paint the first cell of a changed row."""
        key = row_mark_key(row)
        style = self.marks.get(key) if key is not None else None
        if not style or not cells:
            return cells
        out = list(cells)
        text, spec = out[0]
        glyph = MARK_GLYPHS.get(style, "")
        right = bool(table.columns) and table.columns[0].justify == "right"
        text = f"{glyph}{text.lstrip()}" if right else f"{glyph} {text}"
        if not table.app.current_theme.dark:
            style = LIGHT_STYLES.get(style, style)
        out[0] = (text, f"{spec} {style}".strip())
        return out

    def _tables(self) -> list[RowTable]:
        found = []
        for selector in MARKED_TABLES:
            try:
                found.append(self.host.main.query_one(selector, RowTable))
            except NoMatches:
                continue
        return found

    def _decorate_tables(self) -> None:
        for table in self._tables():
            table.row_style = self.mark_row

    def _refresh_tables(self) -> None:
        for table in self._tables():
            table.refresh()

    def show_bar(self) -> None:
        """The bar above the status line: the revision being read and what is pinned."""
        bar = above_status(self.host.main, Static, "extras-bar", _extras_bar)
        if bar is None:
            return
        lines = []
        if self.host.revision is not None:
            lines.append(revision_text(self.host.revision, self.host.revision_commit))
        if self.pinned is not None:
            lines.append(bar_text(self.pinned, self.diff))
        show_text(bar, "\n".join(lines))
        bar.display = bool(lines)


def _extras_bar() -> Static:
    bar = Static("", id="extras-bar")
    bar.styles.height = "auto"
    bar.styles.padding = (0, 1)
    return bar


__all__ = ["Compare", "marks_for", "row_mark_key"]
