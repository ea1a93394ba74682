"""The three result panes: included objects, exclusions (with a reason filter), warnings.

Each pane has ``show_view(view)``; the app calls it with every new resolution.
They are :class:`RowTable` based, so they stay fast at tens of thousands of rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Select, Static, TabbedContent, TabPane

from octui.core.enums import ExclusionReason, FindingMark, Lifecycle, Severity
from octui.core.model import Exclusion, Finding
from octui.render.findings import glyph
from octui.resolve.result import Included
from octui.tui.literal import line
from octui.tui.state import (
    ALL_REASONS,
    View,
    excluded_id,
    excluded_key,
    included_id,
    included_key,
    severity_first,
    warning_ids,
    warning_key,
)
from octui.tui.widgets.cells import Cell, Column
from octui.tui.widgets.rowtable import RowTable

LIFECYCLE_STYLE = {
    Lifecycle.ACTIVE: "green",
    Lifecycle.SUPERSEDED: "yellow",
    Lifecycle.EXPIRED: "red",
}

REASON_STYLE = {
    ExclusionReason.PERMISSION_DENIED: "bold red",
    ExclusionReason.CLASSIFICATION_DENIED: "bold red",
    ExclusionReason.SUPERSEDED: "yellow",
    ExclusionReason.OUTRANKED: "yellow",
    ExclusionReason.CONFLICT: "magenta",
    ExclusionReason.EXPIRED: "red",
    ExclusionReason.NOT_YET_VALID: "blue",
    ExclusionReason.UNAPPROVED: "magenta",
    ExclusionReason.SOURCE_UNAVAILABLE: "bold red",
}


def one_line(text: str | None) -> str:
    """:func:`~octui.tui.literal.line`, with nothing for None."""
    return line(text or "")


def warning_style(w: Finding) -> str:
    return FindingMark.of(w.code).style


def _included_id(inc: Included) -> str:
    return one_line(included_id(inc))


def _excluded_id(ex: Exclusion) -> str:
    return one_line(excluded_id(ex))


def warning_ids_cell(w: Finding) -> str:
    """A warning's ids as a table cell shows them (the Warnings tab, the audit's findings):
    on one line, control characters visible."""
    return one_line(warning_ids(w))


def excluded_detail(ex: Exclusion) -> str:
    """The detail cell: nothing for a denied object (only id and reason)."""
    return "" if ex.reason.is_denial else one_line(ex.detail)


def included_text(inc: Included) -> str:
    """What ``/`` searches in an included row: id@version, title, authority, lifecycle."""
    o = inc.obj
    return f"{o.id}@{o.version} {o.title or ''} {o.authority or ''} {inc.lifecycle.value}"


def excluded_text(ex: Exclusion) -> str:
    """What ``/`` searches in an excluded row: id@version, reason and (unless denied) detail."""
    version = "" if ex.version is None else f"@{ex.version}"
    return f"{ex.id}{version} {ex.reason.value} {excluded_detail(ex)}"


def warning_text(w: Finding) -> str:
    """What ``/`` searches in a warning: severity, code, ids, message and hint."""
    return f"{w.severity.value} {w.code.value} {' '.join(w.ids)} {w.message} {w.hint or ''}"


SEVERITY_ORDER = {Severity.ERROR: 0}


SHORT_COUNTS: dict[ExclusionReason, str] = {
    ExclusionReason.PERMISSION_DENIED: "denied",
    ExclusionReason.CLASSIFICATION_DENIED: "denied",
}
"""Reasons counted together in the one-line summary (the filter lists each exactly)."""


def count_parts(counts: Counter[ExclusionReason]) -> list[str]:
    """``["denied 12", "not-in-scope 14", ...]``: non-zero counts in the closed set's order."""
    merged: dict[str, int] = {}
    for reason in ExclusionReason:
        if counts.get(reason):
            label = SHORT_COUNTS.get(reason, reason.value)
            merged[label] = merged.get(label, 0) + counts[reason]
    return [f"{label} {n}" for label, n in merged.items()]


def fit_parts(parts: list[str], width: int, lines: int = 2, sep: str = " · ") -> list[str]:
    """Lay ``parts`` out on at most ``lines`` lines of ``width`` cells, never splitting a
    part; what does not fit is summed up as ``+N more`` at the end."""
    out: list[str] = []
    line = ""
    for n, part in enumerate(parts):
        candidate = f"{line}{sep}{part}" if line else part
        if len(candidate) <= width or (not line and len(out) < lines):
            line = candidate
            continue
        if len(out) + 1 < lines:
            out.append(line)
            line = part
            continue
        left = len(parts) - n
        more = f"+{left} more"
        while line and len(f"{line}{sep}{more}") > width:
            line = line.rsplit(sep, 1)[0] if sep in line else ""
            left += 1
            more = f"+{left} more"
        out.append(f"{line}{sep}{more}" if line else more)
        return out
    if line:
        out.append(line)
    return out


