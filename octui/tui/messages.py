"""The messages the explorer's parts tell each other (all posted to the app).

The app posts :class:`ViewApplied` and :class:`SelectionChanged` and hands each one to
every feature (:mod:`octui.tui.features`); features and widgets post the others to ask
the app for something. Bursts coalesce: a newer :class:`ViewApplied` or
:class:`SelectionChanged` still in the queue replaces the older one (``can_replace``),
so a held-down key never queues one handler run per row or per keystroke.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from textual.message import Message

from octui.core.model import Exclusion, Finding
from octui.resolve.result import Included
from octui.tui.state import View

Row = Included | Exclusion | Finding
"""What a row of the Included, Excluded or Warnings table holds."""


@dataclass
class ViewApplied(Message):
    """A new resolution is on screen (every pane already shows it)."""

    view: View
    """The view now shown (the newest generation)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ViewApplied)


@dataclass
class SelectionChanged(Message):
    """The selected row changed (or the view under it did)."""

    view: View | None
    """The view the row belongs to (None before the first resolution)."""
    item: Row | None
    """The selected row (None: nothing is selected)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SelectionChanged)


@dataclass
class RevisionRequested(Message):
    """Read the repository at another git revision (None: the files on disk)."""

    rev: str | None
    """The revision as the user named it (a commit, a branch, a tag), or None."""
    known_at: datetime | None = None
    """The instant the revision was chosen for (``K``), if any."""


@dataclass
class RevisionChanged(Message):
    """The session now reads another revision (or the files on disk again)."""

    rev: str | None
    """The revision now read, as the user named it (None: the files on disk)."""


@dataclass
class CommitChosen(Message):
    """A commit was chosen in an object's history: open the repository at it."""

    commit: str
    """The full commit id."""


__all__ = [
    "CommitChosen",
    "RevisionChanged",
    "RevisionRequested",
    "Row",
    "SelectionChanged",
    "ViewApplied",
]
