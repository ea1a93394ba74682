"""A supersession lineage drawn on a date axis, as plain characters with style tags.

Pure and Textual-free: :func:`layout` turns a resolution and an id into lines of
``(text, tag)`` runs; the explorer maps tags to colours. Each readable object of
the lineage (:func:`octui.analysis.history.lineage`) is one bar spanning its effective
window; the part of a window after a supersession took effect is drawn dashed;
an edge is a vertical connector at the instant it took effect (the
replacement's effective start); a marker column shows ``as_of``. Objects denied
to the role appear as their id and reason only.

Tags: ``axis``, ``tick``, ``marker``, ``label``, ``edge``, ``cycle``, ``denied``,
``bar-<state>`` (``bar-active``, ``bar-superseded``, ``bar-expired``,
``bar-not-yet-valid``, ``bar-unapproved``, ...), ``state-<state>``, ``after``
(the superseded tail of a window), ``text``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from octui.analysis.history import (
    HistoryRow,
    LineageIndex,
    edge_effective,
    edge_note,
    lineage,
    lineage_index,
)
from octui.core.model import ContextObject
from octui.core.timeutil import BEGINNING_OF_TIME, END_OF_TIME, format_day, month_index, shift
from octui.resolve.result import Resolution

Run = tuple[str, str]
"""A piece of text and its style tag."""


@dataclass
class Line:
    """One line of the drawing: runs of text with tags."""

    runs: list[Run] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(t for t, _ in self.runs)


@dataclass(frozen=True)
class EdgeInfo:
    """``replacement`` supersedes ``replaced`` from ``effective`` (None: never, a draft)."""

    replacement: str
    replaced: str
    effective: datetime | None
    in_cycle: bool


@dataclass
class Timeline:
    """The drawing, plus the facts it was drawn from (for tests and summaries)."""

    object_id: str
    rows: list[HistoryRow]
    edges: list[EdgeInfo]
    axis_start: datetime
    axis_end: datetime
    marker_column: int | None
    """Column of ``as_of`` inside the bar area (None when the area is empty)."""
    bar_offset: int
    """Column where the bar area begins in each drawn line."""
    lines: list[Line]


def _month_start(t: datetime) -> datetime:
    return datetime(t.year, t.month, 1, tzinfo=UTC)


def _edge_infos(resolution: Resolution, members: set[int], index: LineageIndex) -> list[EdgeInfo]:
    infos = []
    edges = resolution.edges
    for e in map(edges.__getitem__, index.edges_among(members)):
        if e.replacement.uid not in members or e.replaced.uid not in members:
            continue
        in_cycle = (e.replacement.uid, e.replaced.uid) in resolution.cycle_edges
        infos.append(
            EdgeInfo(e.replacement.key, e.replaced.key, edge_effective(resolution, e), in_cycle)
        )
    infos.sort(key=lambda i: (i.replacement, i.replaced))
    return infos


def axis_range(objs: list[ContextObject], as_of: datetime) -> tuple[datetime, datetime]:
    """Every dated instant of the lineage and ``as_of``, padded on both sides."""
    instants = [as_of]
    for o in objs:
        if o.effective_start != BEGINNING_OF_TIME:
            instants.append(o.effective_start)
        if o.valid_until is not None:
            instants.append(o.valid_until)
    lo, hi = min(instants), max(instants)
    span = hi - lo
    pad = max(span * 0.08, timedelta(days=20))
    # Each side stops at its end of representable time rather than overflowing.
    return (lo - pad if lo - BEGINNING_OF_TIME > pad else BEGINNING_OF_TIME), (
        hi + pad if END_OF_TIME - hi > pad else END_OF_TIME
    )


class _Canvas:
    """A grid of characters with a tag per cell."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.chars = [" "] * width
        self.tags = ["text"] * width

    def put(self, x: int, text: str, tag: str) -> None:
        for i, ch in enumerate(text):
            if 0 <= x + i < self.width:
                self.chars[x + i] = ch
                self.tags[x + i] = tag

    def line(self) -> Line:
        runs: list[Run] = []
        for ch, tag in zip(self.chars, self.tags, strict=True):
            if runs and runs[-1][1] == tag:
                runs[-1] = (runs[-1][0] + ch, tag)
            else:
                runs.append((ch, tag))
        return Line(runs)


