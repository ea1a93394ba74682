"""An object's git history in the detail pane (``L``): every commit that changed it.

Each commit shows its author, date, subject and each field old → new; the list scrolls
and takes the keyboard. Selecting a commit posts :class:`~octui.tui.messages.CommitChosen`
(the time-travel feature opens the repository at it).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from octui.analysis.objlog import ObjectLog
from octui.core.textsafe import inert
from octui.render.history import log_mark, show_value
from octui.tui.messages import CommitChosen
from octui.tui.widgets.axes import day_text


def log_options(log: ObjectLog) -> list[Option]:
    """One option per commit: its short id, date, author and subject, then each change."""
    options = []
    for c in log.commits:
        text = Text.assemble(
            (c.commit[:7], "bold yellow"),
            " ",
            (day_text(c.date), "cyan"),
            " ",
            inert(c.author, keep_newlines=False),
            "\n  ",
            (inert(c.subject, keep_newlines=False), "bold"),
        )
        for change in c.changes:
            mark = log_mark(change.kind)
            text.append(f"\n  {mark} @{change.version} {change.kind}")
            for name, (old, new) in change.fields.items():
                text.append(
                    inert(
                        f"\n      {name}: {show_value(old)} → {show_value(new)}", keep_newlines=True
                    )
                )
            if change.body_diff:
                added = sum(1 for x in change.body_diff.splitlines() if x.startswith("+"))
                removed = sum(1 for x in change.body_diff.splitlines() if x.startswith("-"))
                text.append(f"\n      body: +{max(0, added - 1)} −{max(0, removed - 1)} lines")
        options.append(Option(text, id=c.commit))
    return options


class ObjectLogView(Vertical):
    """The commits that changed one object, newest first; Enter opens the repository at one."""

    DEFAULT_CSS = """
    ObjectLogView { height: auto; margin-bottom: 1; }
    ObjectLogView OptionList { height: auto; max-height: 16; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pending: tuple[str, ObjectLog | None, str] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="object-log-title")
        yield OptionList(id="object-log-list")

    def on_mount(self) -> None:
        self.call_after_refresh(self._render_state)

    def show_log(self, object_id: str, log: ObjectLog | None, problem: str = "") -> None:
        self._pending = (object_id, log, problem)
        self._render_state()

    def _render_state(self) -> None:
        if self._pending is None:
            return
        try:
            title = self.query_one("#object-log-title", Static)
        except NoMatches:
            return  # not composed yet: on_mount shows it
        object_id, log, problem = self._pending
        listing = self.query_one("#object-log-list", OptionList)
        listing.clear_options()
        label = inert(object_id, keep_newlines=False)
        if log is None:
            title.update(Text.assemble((f"History of {label}", "bold"), f": {problem}"))
            listing.display = False
            return
        count = len(log.commits)
        title.update(
            Text.assemble(
                (f"History of {label}", "bold"),
                f" — {count} commit{'s' if count != 1 else ''}, newest first "
                "(Enter opens the repository at one)",
            )
        )
        listing.add_options(log_options(log))
        listing.display = bool(count)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "object-log-list" or event.option.id is None:
            return
        event.stop()
        self.post_message(CommitChosen(event.option.id))
