"""The two time axes of the explorer, side by side and apart.

*repository* — the files on disk, a git revision, or the commit known at an instant — and
*in effect* — as_of. :class:`AxesBar` shows them above the status line while a revision
is read (:mod:`octui.tui.features.timetravel` fills it).
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.widgets import Static

from octui.core.textsafe import inert
from octui.core.timeutil import format_instant
from octui.load.known_at import CommitInfo


def day_text(when: datetime) -> str:
    """``2026-03-15`` for a midnight, else the full RFC 3339 instant."""
    text = format_instant(when)
    return text[:10] if text.endswith("T00:00:00Z") else text


def axes_text(
    *,
    as_of: datetime,
    following_now: bool,
    revision: str | None,
    commit: CommitInfo | None,
    known_at: datetime | None,
) -> Text:
    """``repository: … · in effect: as_of …`` as one line, each axis on its own."""
    if commit is None:
        repository = Text.assemble(("working tree", "bold"), " (the files on disk)")
    else:
        subject = inert(commit.subject, keep_newlines=False)
        where = Text.assemble(
            "commit ", (commit.short, "bold yellow"), f" {subject!r}" if subject else ""
        )
        if known_at is not None:
            repository = Text.assemble(
                ("known at ", "bold"), (day_text(known_at), "bold"), " · ", where
            )
        else:
            label = inert(revision or commit.commit, keep_newlines=False)
            repository = Text.assemble(("revision ", "bold"), label, " · ", where)
    effect = Text.assemble(("as_of ", "bold"), day_text(as_of), " (now)" if following_now else "")
    return Text.assemble(
        ("repository: ", "cyan"),
        repository,
        "   │   ",
        ("in effect: ", "cyan"),
        effect,
    )


class AxesBar(Static):
    """The two time axes: what the repository said (files read) and what was in effect."""

    DEFAULT_CSS = "AxesBar { height: auto; padding: 0 1; }"


__all__ = ["AxesBar", "axes_text", "day_text"]
