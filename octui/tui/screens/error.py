"""A repository that cannot be opened: the file and the problem, never a traceback.

The app keeps watching the disk while this screen is up and removes it as soon
as the repository loads again.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from octui.core.textsafe import inert
from octui.core.textsafe import markup_escape as escape


class ErrorScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.quit", "Quit"),
        Binding("r", "app.reload", "Retry now"),
        Binding("f1", "app.help", "Help"),
    ]

    DEFAULT_CSS = """
    ErrorScreen { align: center middle; }
    ErrorScreen Vertical {
        width: 90; max-width: 100%; height: auto; border: heavy $error;
        padding: 1 2; background: $surface;
    }
    ErrorScreen #error-title { text-style: bold; color: $error; }
    ErrorScreen #error-where { margin-top: 1; text-style: bold; }
    ErrorScreen #error-problem { margin-top: 0; }
    ErrorScreen #error-help { margin-top: 1; color: $text-muted; }
    """

    def __init__(self, title: str, where: str, problem: str) -> None:
        super().__init__()
        self.title_text = title
        self.where = where
        self.problem = problem

    def compose(self) -> ComposeResult:
        with Center(), Vertical():
            yield Static(escape(self.title_text), id="error-title")
            yield Static(escape(inert(self.where, keep_newlines=False)), id="error-where")
            yield Static(escape(inert(self.problem, keep_newlines=False)), id="error-problem")
            yield Static(
                "Fix the file and save it: octui is watching and reloads by itself. "
                "r retries now, q quits.",
                id="error-help",
            )
        yield Footer()

    def update_error(self, title: str, where: str, problem: str) -> None:
        self.title_text, self.where, self.problem = title, where, problem
        if self.is_mounted:
            self.query_one("#error-title", Static).update(escape(title))
            self.query_one("#error-where", Static).update(escape(inert(where, keep_newlines=False)))
            self.query_one("#error-problem", Static).update(
                escape(inert(problem, keep_newlines=False))
            )
