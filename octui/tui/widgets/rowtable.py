"""A virtualised table: renders only the visible lines, whatever the row count.

``DataTable`` parses and measures every cell on refill (seconds at tens of
thousands of rows); this widget keeps the rows as plain Python objects and
formats a row only when its line is on screen. Replacing the rows costs the time
to index their keys and measure the ``fit`` columns, unless the caller passes both
(computed in a worker thread): then it costs what is on screen. Columns have fixed
widths except flexible ones that share the rest. A row may span several lines
(``row_height``); the extra lines come from ``extra``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from octui.tui.measure import text_width
from octui.tui.state import key_index
from octui.tui.widgets.cells import (
    Cell,
    Column,
    cells_line,
    column_widths,
    cursor_style,
    fit_text,
    plain_style,
    runs_line,
)
from octui.tui.widgets.scrollbars import SteadyScrollbars

RowStyle = Callable[["RowTable", Any, Sequence[Cell]], Sequence[Cell]]
"""A row-style hook: ``(table, row, cells) → cells`` (see :attr:`RowTable.row_style`)."""


class RowTable(SteadyScrollbars, ScrollView, can_focus=True):
    """A keyboard- and mouse-driven table over any sequence of row objects."""

    DEFAULT_CSS = """
    RowTable {
        background: $surface;
        height: 1fr;
        scrollbar-size-vertical: 1;
        &:focus { background-tint: $foreground 4%; }
        & > .rowtable--header { text-style: bold; color: $text-accent; }
        & > .rowtable--cursor {
            background: $block-cursor-background; color: $block-cursor-foreground;
        }
        & > .rowtable--cursor-blurred { background: $block-cursor-blurred-background; }
        & > .rowtable--empty { color: $text-muted; text-style: italic; }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "rowtable--header",
        "rowtable--cursor",
        "rowtable--cursor-blurred",
        "rowtable--empty",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First row", show=False),
        Binding("end", "edge(1)", "Last row", show=False),
        Binding("enter", "select", "Open / jump", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)
    """The row under the cursor (its watcher repaints the two rows it changes)."""

    class Highlighted(Message):
        """The cursor moved to ``row`` (``None`` when the table is empty)."""

        def __init__(self, table: RowTable, row: Any | None) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> RowTable:
            return self.table

    class Selected(Message):
        """Enter (or a double click) on ``row``."""

        def __init__(self, table: RowTable, row: Any) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> RowTable:
            return self.table

    def __init__(
        self,
        columns: Sequence[Column],
        cells: Callable[[Any, int], Sequence[Cell]],
        key: Callable[[Any], Hashable],
        *,
        row_height: int = 1,
        extra: Callable[[Any, int, int], Sequence[Cell]] | None = None,
        empty: str = "(nothing)",
        search: Callable[[Any], str] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns = list(columns)
        self._cells = cells
        self._key = key
        self._extra = extra
        self.row_height = row_height
        self.empty_text = empty
        self.waiting: str | None = None
        """Shown instead of ``empty_text`` until the first :meth:`set_rows` (e.g. "loading…")."""
        self.rows: Sequence[Any] = ()
        """The rows on show: the source rows, filtered and sorted."""
        self.source_rows: Sequence[Any] = ()
        """The rows last given to :meth:`set_rows`."""
        self._source_index: Mapping[Hashable, int] = {}
        self._index: Mapping[Hashable, int] = {}
        self._search = search
        self.filter_text = ""
        """Rows on show contain this text (case-insensitive) in their id or text."""
        self.predicate: tuple[str, Callable[[Any], bool]] | None = None
        """A named condition rows must meet as well (the palette's warnings filters)."""
        self.sort_column: int | None = None
        """The column rows are sorted by (None: the order they were given in)."""
        self._natural: dict[int, int] = {}
        """Longest cell of each ``fit`` column (index → cells), measured by :meth:`set_rows`."""
        self._pass: tuple[int, Style, list[int]] | None = None
        """Width, base style and column widths while :meth:`render_lines` draws."""
        self.row_style: RowStyle | None = None
        """The row-style hook: restyles a row's cells as they are drawn (e.g. the compare
        marks); set it, then :meth:`refresh` to redraw."""

    def row_cells(self, row: Any, index: int) -> Sequence[Cell]:
        """The cells of ``row`` at ``index`` as drawn: the table's own, through the
        row-style hook when one is set."""
        cells = self._cells(row, index)
        return cells if self.row_style is None else self.row_style(self, row, cells)

    # -- data ----------------------------------------------------------------------------

    def set_rows(
        self,
        rows: Sequence[Any],
        *,
        index: Mapping[Hashable, int] | None = None,
        widths: Mapping[int, int] | None = None,
    ) -> None:
        """Replace the rows; the cursor stays on the same row key when it is still there.

        Indexing the keys and measuring the ``fit`` columns take time in proportion to
        the rows; a caller that has them already (computed off the UI thread) passes
        ``index`` (key → first position, as :meth:`key_index` builds it) and ``widths``
        (column index → cells of its longest cell, without the label). What is not
        passed is computed here.
        """
        self.waiting = None
        self.source_rows = rows
        self._source_index = index if index is not None else self.key_index(rows)
        self._natural = {}
        for i, c in enumerate(self.columns):
            if c.fit is None or c.width is not None:
                continue
            fit = c.fit
            longest = (
                widths[i]
                if widths is not None and i in widths
                else max(map(text_width, map(fit, rows)), default=0)
            )
            self._natural[i] = max(text_width(c.label) + (2 if c.sort else 0), longest)
        self._show_rows()

    @property
    def narrowed(self) -> bool:
        """True when a filter or a condition hides rows (or may)."""
        return bool(self.filter_text) or self.predicate is not None

    def set_filter(self, text: str) -> None:
        """Show only rows whose id or text contains ``text`` (case-insensitive; "" = all)."""
        if text != self.filter_text:
            self.filter_text = text
            self._show_rows()

    def set_predicate(self, predicate: tuple[str, Callable[[Any], bool]] | None) -> None:
        """Show only rows meeting ``predicate`` (a label and a test), or all (None)."""
        self.predicate = predicate
        self._show_rows()

    @property
    def sortable(self) -> list[int]:
        return [i for i, c in enumerate(self.columns) if c.sort is not None]

    def cycle_sort(self) -> str:
        """Sort by the next sortable column (after the last: the original order); returns
        the label of the column sorted by, or "" for the original order."""
        order: list[int | None] = [None, *self.sortable]
        at = order.index(self.sort_column) if self.sort_column in order else 0
        self.sort_column = order[(at + 1) % len(order)]
        self._show_rows()
        return "" if self.sort_column is None else self.columns[self.sort_column].label

    def _show_rows(self) -> None:
        old_key = self.current_key
        rows: Sequence[Any] = self.source_rows
        index: Mapping[Hashable, int] | None = self._source_index
        if self.predicate is not None:
            test = self.predicate[1]
            rows = [r for r in rows if test(r)]
            index = None
        if self.filter_text and self._search is not None:
            needle = self.filter_text.casefold()
            search = self._search
            rows = [r for r in rows if needle in search(r).casefold()]
            index = None
        if self.sort_column is not None:
            sort_key = self.columns[self.sort_column].sort
            assert sort_key is not None
            rows = sorted(rows, key=sort_key)
            index = None
        self.rows = rows
        self._index = index if index is not None else self.key_index(rows)
        new_cursor = self._index.get(old_key, min(self.cursor, max(len(rows) - 1, 0)))
        self.virtual_size = Size(self.size.width, len(rows) * self.row_height + 1)
        self.set_reactive(RowTable.cursor, new_cursor)
        self._keep_visible()
        self.refresh()
        self.post_message(self.Highlighted(self, self.current_row))

    def key_index(self, rows: Sequence[Any]) -> dict[Hashable, int]:
        """Each row key's first position."""
        return key_index(rows, self._key)

    @property
    def current_row(self) -> Any | None:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor]
        return None

    @property
    def current_key(self) -> Hashable | None:
        row = self.current_row
        return None if row is None else self._key(row)

    def index_of(self, key: Hashable) -> int | None:
        return self._index.get(key)

    def move_to(self, index: int) -> None:
        """Put the cursor on row ``index`` (clamped)."""
        if not self.rows:
            return
        self.cursor = min(max(index, 0), len(self.rows) - 1)

    def watch_cursor(self, old: int, new: int) -> None:
        """Repaint the rows the cursor left and reached (a scroll repaints everything by
        itself): a move of the cursor draws two rows, not the whole table."""
        self._keep_visible()
        self.refresh_row(old)
        self.refresh_row(new)
        self.post_message(self.Highlighted(self, self.current_row))

    def refresh_row(self, index: int) -> None:
        """Repaint the lines of row ``index`` (the header is line 0 of the widget)."""
        self.refresh_lines(1 + index * self.row_height, self.row_height)

    # -- geometry ------------------------------------------------------------------------

    @property
    def _body_height(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)

    def _keep_visible(self) -> None:
        top = self.cursor * self.row_height
        y = round(self.scroll_y)
        if top < y:
            self.scroll_to(y=top, animate=False, immediate=True)
        elif top + self.row_height > y + self._body_height:
            self.scroll_to(
                y=top + self.row_height - self._body_height, animate=False, immediate=True
            )

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.rows) * self.row_height + 1)
        self._keep_visible()

    def widths(self, total: int) -> list[int]:
        """The width of each column on a line of ``total`` cells (see :func:`column_widths`)."""
        return column_widths(self.columns, self._natural, total)

    # -- actions -------------------------------------------------------------------------

    def action_cursor(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * max(self._body_height // self.row_height - 1, 1))

    def action_edge(self, end: int) -> None:
        self.move_to(len(self.rows) - 1 if end else 0)

    def action_select(self) -> None:
        row = self.current_row
        if row is not None:
            self.post_message(self.Selected(self, row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        index = (round(self.scroll_y) + offset.y - 1) // self.row_height
        if 0 <= index < len(self.rows):
            self.focus()
            self.cursor = index
            if event.chain >= 2:
                self.action_select()

    # -- rendering -----------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        """Draw the lines of ``crop``, with the style and the column widths worked out
        once for them all (each is a walk of the styles: per line, a paint of forty lines
        paid it forty times)."""
        width = self.scrollable_content_region.width
        self._pass = (width, self.rich_style, self.widths(width))
        try:
            return super().render_lines(crop)
        finally:
            self._pass = None

    def _pass_style(self) -> tuple[int, Style, list[int]]:
        """The width, base style and column widths of this paint (see :meth:`render_lines`)."""
        if self._pass is not None:
            return self._pass
        width = self.scrollable_content_region.width
        return width, self.rich_style, self.widths(width)

    def render_line(self, y: int) -> Strip:
        width, base, widths = self._pass_style()
        if y == 0:
            header = self.get_component_rich_style("rowtable--header")
            cells = [
                (c.label + (" ↑" if i == self.sort_column else ""), "")
                for i, c in enumerate(self.columns)
            ]
            return cells_line(cells, self.columns, widths, width, base + header)
        line = round(self.scroll_y) + y - 1
        index, sub = divmod(line, self.row_height)
        if not self.rows:
            if y == 1:
                empty = self.get_component_rich_style("rowtable--empty")
                text = self.waiting if self.waiting is not None else self.empty_text
                if self.waiting is None and self.source_rows and self.narrowed:
                    text = "(no row matches the filter; / edits it, Esc in it clears)"
                return Strip([Segment(fit_text(" " + text, width, "left"), base + empty)])
            return Strip.blank(width, base)
        if index >= len(self.rows):
            return Strip.blank(width, base)
        row = self.rows[index]
        style = base
        cell_style = plain_style
        if index == self.cursor:
            name = "rowtable--cursor" if self.has_focus else "rowtable--cursor-blurred"
            style = base + self.get_component_rich_style(name)
            cell_style = cursor_style
        if sub == 0:
            cells = list(self.row_cells(row, index))
            return cells_line(cells, self.columns, widths, width, style, cell_style)
        assert self._extra is not None
        return runs_line(self._extra(row, index, sub), width, style, cell_style)
