"""Cells, columns and the lines of a :class:`~octui.tui.widgets.rowtable.RowTable`.

A row is drawn as a list of :data:`Cell` s, one per :class:`Column`: each cell is cut or
padded to its column's width (:func:`fit_text`), joined by one blank, and styled over the
line's own style. The widths come from :func:`column_widths`: fixed columns keep theirs,
flexible ones that ``fit`` their cells get what :func:`share` gives them, and the other
flexible ones share the rest by weight. Nothing here knows which rows are on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

Cell = tuple[str, str]
"""Cell text and a Rich style string ("" for the default)."""


@dataclass(frozen=True)
class Column:
    """A column: ``width`` cells, or ``None`` for the one column that takes the rest."""

    label: str
    width: int | None = None
    justify: str = "left"
    min_width: int = 8
    weight: int = 1
    """Share of the leftover width among flexible columns."""
    fit: Callable[[Any], str] | None = None
    """For a flexible column: the text of its cell for a row. Fitted columns get the width
    of their longest cell when the line has room for all of them (never more: what is
    left goes to the flexible columns without ``fit``, else stays blank at the end of the
    line); when it has not, the widest give way first (see :func:`share`)."""
    middle: bool = False
    """Cut a cell too long for the column in its middle (ids: their start and end stay)."""
    fill: bool = False
    """For a flexible column without ``fit``: share the line with the fitted columns as if
    its cells were as wide as the line (a message: it takes what they leave, and when they
    would take more than their share they are cut to it), without measuring its cells."""
    sort: Callable[[Any], Any] | None = None
    """The sort key of a row by this column (None: the table cannot be sorted by it)."""


@lru_cache(maxsize=256)
def plain_style(spec: str) -> Style:
    """The Rich style of a cell's style string (parsed once per string)."""
    return Style.parse(spec) if spec else Style()


@lru_cache(maxsize=256)
def cursor_style(spec: str) -> Style:
    """A cell's style on the cursor row: its colours give way to the cursor's (a blue
    word on a blue cursor cannot be read); bold, italic and the text itself remain."""
    return plain_style(spec).without_color


def share(natural: Sequence[int], minimum: Sequence[int], room: int) -> list[int]:
    """Widths for columns whose longest cells are ``natural`` within ``room`` cells.

    Each column gets its natural width when they all fit. When they do not, the widest
    are cut down to one common width, as large as the room allows (so a short id column
    stays whole while a long detail column gives way); no column goes below its minimum.
    """
    if sum(natural) <= room:
        return list(natural)
    cap = room
    order = sorted(natural)
    used = 0
    for n, value in enumerate(order):  # water-filling: the level the widest are cut to
        left = len(order) - n
        if used + value * left >= room:
            cap = (room - used) // left
            break
        used += value
    return [max(min(w, cap), m) for w, m in zip(natural, minimum, strict=True)]


def column_widths(columns: Sequence[Column], natural: Mapping[int, int], total: int) -> list[int]:
    """The width of each column on a line of ``total`` cells; ``natural`` holds the
    longest cell of each ``fit`` column (index → cells)."""
    fixed = sum(c.width or 0 for c in columns) + max(len(columns) - 1, 0)
    rest = max(total - fixed, 0)
    out = [c.width or 0 for c in columns]
    flexible = [i for i, c in enumerate(columns) if c.width is None]
    fitted = [i for i in flexible if i in natural or columns[i].fill]
    others = [i for i in flexible if i not in fitted]
    reserve = sum(columns[j].min_width for j in others)
    room = max(rest - reserve, 0)
    shares = share(
        [natural.get(i, room) for i in fitted],
        [columns[i].min_width for i in fitted],
        room,
    )
    for i, w in zip(fitted, shares, strict=True):
        out[i] = w
    rest = max(rest - sum(shares), 0)
    weights = sum(columns[i].weight for i in others) or 1
    for i in others:
        out[i] = max(rest * columns[i].weight // weights, columns[i].min_width)
    return out


def fit_text(text: str, width: int, justify: str, middle: bool = False) -> str:
    """``text`` in exactly ``width`` cells: padded, or cut with "…" (at its end, or in its
    middle when ``middle`` and there is room for both ends)."""
    if width <= 0:
        return ""
    if middle and cell_len(text) > width and width >= 5 and text.isascii():
        front = width // 2
        back = width - 1 - front
        return text[:front] + "…" + text[len(text) - back :]
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…" if width > 1 else "…"
    pad = width - cell_len(text)
    return (" " * pad + text) if justify == "right" else (text + " " * pad)


def cells_line(
    cells: Sequence[Cell],
    columns: Sequence[Column],
    widths: Sequence[int],
    width: int,
    style: Style,
    cell_style: Callable[[str], Style] = plain_style,
) -> Strip:
    """One line of ``width`` cells: each cell in its column's width, one blank between."""
    segments: list[Segment] = []
    used = 0
    for i, ((text, spec), column, w) in enumerate(zip(cells, columns, widths, strict=False)):
        if i:
            segments.append(Segment(" ", style))
            used += 1
        w = min(w, max(width - used, 0))
        cut = fit_text(text, w, column.justify, column.middle)
        segments.append(Segment(cut, style + cell_style(spec)))
        used += w
    if used < width:
        segments.append(Segment(" " * (width - used), style))
    return Strip(segments).crop(0, width)


def runs_line(
    runs: Sequence[Cell], width: int, style: Style, cell_style: Callable[[str], Style]
) -> Strip:
    """One line of ``width`` cells of styled runs one after another, cut where it ends
    (a row's extra lines, which ignore the columns)."""
    segments = []
    used = 0
    for text, spec in runs:
        text = (
            fit_text(text, max(width - used, 0), "left") if used + cell_len(text) > width else text
        )
        segments.append(Segment(text, style + cell_style(spec)))
        used += cell_len(text)
    if used < width:
        segments.append(Segment(" " * (width - used), style))
    return Strip(segments, width)
