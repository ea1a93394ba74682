"""The whole repository judged at ``as_of`` — what ``opencontext validate`` reports.

No role, no scope: approval, validity and supersession over every object, each finding
with the files concerned. The findings are computed by the core (:func:`validate_lines`,
Textual-free) in a thread; this screen only shows them, scrolling with the keyboard
(arrows, PgUp/PgDn, Home/End) and the mouse.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from octui.load.assemble import Repository
from octui.render.findings import finding_lines
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.tui.widgets.header import utc_text


def validate_lines(
    repo: Repository, as_of: datetime, cache: ResolutionCache | None = None
) -> tuple[str, list[str]]:
    """``(summary, lines)`` of the whole-repository findings, as the CLI prints them
    (``cache``: the repository's resolution cache)."""
    resolution = resolve(repo, Query(role=None, as_of=as_of), cache)
    findings = resolution.warnings
    errors = resolution.error_count
    warnings = len(findings) - errors
    lines = [line for f in findings for line in finding_lines(f, with_paths=True)]
    summary = (
        f"{len(repo.objects)} objects; {errors} error{'s' if errors != 1 else ''}, "
        f"{warnings} warning{'s' if warnings != 1 else ''} at {utc_text(as_of)}"
    )
    return summary, lines


class ValidateScreen(ModalScreen[None]):
    """The findings about the whole repository, one per line, with their files."""

    AUTO_FOCUS = "#validate-scroll"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
    ]

    DEFAULT_CSS = """
    ValidateScreen { align: center middle; }
    ValidateScreen > VerticalScroll {
        width: 96%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    ValidateScreen #validate-summary { text-style: bold; margin-bottom: 1; }
    """

    def __init__(self, summary: str, lines: list[str], where: str) -> None:
        super().__init__()
        self.summary = summary
        self.lines = lines
        self.where = where

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="validate-scroll") as scroll:
            scroll.border_title = "Validate the whole repository — Esc closes"
            yield Static(Text(f"{self.where}: {self.summary}"), id="validate-summary")
            body = "\n".join(self.lines) if self.lines else "no findings"
            yield Static(Text(body), id="validate-body")

    @property
    def body_text(self) -> str:
        return "\n".join([self.summary, *self.lines])

    def action_close(self) -> None:
        self.dismiss(None)
