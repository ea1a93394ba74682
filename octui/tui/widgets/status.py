"""The status bar: digest, counts, strict PASS/FAIL, role and ``as_of``.

Colours are the terminal's named colours (``ansi_red``…), drawn through the explorer's
ANSI palette so they stay readable on light themes (:mod:`octui.tui.looks`); every
coloured number has its label and every verdict is a word, so nothing depends on colour
alone (``NO_COLOR``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Static

from octui.core.textsafe import inert
from octui.core.textsafe import markup_escape as escape
from octui.core.timeutil import format_day
from octui.tui.state import View
from octui.tui.widgets.quiet import show_text

W = TypeVar("W", bound=Widget)


def above_status(main: Widget, kind: type[W], widget_id: str, make: Callable[[], W]) -> W | None:
    """The bar ``#widget_id`` just above the explorer's status line, mounted there by
    ``make()`` the first time it is asked for (None when the screen has no status line)."""
    try:
        return main.query_one(f"#{widget_id}", kind)
    except NoMatches:
        pass
    try:
        status = main.query_one("#status")
    except NoMatches:
        return None
    bar = make()
    main.mount(bar, before=status)
    return bar


def strict_text(errors: int, *, strict: bool) -> str:
    """The strict verdict for a resolution with ``errors`` warnings of severity error (it
    fails exactly when there is one, as :attr:`Resolution.failed` says): PASS/FAIL when
    strict is on; when off, what a strict run would do."""
    plural = "error" if errors == 1 else "errors"
    failed = errors > 0
    if strict:
        if failed:
            return f"strict [b ansi_red]FAIL[/] [dim]·[/] [ansi_yellow]{errors} {plural}[/]"
        return "strict [b ansi_green]PASS[/]"
    if failed:
        return f"strict off [dim]·[/] [ansi_yellow]{errors} {plural}[/] [dim](would fail)[/]"
    return "strict off [dim]· would pass[/]"


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: auto; max-height: 2; background: $panel; color: $text; padding: 0 1; }
    """

    def show(
        self,
        view: View | None,
        *,
        pending: bool = False,
        following_now: bool = False,
        loading: str | None = None,
    ) -> None:
        """Show ``view``; without one, "loading <loading>…" (a repository's name)."""
        if view is None:
            what = f" {escape(inert(loading, keep_newlines=False))}" if loading else ""
            show_text(self, f"[b ansi_yellow]loading{what}…[/]")
            return
        r = view.resolution
        q = r.query
        known = view.known_digest  # None: computed after the tables are shown
        short = f"[b]{known.removeprefix('sha256:')[:8]}[/]" if known else "[dim]digest…[/]"
        # the count made once per view (off the UI thread), not the resolution's, per key
        strict = strict_text(view.errors, strict=q.strict)
        when = format_day(q.as_of)
        when = f"now {when}" if following_now else when
        counts = (
            f"[ansi_green]{len(r.included)}[/] in [ansi_red]{len(r.exclusions)}[/] out "
            f"[ansi_yellow]{len(r.warnings)}[/] warn"
        )
        role = escape(inert(str(q.role), keep_newlines=False))
        parts = [short, counts, strict, f"as_of [b]{when}[/]", f"role [b]{role}[/]"]
        if pending:
            parts.append("[i]resolving…[/]")
        show_text(self, " · ".join(parts))
