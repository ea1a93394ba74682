"""Compare against a pin: freeze the current bundle, keep changing the inputs, see the difference.

``p`` pins the bundle on screen (its inputs, revision and digest). From then on every
new resolution is compared with the pin (:func:`octui.analysis.diff.diff_resolutions`, off the
UI thread, in :mod:`.extras`): rows that differ are marked in the Included and
Excluded panes — ``+`` on green for what is newly in, ``-`` on red for what left the
bundle, ``~`` on yellow for what changed in place (the glyph says it without colour) —
a bar above the status line counts them, and ``D`` opens the diff view
(:class:`DiffScreen`). ``p`` again unpins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from octui.analysis.diff import (
    SECTIONS,
    Diff,
    ObjectChange,
    describe_change,
    describe_side,
    field_lines,
    grouped,
)
from octui.core.model import Exclusion
from octui.core.textsafe import inert
from octui.core.timeutil import format_instant
from octui.resolve.result import Included
from octui.tui.state import View
from octui.tui.widgets.rowtable import Cell, RowTable

NEW_STYLE = "on #1f4d1f"
GONE_STYLE = "on #5a1e1e"
CHANGED_STYLE = "on #4d4214"
LIGHT_STYLES = {NEW_STYLE: "on #c4e8c4", GONE_STYLE: "on #f2c4c4", CHANGED_STYLE: "on #eedd9c"}
"""The same marks on a light theme (dark text stays readable on them)."""
MARK_GLYPHS = {NEW_STYLE: "+", GONE_STYLE: "-", CHANGED_STYLE: "~"}
"""What each mark says without colour (``NO_COLOR``, colour blindness)."""


@dataclass(frozen=True)
class Pin:
    """The bundle pinned for comparison, and where it came from."""

    view: View
    rev: str | None
    """The git revision it was read from (None: the files on disk)."""

    def describe(self) -> str:
        q = self.view.query
        return describe_side(q.role, q.task, format_instant(q.as_of), self.rev)


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
        if after is None or change.aspects == ("rank",):
            continue
        key: tuple[object, ...] = (
            ("i", after.id, after.version)
            if after.included
            else ("x", after.id, after.version, after.reason)
        )
        primary = change.primary
        if primary in ("added", "now-included"):
            marks[key] = NEW_STYLE
        elif primary == "now-excluded":
            marks[key] = GONE_STYLE
        else:
            marks[key] = CHANGED_STYLE
    return marks


def decorate(table: RowTable, marks: Callable[[], dict[tuple[object, ...], str]]) -> None:
    """Have ``table`` paint the first cell of rows that differ from the pin (idempotent)."""
    if getattr(table, "_octui_compare_marks", None) is not None:
        table._octui_compare_marks = marks  # type: ignore[attr-defined]
        return
    table._octui_compare_marks = marks  # type: ignore[attr-defined]
    original: Callable[[Any, int], Sequence[Cell]] = table._cells

    right = bool(table.columns) and table.columns[0].justify == "right"

    def cells(row: Any, index: int) -> Sequence[Cell]:
        out = list(original(row, index))
        key = row_mark_key(row)
        style = table._octui_compare_marks().get(key) if key is not None else None  # type: ignore[attr-defined]
        if style and out:
            text, spec = out[0]
            glyph = MARK_GLYPHS.get(style, "")
            text = f"{glyph}{text.lstrip()}" if right else f"{glyph} {text}"
            if not table.app.current_theme.dark:
                style = LIGHT_STYLES.get(style, style)
            out[0] = (text, f"{spec} {style}".strip())
        return out

    table._cells = cells


def _line_style(change: ObjectChange) -> str:
    primary = change.primary
    if primary in ("added", "now-included"):
        return "green"
    if primary in ("removed", "now-excluded"):
        return "red"
    if change.aspects == ("rank",):
        return "dim"
    return "yellow"


def diff_text(pin: Pin, diff: Diff, everything: bool = False) -> Text:
    """The Diff tab's body: what changed from the pin (A) to what is on screen (B) — each
    object under one heading, each changed field old → new; without ``everything``, only
    what the role could receive (and its findings)."""
    full = diff
    if not everything:
        diff = diff.receivable_only()
    text = Text(no_wrap=False)
    text.append("A (pinned) ", style="bold")
    text.append(inert(pin.describe(), keep_newlines=False) + "\n")
    text.append("B (now)    ", style="bold")
    text.append(inert(diff.b.describe(), keep_newlines=False) + "\n")
    if diff.same:
        text.append("Same context: the two bundles digest identically.\n", style="green")
    summary = diff.summary()
    counts = [
        f"{summary['now-included'] + summary['added']} in",
        f"{summary['now-excluded'] + summary['removed']} out",
        f"{summary['reason']} reason",
        f"{len(diff.versions)} version",
        f"{summary['rank']} rank",
        f"warnings +{len(diff.warnings_added)} -{len(diff.warnings_removed)}",
    ]
    text.append(" · ".join(counts) + "\n", style="dim")
    if everything:
        text.append("every exclusion change · a: only what the role could receive\n\n", style="dim")
    else:
        hidden = full.receivable_only().hidden
        text.append(
            f"what the role could receive ({hidden} other exclusion change"
            f"{'s' if hidden != 1 else ''} hidden) · a: every exclusion change\n\n",
            style="dim",
        )
    by_version, sections = grouped(diff)
    if diff.versions:
        text.append("Version changed\n", style="bold")
    for v in diff.versions:
        before = ", ".join(f"@{n}" for n in v.before)
        after = ", ".join(f"@{n}" for n in v.after)
        text.append(f"  ~ {inert(v.id, keep_newlines=False)} {before} → {after}\n", style="yellow")
        for change in by_version[v.id]:
            text.append(f"      {inert(describe_change(change), keep_newlines=False)}\n")
            for line in field_lines(change):
                text.append(f"        {inert(line, keep_newlines=False)}\n", style="dim")
    titles = {key: (title, mark) for key, title, mark in SECTIONS}
    for key, rows in sections:
        title, mark = titles[key]
        if key == "rank":
            text.append(
                f"↕ {len(rows)} object{'s' if len(rows) != 1 else ''} only moved in rank\n",
                style="dim",
            )
            continue
        text.append(f"{title}\n", style="bold")
        for change in rows:
            line = inert(describe_change(change), keep_newlines=False)
            text.append(f"  {mark} {line}\n", style=_line_style(change))
            for field_line in field_lines(change):
                text.append(f"      {inert(field_line, keep_newlines=False)}\n", style="dim")
    if diff.warnings_added:
        text.append("Warnings added\n", style="bold")
    for w in diff.warnings_added:
        text.append(f"  + {w.code} {inert(' '.join(w.ids), keep_newlines=False)}\n", style="yellow")
    if diff.warnings_removed:
        text.append("Warnings removed\n", style="bold")
    for w in diff.warnings_removed:
        text.append(f"  - {w.code} {inert(' '.join(w.ids), keep_newlines=False)}\n", style="dim")
    text.append(f"\nA {diff.a.digest}\nB {diff.b.digest}\n", style="dim")
    return text


class DiffScreen(ModalScreen[None]):
    """The difference between the pinned bundle (A) and the one on screen (B)."""

    DEFAULT_CSS = """
    DiffScreen { align: center middle; }
    DiffScreen > VerticalScroll {
        width: 90%; height: 85%; border: round $primary; background: $surface; padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("D", "close", "Close", show=False),
        Binding("a", "toggle_all", "Every exclusion change / what the role could receive"),
    ]

    AUTO_FOCUS = "#diff-scroll"
    """The scroll area has the focus: arrows, PgUp/PgDn and Home/End scroll it."""

    def __init__(self, pin: Pin, diff: Diff, everything: bool = False) -> None:
        super().__init__()
        self.pin = pin
        self.diff = diff
        self.everything = everything
        self.body = diff_text(pin, diff, everything)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="diff-scroll") as scroll:
            scroll.border_title = "Diff — ↑ ↓ PgUp PgDn scroll · Esc closes"
            yield Static(self.body, id="diff-body")

    def action_toggle_all(self) -> None:
        """Between what the role could receive and every exclusion change."""
        self.everything = not self.everything
        self.body = diff_text(self.pin, self.diff, self.everything)
        self.query_one("#diff-body", Static).update(self.body)

    @property
    def body_text(self) -> str:
        return self.body.plain

    def action_close(self) -> None:
        self.dismiss(None)