def _fit(text: str, width: int) -> str:
    if len(text) <= width:
        return text.ljust(width)
    return text[: max(width - 1, 0)] + "…"


def fit_key(key: str, width: int) -> str:
    """``key`` (``id@version`` or an id) in ``width`` columns: the ``@version`` that tells
    the rows of a lineage apart is always kept; a long id loses its middle (``…``), so its
    start and its end, where ids differ, both stay."""
    if len(key) <= width:
        return key.ljust(width)
    head, at, version = key.rpartition("@")
    if not at or not version.isdigit():
        head, version = key, ""
    suffix = f"@{version}" if version else ""
    room = width - len(suffix)
    if room < 3:  # no room for an id: the version alone, then plain truncation
        return _fit(key, width)
    keep = room - 1
    front = (keep + 1) // 2
    back = keep - front
    return head[:front] + "…" + (head[len(head) - back :] if back else "") + suffix


@dataclass(frozen=True)
class _Frame:
    """The geometry of one drawing: the label and state columns, the bar area between them
    (``area`` columns from ``offset``) and the instants at its two ends."""

    width: int
    label_w: int
    state_w: int
    area: int
    offset: int
    lo: datetime
    hi: datetime

    def col(self, t: datetime) -> int:
        """The column of instant ``t`` inside the bar area."""
        span = (self.hi - self.lo).total_seconds() or 1.0
        frac = (t - self.lo).total_seconds() / span
        return min(max(int(frac * self.area), 0), self.area - 1)