class ReasonCounts(Static):
    """Counts per reason beside the filter, fitted to its width (never cut mid-word)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.parts: list[str] | None = None
        """None until the first resolution (nothing is claimed while loading)."""

    def show_counts(self, counts: Counter[ExclusionReason]) -> None:
        parts = count_parts(counts)
        if parts != self.parts:  # (the same counts: nothing to lay out again)
            self.parts = parts
            self.refresh(layout=True)

    def _lines(self, width: int) -> list[str]:
        if self.parts is None:
            return [""]
        if not self.parts:
            return ["nothing excluded"]
        if width <= 0:  # not laid out yet (a hidden tab): everything, unfitted
            return [" · ".join(self.parts)]
        return fit_parts(self.parts, max(width, 8))

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return len(self._lines(width))

    def render(self) -> Any:
        return "\n".join(self._lines(self.content_size.width))


class IncludedTable(RowTable):
    """The bundle's objects, in bundle order."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            [
                Column("#", 4, "right"),
                Column(
                    "id", None, min_width=12, fit=_included_id, middle=True, sort=lambda i: i.obj.id
                ),
                Column("v", 3, "right"),
                Column("authority", 10, sort=lambda i: i.obj.authority or ""),
                Column("lifecycle", 10, sort=lambda i: i.lifecycle.value),
                Column("!", 1),
                Column("score", 5, "right", sort=lambda i: -i.score),
            ],
            self._row_cells,
            included_key,
            empty="(no objects in the bundle)",
            search=included_text,
            id=id,
        )

    def _row_cells(self, inc: Included, index: int) -> Sequence[Cell]:
        o = inc.obj
        return (
            (str(index + 1), "dim"),
            (one_line(o.id), "bold" if o.is_floor_layer else ""),
            (str(o.version), ""),
            (one_line(o.authority) or "(none)", "" if o.authority else "italic yellow"),
            (inc.lifecycle.value, LIFECYCLE_STYLE.get(inc.lifecycle, "")),
            ("!" if inc.stale else "", "bold yellow"),
            (str(inc.score), ""),
        )

    def show_view(self, view: View) -> None:
        prepared = view.included_rows
        if prepared is None:
            self.set_rows(view.included)
        else:  # indexed and measured in the worker thread
            self.set_rows(prepared.rows, index=prepared.index, widths={1: prepared.id_width})


ALL = ALL_REASONS


class ResultTabs(TabbedContent):
    """The results' tabs (Included, Excluded, Warnings), each a :class:`ResultTab`.

    These, and :class:`ExcludedPane`, are ``BLANK`` (Textual's flag for a widget with no
    border and no content): their children cover every cell of them, so Textual paints
    them as blank lines instead of styling each line, about 1 ms apiece of a tab key. Only
    a widget whose children cover it may be: a ``BLANK`` widget's own cells skip the app's
    line filters (``NO_COLOR``'s greyscale among them), which is why the detail pane,
    whose padding shows, is not."""

    BLANK = True


class ResultTab(TabPane):
    """One tab of :class:`ResultTabs`; its table covers it (``BLANK``: see there)."""

    BLANK = True


