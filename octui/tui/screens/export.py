"""Export: ask for a path; refuse the repository; confirm before replacing a file."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from octui.tui.exporting import ExportRefused, check_target
from octui.tui.literal import markup_literal


class ExportScreen(ModalScreen[tuple[Path, bool] | None]):
    """Returns ``(path, overwrite)`` or ``None`` when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > Vertical {
        width: 90; max-width: 100%; height: auto; border: round $primary;
        background: $surface; padding: 0 1;
    }
    ExportScreen #export-message { margin: 1 0 0 0; }
    ExportScreen #export-message.-error { color: $error; }
    ExportScreen Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    ExportScreen Button { margin-left: 1; }
    """

    def __init__(
        self,
        default: Path,
        repo_root: Path,
        summary: str,
        title: str = "Export bundle (JSON, as opencontext resolve --format json)",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.default = default
        self.repo_root = repo_root
        self.summary = summary
        self.confirming: Path | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(markup_literal(self.summary), id="export-summary")
            yield Input(str(self.default), id="export-path")
            yield Static("Enter writes the file. Esc cancels.", id="export-message")
            with Horizontal():
                yield Button("Cancel", id="export-cancel")
                yield Button("Export", variant="primary", id="export-ok")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    def _message(self, text: str, error: bool = False) -> None:
        msg = self.query_one("#export-message", Static)
        msg.update(markup_literal(text))
        msg.set_class(error, "-error")

    @on(Input.Changed, "#export-path")
    def _path_changed(self) -> None:
        if self.confirming is not None:
            self.confirming = None
            self.query_one("#export-ok", Button).label = "Export"
            self._message("Enter writes the file. Esc cancels.")

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-ok")
    def submit(self) -> None:
        text = self.query_one("#export-path", Input).value
        try:
            target = check_target(text, self.repo_root)
        except ExportRefused as exc:
            self._message(str(exc), error=True)
            return
        if target.exists() and self.confirming != target:
            self.confirming = target
            self.query_one("#export-ok", Button).label = "Overwrite"
            self._message(
                f"{target} exists. Press Enter again to replace it, or edit the path.", True
            )
            return
        self.dismiss((target, self.confirming == target))

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
