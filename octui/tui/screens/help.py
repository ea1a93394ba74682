"""F1: every key, and how to answer the two questions the explorer exists for."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from octui.tui.keys import keys_label
from octui.tui.widgets.inputs import AsOfInput
from octui.tui.widgets.rowtable import RowTable

GUIDE = (
    "[b]Why is X not in the support bundle?[/b]  Pick role [b]support[/b] (r), open "
    "[b]Excluded[/b] (2) and find X (/ filters by id or text, Ctrl+P jumps to an id@version; "
    "f filters by reason): the row says why, and the detail pane says what would include "
    "it ([i]why not[/i]). A denied object shows only its id and the reason.\n"
    "[b]What did we believe in March?[/b]  Press a and type 2026-03-15 (UTC unless you add "
    "an offset; or step with [ ] by day and { } by month): the bundle re-resolves at that "
    "instant and the timeline marker │ moves; n toggles back to now.\n"
    "[b]What changed?[/b]  A lists the instants at which this bundle changes and what "
    "changes; . and , move as_of to the next / previous change; p pins the bundle and D "
    "shows the difference after you change role, task, as_of or revision.\n"
    "[b]Everything about a row?[/b]  The detail and its timeline sit beside the results; "
    "d goes into the detail pane to scroll it (on a narrow terminal Enter on a row opens "
    "it) and Esc goes back."
)


class HelpScreen(ModalScreen[None]):
    """Lists the bindings it is given, grouped, plus the quick guide."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q,question_mark", "dismiss", "Close help"),
    ]

    AUTO_FOCUS = "#help-scroll"
    """The scroll area has the focus: arrows, PgUp/PgDn and Home/End scroll it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 96; max-width: 100%; height: auto; max-height: 100%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen .help-title { margin-top: 1; }
    """

    def __init__(self, groups: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.groups = groups

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-scroll") as scroll:
            scroll.border_title = "octui help — ↑ ↓ PgUp PgDn scroll · Esc closes"
            yield Static(GUIDE, id="guide")
            for title, rows in self.groups:
                table = Table.grid(padding=(0, 2))
                table.add_column(style="bold cyan", no_wrap=True, min_width=14)
                table.add_column()
                for keys, description in rows:
                    table.add_row(keys, description)
                yield Static(Text(title, style="bold underline"), classes="help-title")
                yield Static(table, classes="help-keys")

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)


def key_groups(app_bindings: list[BindingType]) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every key of the explorer, grouped, from the bindings themselves (the app's, the
    tables', the as_of field's) plus the fields' own keys."""

    def rows(bindings: list[BindingType]) -> list[tuple[str, str]]:
        return [
            (keys_label(b.key), b.tooltip or b.description)
            for b in bindings
            if isinstance(b, Binding)
        ]

    return [
        ("Anywhere", [*rows(app_bindings), ("Ctrl+P", "Command palette")]),
        (
            "Tables (Included, Excluded, Warnings)",
            [*rows(list(RowTable.BINDINGS)), ("click / double-click", "select / open")],
        ),
        (
            "as_of field",
            [
                *rows(list(AsOfInput.BINDINGS)),
                ("type", "now, YYYY-MM-DD or RFC 3339 datetime (no offset: UTC)"),
            ],
        ),
        (
            "Fields",
            [
                ("Tab / Shift+Tab", "next / previous field"),
                ("Enter", "back to the results"),
            ],
        ),
        (
            "Help, diff, validate and detail views",
            [
                ("↑ / ↓, PgUp / PgDn", "scroll"),
                ("Home / End", "top / bottom"),
                ("mouse wheel", "scroll"),
                ("Esc", "close (the detail pane: back to the results)"),
            ],
        ),
    ]