def _frame(rows: list[HistoryRow], object_id: str, width: int, as_of: datetime) -> _Frame:
    objs = [r.obj for r in rows if r.obj is not None]
    lo, hi = axis_range(objs, as_of)
    longest = max([len(o.key) for o in objs] + [len(object_id), 17])
    label_w = min(longest, max(17, width * 2 // 5), 40)
    state_w = 13
    width = max(width, label_w + state_w + 12)
    area = max(width - label_w - state_w - 2, 10)
    return _Frame(width, label_w, state_w, area, label_w + 1, lo, hi)


def _axis(f: _Frame, as_of: datetime) -> tuple[list[Line], int]:
    """Month labels, then a baseline with ticks and the as_of marker; and its column."""
    step_choices = (1, 2, 3, 6, 12, 24, 60, 120, 600, 1200)
    months_total = max(month_index(f.hi) - month_index(f.lo), 1)
    step = next((s for s in step_choices if f.area / max(months_total / s, 1) >= 9), 1200)
    labels = _Canvas(f.width)
    base = _Canvas(f.width)
    base.put(f.offset, "─" * f.area, "axis")
    tick = shift(_month_start(f.lo), months=1)
    while tick is not None and tick < f.hi:
        if month_index(tick) % step == 0:
            x = f.col(tick)
            base.put(f.offset + x, "┬", "tick")
            text = f"{tick.year:04d}" if step >= 12 else f"{tick.year:04d}-{tick.month:02d}"
            if f.offset + x + len(text) <= f.offset + f.area:
                labels.put(f.offset + x, text, "tick")
        tick = shift(tick, months=1)  # None past December 9999: the axis ends there
    marker = f.col(as_of)
    base.put(f.offset + marker, "▼", "marker")
    labels.put(0, _fit("as_of " + format_day(as_of), f.label_w), "marker")
    return [labels.line(), base.line()], marker


def _bar(f: _Frame, row: HistoryRow, edges: list[EdgeInfo]) -> _Canvas:
    """One object's window: solid, dashed after a supersession took effect, dotted for a
    draft; ``◀`` / ``▶`` where it is open; its state after the bar area."""
    o = row.obj
    assert o is not None
    c = _Canvas(f.width)
    c.put(0, fit_key(o.key, f.label_w), "label")
    start_open = o.effective_start == BEGINNING_OF_TIME
    a = 0 if start_open else f.col(o.effective_start)
    b = f.area - 1 if o.valid_until is None else max(f.col(o.valid_until) - 1, a)
    cut = min(
        (e.effective for e in edges if e.replaced == o.key and e.effective is not None),
        default=None,
    )
    cut_col = None if cut is None else max(f.col(cut), a)
    state = row.state
    fill_tag = f"bar-{state}"
    for x in range(a, b + 1):
        after = cut_col is not None and x >= cut_col
        if state == "unapproved":
            ch = "┄"
        elif after:
            ch = "╌"
        else:
            ch = "━"
        c.put(f.offset + x, ch, "after" if after and state != "unapproved" else fill_tag)
    if start_open:
        c.put(f.offset + a, "◀", fill_tag)
    if o.valid_until is None:
        c.put(f.offset + b, "▶", "after" if cut_col is not None else fill_tag)
    c.put(f.offset + f.area + 1, _fit(state, f.state_w), f"state-{state}")
    return c


def _connect(
    f: _Frame,
    canvases: list[_Canvas],
    row_line: dict[str, int],
    objs: list[ContextObject],
    edges: list[EdgeInfo],
) -> None:
    """Each edge a vertical connector at the column where the supersession took effect."""
    for e in edges:
        if e.replaced not in row_line or e.replacement not in row_line:
            continue
        replacement = next(o for o in objs if o.key == e.replacement)
        p, q = row_line[e.replaced], row_line[e.replacement]
        when = e.effective or replacement.effective_start
        x = f.offset + (0 if when == BEGINNING_OF_TIME else f.col(when))
        tag = "cycle" if e.in_cycle else "edge"
        top, bottom = min(p, q), max(p, q)
        for y in range(top + 1, bottom):
            canvases[y].put(x, "│" if canvases[y].chars[x] == " " else "┿", tag)
        canvases[p].put(x, "┯" if p < q else "┷", tag)
        canvases[q].put(x, "┕" if p < q else "┍", tag)


def _bars(f: _Frame, rows: list[HistoryRow], edges: list[EdgeInfo], marker: int) -> list[Line]:
    """The bars of the readable rows, a spacer line between two for the connectors, the
    as_of marker drawn through them."""
    readable = [r for r in rows if r.obj is not None]
    row_line: dict[str, int] = {}
    canvases: list[_Canvas] = []
    for i, r in enumerate(readable):
        if i:
            canvases.append(_Canvas(f.width))
        assert r.obj is not None
        row_line[r.obj.key] = len(canvases)
        canvases.append(_bar(f, r, edges))
    _connect(f, canvases, row_line, [r.obj for r in readable if r.obj is not None], edges)
    lines = []
    for c in canvases:
        if 0 <= marker < f.area and c.chars[f.offset + marker] == " ":
            c.put(f.offset + marker, "│", "marker")
        elif 0 <= marker < f.area:
            c.tags[f.offset + marker] = "marker"
        lines.append(c.line())
    return lines


def _denied(f: _Frame, rows: list[HistoryRow]) -> list[Line]:
    """Objects denied to the role: their id and reason only."""
    lines = []
    for r in rows:
        if r.obj is None:
            d = _Canvas(f.width)
            d.put(0, fit_key(r.id, f.label_w), "denied")
            d.put(f.offset, _fit(f"{r.state} (only id and reason are shown)", f.area), "denied")
            lines.append(d.line())
    return lines


def _edge_lines(edges: list[EdgeInfo]) -> list[Line]:
    """Under the drawing, each edge and when it takes effect."""
    if not edges:
        return []
    lines = [Line([("", "text")])]
    for e in edges:
        tag = "cycle" if e.in_cycle else "text" if e.effective is None else "edge"
        note = edge_note(e.effective, e.in_cycle)
        lines.append(Line([(f"{e.replacement} supersedes {e.replaced} — {note}", tag)]))
    return lines


def layout(
    resolution: Resolution, object_id: str, width: int, index: LineageIndex | None = None
) -> Timeline:
    """Draw the lineage of ``object_id`` in ``width`` columns (``index``: the resolution's
    :func:`~octui.analysis.history.lineage_index`, when the caller keeps one).

    Raises :class:`octui.analysis.history.UnknownId` when the id names nothing.
    """
    as_of = resolution.query.as_of
    if index is None:
        index = lineage_index(resolution)
    rows = lineage(resolution, object_id, index)
    members = {r.obj.uid for r in rows if r.obj is not None}
    edges = _edge_infos(resolution, members, index)
    f = _frame(rows, object_id, width, as_of)
    lines, marker = _axis(f, as_of)
    lines += _bars(f, rows, edges, marker)
    lines += _denied(f, rows)
    lines += _edge_lines(edges)
    return Timeline(object_id, rows, edges, f.lo, f.hi, marker, f.offset, lines)
