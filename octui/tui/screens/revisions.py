"""The revision picker: resolve the repository exactly as it was at a git commit.

Two different questions, kept apart on screen: ``as_of`` is *what was in effect*
at an instant; the revision is *what the repository said* at a commit. A revision
is read from git objects (:class:`octui.load.gittree.GitTree`) — nothing is checked out
and the working tree is never touched.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from octui.core.textsafe import inert
from octui.load.revisions import Revision

WORKING_TREE = ""
"""The picker's value for "the files on disk"."""


class RevisionScreen(ModalScreen[str | None]):
    """Pick a commit (or the working tree). Dismisses with the commit id, "" or None."""

    DEFAULT_CSS = """
    RevisionScreen { align: center middle; }
    RevisionScreen > Vertical {
        width: 90%; height: 70%; border: round $primary; background: $surface; padding: 0 1;
    }
    RevisionScreen #revision-title { height: auto; }
    RevisionScreen OptionList { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Close")]

    def __init__(self, revisions: list[Revision], current: str | None) -> None:
        super().__init__()
        self.revisions = revisions
        self.current = current

    def compose(self) -> ComposeResult:
        options = [Option(Text("working tree — the files on disk now", style="bold"), id="-")]
        for r in self.revisions:
            label = Text.assemble(
                (r.short, "bold yellow"),
                "  ",
                (r.committed[:10], "cyan"),
                "  ",
                inert(r.subject, keep_newlines=False),
            )
            options.append(Option(label, id=r.commit))
        with Vertical():
            yield Static(
                Text.assemble(
                    ("What did the repository say at a commit?", "bold"),
                    "\nThe revision chooses which files are read (from git, nothing is checked "
                    "out); as_of still chooses the instant they are resolved at.",
                ),
                id="revision-title",
            )
            yield OptionList(*options, id="revision-list")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        listing.focus()
        index = 0
        if self.current:
            for i, r in enumerate(self.revisions, start=1):
                if r.commit.startswith(self.current) or self.current == r.commit:
                    index = i
        listing.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id
        self.dismiss(WORKING_TREE if option_id in (None, "-") else option_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
