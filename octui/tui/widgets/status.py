"""The status bar: digest, counts, strict PASS/FAIL, role and ``as_of``."""

from __future__ import annotations

from textual.widgets import Static

from octui.textsafe import inert
from octui.textsafe import markup_escape as escape
from octui.timeutil import format_day
from octui.tui.state import View


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    def show(
        self, view: View | None, *, pending: bool = False, following_now: bool = False
    ) -> None:
        if view is None:
            self.update("[dim]loading…[/]")
            return
        r = view.resolution
        q = r.query
        short = view.digest.removeprefix("sha256:")[:8]
        verdict = "[b red]FAIL[/]" if r.failed else "[b green]PASS[/]"
        strict = f"strict {verdict}" + ("" if q.strict else " [dim](off)[/]")
        when = format_day(q.as_of)
        when = f"now {when}" if following_now else when
        counts = (
            f"[green]{len(r.included)}[/] in [red]{len(r.exclusions)}[/] out "
            f"[yellow]{len(r.warnings)}[/] warn ({view.errors} err)"
        )
        role = escape(inert(str(q.role), keep_newlines=False))
        parts = [f"[b]{short}[/]", counts, strict, f"as_of [b]{when}[/]", f"role [b]{role}[/]"]
        if pending:
            parts.append("[i]resolving…[/]")
        self.update(" · ".join(parts))
