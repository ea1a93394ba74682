""" "What did we believe then": ask for the one date both time axes are set to (``K``)."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from octui.core.timeutil import parse_instant


class BelieveScreen(ModalScreen[datetime | None]):
    """Ask for one date; dismiss with it (or None when cancelled)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    BelieveScreen { align: center middle; }
    BelieveScreen > Vertical {
        width: 80; max-width: 100%; height: auto; border: round $primary;
        background: $surface; padding: 0 1;
    }
    BelieveScreen #believe-message.-error { color: $error; }
    """

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "What did we believe then?"
            yield Static(
                "One date for both axes: the repository as committed then (the last commit "
                "at or before it) and as_of then. YYYY-MM-DD or RFC 3339."
            )
            yield Input(self.default, id="believe-when")
            yield Static("Enter sets both. Esc cancels.", id="believe-message")

    def on_mount(self) -> None:
        self.query_one("#believe-when", Input).focus()

    @on(Input.Submitted, "#believe-when")
    def submit(self) -> None:
        text = self.query_one("#believe-when", Input).value
        try:
            when = parse_instant(text)
        except ValueError as exc:
            message = self.query_one("#believe-message", Static)
            message.update(Text(str(exc)))
            message.set_class(True, "-error")
            return
        self.dismiss(when)

    def action_cancel(self) -> None:
        self.dismiss(None)
