"""The diff view: what changed from the pinned bundle (A) to the one on screen (B).

:class:`Pin` is the bundle pinned for comparison (its inputs, revision and digest);
:class:`DiffScreen` (``D``) shows the difference, each object under one heading, each
changed field old → new. Pinning and marking the panes is
:mod:`octui.tui.features.compare`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from octui.analysis.diff_result import Diff, ObjectChange
from octui.core.textsafe import inert
from octui.core.timeutil import format_instant
from octui.render.diff import (
    SECTIONS,
    describe_change,
    describe_side,
    field_lines,
    grouped,
    side_text,
)
from octui.tui.state import View


@dataclass(frozen=True)
class Pin:
    """The bundle pinned for comparison, and where it came from."""

    view: View
    rev: str | None
    """The git revision it was read from (None: the files on disk)."""

    def describe(self) -> str:
        q = self.view.query
        return describe_side(q.role, q.task, format_instant(q.as_of), self.rev)


def _line_style(change: ObjectChange) -> str:
    if change.moved_in:
        return "green"
    if change.moved_out:
        return "red"
    if change.rank_only:
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
    text.append(inert(side_text(diff.b), keep_newlines=False) + "\n")
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
    _append_changes(text, diff)
    text.append(f"\nA {diff.a.digest}\nB {diff.b.digest}\n", style="dim")
    return text


def _append_changes(text: Text, diff: Diff) -> None:
    """The diff's changes under their headings: versions, the sections, the warnings."""
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
