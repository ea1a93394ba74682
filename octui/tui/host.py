"""What the explorer's features, commands and helpers may see and ask of the app.

:class:`Host` is a :class:`~typing.Protocol` the app (:class:`octui.tui.app.OctuiApp`)
satisfies; features (:mod:`octui.tui.features`), the command palette
(:mod:`octui.tui.commands`) and the audit's hooks (:mod:`octui.tui.auditapp`) are typed
against it and never import the app — so the app imports them and nothing imports the
app back. Everything here is either state the app owns (read it, never replace it except
through the methods) or a request the app carries out.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker
from textual.worker_manager import WorkerManager

from octui.session import Session
from octui.tui.auditmodel import AuditCache
from octui.tui.messages import Row
from octui.tui.state import Inputs, View
from octui.tui.viewcache import ViewCache
from octui.tui.widgets.rowtable import RowTable

Command = tuple[str, Callable[[], object], str]
"""A palette command: title, what it does, help text."""


class Host(Protocol):
    """The app as features and commands see it."""

    root: Path
    """The repository's folder."""
    session: Session
    """Loads and resolves the repository (replaced by :meth:`use_session` only)."""
    inputs: Inputs
    """The inputs on screen (role, task, as_of, …)."""
    view: View | None
    """The newest resolution on screen (None before the first)."""
    selected: Row | None
    """The selected row of the active table."""
    clock: Callable[[], datetime]
    """What "now" is."""
    revision: str | None
    """The git revision being read, as the user named it (None: the files on disk)."""
    revision_commit: str | None
    """The commit of :attr:`revision`."""
    audits: AuditCache
    """The audits computed for this run (per repository and instant)."""
    paints: int
    """Screen updates so far."""
    views: ViewCache
    """The views made in this run (by query), for the keys that ask for them."""
    generation: int
    """Generation of the newest resolution asked for."""
    applied_generation: int
    """Generation of the resolution on screen."""
    roles_worker: Worker[None] | None
    """The worker filling the detail pane's Roles block, if one ran."""
    title: str
    cursor_blink: bool
    """Whether fields blink their cursor (tests turn it off)."""
    error: tuple[str, str, str] | None
    """What the error screen shows (title, where, problem) while the repository cannot
    be read."""

    @property
    def main(self) -> Screen[Any]:
        """The explorer's own screen (not a help, error or export screen on top)."""
        ...

    @property
    def screen_stack(self) -> list[Screen[Any]]:
        """The screens, the explorer's own first."""
        ...

    @property
    def workers(self) -> WorkerManager:
        """The app's workers."""
        ...

    @property
    def focused(self) -> Widget | None:
        """The widget with the focus."""
        ...

    @property
    def is_web(self) -> bool:
        """True in a browser session (``octui --serve``)."""
        ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Show a notification (always literal text)."""
        ...

    def push_screen(
        self, screen: Screen[Any], callback: Callable[[Any], None] | None = None
    ) -> Any:
        """Show ``screen``; ``callback`` gets what it dismisses with."""
        ...

    def pop_screen(self) -> Any:
        """Close the screen on top."""
        ...

    def post_message(self, message: Message) -> bool:
        """Ask the app for something (a message of :mod:`octui.tui.messages`)."""
        ...

    def run_worker(
        self,
        work: Callable[[], Coroutine[Any, Any, Any]],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]:
        """Run ``work`` as a worker of the app (its failure is reported)."""
        ...

    def set_timer(self, delay: float, callback: Callable[[], object]) -> Timer:
        """Call ``callback`` once, ``delay`` seconds from now."""
        ...

    def copy_to_clipboard(self, text: str) -> None:
        """Copy ``text`` to the terminal's clipboard."""
        ...

    def save_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str:
        """Write the screen as SVG; the path written."""
        ...

    def suspend(self) -> Any:
        """A context in which another program has the terminal."""
        ...

    async def after_paint(self, since: int, limit: float = 1.0) -> None:
        """Return once the screen was updated after ``since`` (a value of :attr:`paints`)."""
        ...

    def set_inputs(self, inputs: Inputs) -> None:
        """Change the inputs, show them, and re-resolve (debounced)."""
        ...

    def set_as_of(self, when: datetime | None) -> None:
        """Move as_of (None: follow the clock) and re-resolve."""
        ...

    def set_role(self, role: str) -> None:
        """Choose the role and re-resolve."""
        ...

    def focus_field(self, selector: str) -> None:
        """Focus a field of the inputs pane now."""
        ...

    def focus_key(self) -> None:
        """A key that moves into a field: raise SkipAction while a field is typed into."""
        ...

    def active_table(self) -> RowTable | None:
        """The table of the result tab on show."""
        ...

    def action_show_tab(self, pane_id: str) -> None:
        """Show a result tab and focus its table."""
        ...

    def action_jump(self, ref: str) -> None:
        """Show the object ``id`` or ``id@version`` in the pane that holds it."""
        ...

    def bundle_text(self, view: View | None = None) -> str:
        """``view``'s bundle (None: the view on show), as ``opencontext resolve --format
        json`` prints it."""
        ...

    async def digest_of(self, view: View) -> str:
        """``view``'s digest, computed off the UI thread when it is not known yet."""
        ...

    def help_groups(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Every key of the explorer, grouped, for the help screen."""
        ...

    def palette_commands(self) -> list[Command]:
        """The fixed commands of the palette."""
        ...

    def use_session(self, session: Session, rev: str | None, commit: str | None) -> None:
        """Read the repository through ``session`` (at ``rev``) from now on."""
        ...

    def reload_repository(self) -> Worker[None]:
        """(Re)load the repository and re-resolve."""
        ...

    async def wait_settled(self) -> None:
        """Wait until the newest resolution is on screen."""
        ...


__all__ = ["Command", "Host"]
