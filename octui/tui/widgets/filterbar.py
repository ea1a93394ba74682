"""The table filter: ``/`` opens it over the results; it narrows the table on show
(Included, Excluded or Warnings) to the rows whose id or text holds what is typed.

Each table keeps its own filter; the bar shows the active table's filter and how many
of its rows match, and stays visible while a filter (or a palette condition) applies.
Enter goes back to the table keeping the filter; Esc clears it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Input, Label

from octui.core.textsafe import inert
from octui.tui.widgets.inputs import FieldInput
from octui.tui.widgets.quiet import show_text
from octui.tui.widgets.rowtable import RowTable


class FilterInput(FieldInput):
    """The filter text: Esc clears the filter and goes back to the table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "Clear the filter", show=False),
    ]

    def action_clear(self) -> None:
        self.value = ""
        self.post_message(self.Submitted(self, ""))


class FilterBar(Horizontal):
    """``filter [text] 3 of 21 rows · condition``; hidden when nothing narrows the table."""

    DEFAULT_CSS = """
    FilterBar { height: 1; display: none; padding: 0 1; background: $boost; }
    FilterBar.-on { display: block; }
    FilterBar Label { padding: 0 1 0 0; color: $text-muted; }
    FilterBar #table-filter { width: 30; }
    FilterBar #filter-count { padding: 0 0 0 1; color: $text; width: 1fr; }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.table: RowTable | None = None

    def compose(self) -> ComposeResult:
        yield Label("filter")
        yield FilterInput(
            placeholder="id or text (Enter keeps, Esc clears)", compact=True, id="table-filter"
        )
        yield Label("", id="filter-count")

    @property
    def field(self) -> FilterInput:
        return self.query_one("#table-filter", FilterInput)

    def follow(self, table: RowTable | None) -> None:
        """Show (and edit) ``table``'s filter."""
        self.table = table
        field = self.field
        text = table.filter_text if table is not None else ""
        if field.value != text:
            with field.prevent(Input.Changed):
                field.value = text
        self.refresh_count()

    def refresh_count(self) -> None:
        table = self.table
        if table is None:
            self.set_class(False, "-on")
            return
        parts = []
        if table.narrowed:
            parts.append(f"{len(table.rows)} of {len(table.source_rows)} rows")
        if table.predicate is not None:
            parts.append(inert(table.predicate[0], keep_newlines=False))
        show_text(self.query_one("#filter-count", Label), " · ".join(parts))
        self.set_class(table.narrowed or self.field.has_focus, "-on")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.table is not None:
            self.table.set_filter(event.value)
        self.refresh_count()

    def on_descendant_blur(self) -> None:
        self.refresh_count()