class ExcludedPane(Vertical):
    """Exclusions with their reason and detail; filter by reason; counts per reason."""

    BLANK = True  # its filter bar and table cover it: see :class:`ResultTabs`

    DEFAULT_CSS = """
    ExcludedPane { height: 1fr; }
    ExcludedPane > Horizontal { height: auto; max-height: 2; }
    ExcludedPane #reason-filter { width: 30; }
    ExcludedPane #reason-counts { width: 1fr; height: auto; color: $text-muted; padding-left: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: View | None = None
        self.reason: str = ALL
        self.options: list[tuple[str, str]] = []
        """The reason filter's options on show (set by :meth:`show_view`)."""

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Select[str](
                [("all reasons", ALL)],
                value=ALL,
                allow_blank=False,
                compact=True,
                id="reason-filter",
            )
            yield ReasonCounts(id="reason-counts")
        yield RowTable(
            [
                Column(
                    "id", None, min_width=12, fit=_excluded_id, middle=True, sort=lambda e: e.id
                ),
                Column("v", 3, "right"),
                Column("reason", 21, sort=lambda e: e.reason.value),
                Column("detail", None, min_width=6, fit=excluded_detail),
            ],
            self._row_cells,
            excluded_key,
            empty="(nothing excluded)",
            search=excluded_text,
            id="excluded-table",
        )

    @property
    def table(self) -> RowTable:
        return self.query_one("#excluded-table", RowTable)

    def _row_cells(self, ex: Exclusion, index: int) -> Sequence[Cell]:
        return (
            (one_line(ex.id), ""),
            ("" if ex.version is None else str(ex.version), ""),
            (ex.reason.value, REASON_STYLE.get(ex.reason, "")),
            (excluded_detail(ex), "dim"),
        )

    def show_view(self, view: View) -> None:
        self.view = view
        counts = view.reason_counts
        options: list[tuple[str, str]] = [("all reasons", ALL)]
        for reason in ExclusionReason:
            if counts.get(reason):
                options.append((f"{reason.value} ({counts[reason]})", reason.value))
        if self.reason != ALL and not counts.get(ExclusionReason(self.reason)):
            options.append((f"{self.reason} (0)", self.reason))
        if options != self.options:  # (the same options: the list is not rebuilt)
            self.options = options
            select = self.query_one("#reason-filter", Select)
            with select.prevent(Select.Changed):
                select.set_options(options)
                select.value = self.reason
        self.query_one("#reason-counts", ReasonCounts).show_counts(counts)
        self._refill()

    def set_reason(self, reason: str) -> None:
        self.reason = reason
        select = self.query_one("#reason-filter", Select)
        if select.value != reason:
            with select.prevent(Select.Changed):
                try:
                    select.value = reason
                except Exception:  # an option not offered: show everything
                    self.reason = ALL
                    select.value = ALL
        self._refill()

    def cycle_reason(self) -> None:
        if self.view is None:
            return
        order = [ALL] + [r.value for r in ExclusionReason if self.view.reason_counts.get(r)]
        i = order.index(self.reason) if self.reason in order else 0
        self.set_reason(order[(i + 1) % len(order)])

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "reason-filter" and isinstance(event.value, str):
            event.stop()
            self.set_reason(event.value)

    def _refill(self) -> None:
        if self.view is None:
            return
        if self.view.excluded_rows:  # filtered, indexed and measured in the worker thread
            prepared = self.view.excluded_rows.get(self.reason)
            if prepared is None:  # a reason with no exclusion in this resolution
                self.table.set_rows([], index={}, widths={0: 0, 3: 0})
            else:
                self.table.set_rows(
                    prepared.rows,
                    index=prepared.index,
                    widths={0: prepared.id_width, 3: prepared.detail_width},
                )
            return
        rows: list[Any] = self.view.exclusions
        if self.reason != ALL:
            rows = [e for e in rows if e.reason.value == self.reason]
        self.table.set_rows(rows)


class WarningsTable(RowTable):
    """Warnings: glyph, code, ids (cut in their middle, as every id), message, and the
    ``→`` hint on a second line."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            [
                Column(" ", 1),
                Column(
                    "code", 24, sort=lambda w: (SEVERITY_ORDER.get(w.severity, 1), w.code.value)
                ),
                Column(
                    "ids",
                    None,
                    min_width=10,
                    fit=warning_ids_cell,
                    middle=True,
                    sort=lambda w: w.ids,
                ),
                Column("message", None, min_width=16, fill=True, sort=lambda w: w.message),
            ],
            self._row_cells,
            warning_key,
            row_height=2,
            extra=self._hint,
            empty="(no warnings)",
            search=warning_text,
            id=id,
        )

    def _row_cells(self, w: Finding, index: int) -> Sequence[Cell]:
        style = warning_style(w)
        return (
            (glyph(w), style),
            (w.code.value, style),
            (warning_ids_cell(w), "bold"),
            (one_line(w.message), ""),
        )

    def _hint(self, w: Finding, index: int, sub: int) -> Sequence[Cell]:
        if not w.hint:
            return (("", ""),)
        return (("    → ", "cyan"), (one_line(w.hint), "italic"))

    def show_view(self, view: View) -> None:
        prepared = view.warning_rows
        if prepared is None:
            self.set_rows(severity_first(view.resolution.warnings))
        else:  # indexed and measured in the worker thread
            self.set_rows(prepared.rows, index=prepared.index, widths={2: prepared.id_width})
