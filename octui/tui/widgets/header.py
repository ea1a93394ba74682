"""The context header: which repository (and whether it is the bundled sample), which
revision and when it was known, the role, the task and ``as_of`` with its time zone.

Always on screen, so a screenshot or a glance says what the tables are an answer to.
The app builds a :class:`Context` and calls :meth:`ContextHeader.show` with every view it
shows and when the revision changes; before the first view, whenever the inputs change
(while a new view is being resolved, the status line says so and the header still names
the view on show).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from textual.widgets import Static

from octui.core.textsafe import inert
from octui.core.textsafe import markup_escape as escape
from octui.tui.sample import sample_repo
from octui.tui.widgets.quiet import show_text


def utc_text(when: datetime) -> str:
    """``2026-03-15 00:00 UTC``: the minute and the zone always written."""
    u = when.astimezone(UTC)
    return f"{u.year:04d}-{u.month:02d}-{u.day:02d} {u.hour:02d}:{u.minute:02d} UTC"


def is_bundled_sample(root: Path) -> bool:
    """True when ``root`` is the sample repository that ships with octui."""
    sample = sample_repo()
    try:
        return sample is not None and root.resolve() == sample.resolve()
    except OSError:
        return False


@dataclass(frozen=True)
class Context:
    """What the header names."""

    repository: str
    bundled_sample: bool
    revision: str | None
    """The git revision as named (None: the files on disk)."""
    commit: str | None
    known_at: datetime | None
    role: str | None
    task: str
    as_of: datetime | None
    """None until the first resolution when following now."""
    following_now: bool


def _safe(text: str) -> str:
    return escape(inert(text, keep_newlines=False))


def header_markup(ctx: Context) -> str:
    """The header line (console markup; every name from the repository is escaped)."""
    repo = f"[b]{_safe(ctx.repository)}[/b]"
    if ctx.bundled_sample:
        repo += " [ansi_yellow](bundled sample)[/]"
    if ctx.revision is None:
        revision = "working tree"
    else:
        short = (ctx.commit or "")[:12]
        label = _safe(ctx.revision)
        revision = f"revision [b]{label}[/b]" + (f" ({short})" if short and short != label else "")
        if ctx.known_at is not None:
            revision += f" known at {utc_text(ctx.known_at)}"
    role = f"role [b]{_safe(ctx.role)}[/b]" if ctx.role else "no role"
    task = f"task [b]{_safe(ctx.task)}[/b]" if ctx.task.strip() else "[dim]no task[/dim]"
    if ctx.as_of is None:
        when = "now"
    else:
        when = utc_text(ctx.as_of) + (" (now)" if ctx.following_now else "")
    return " · ".join([repo, revision, role, task, f"as_of [b]{when}[/b]"])


class ContextHeader(Static):
    """One line (two when narrow) naming repository, revision, role, task and as_of."""

    DEFAULT_CSS = """
    ContextHeader {
        height: auto; max-height: 2; padding: 0 1; background: $panel; color: $text;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.context: Context | None = None

    def show(self, ctx: Context) -> None:
        if ctx != self.context:
            self.context = ctx
            show_text(self, header_markup(ctx))
