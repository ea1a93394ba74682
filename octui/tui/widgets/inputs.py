"""The inputs pane: role, task, as_of (with day/month steps and a now toggle), switches,
limit and min-relevance. The app owns the :class:`~octui.tui.state.Inputs` value; this
pane only shows it (``show``) and reports edits as the widgets' own messages.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Checkbox, Input, Label, Select

from octui.core.textsafe import inert
from octui.core.timeutil import format_day, parse_instant
from octui.tui.asof_words import UTC_NOTE, as_of_problem
from octui.tui.state import Inputs
from octui.tui.widgets.quiet import show_text


class Flag(Checkbox):
    """A compact checkbox whose box is empty when off (the stock one shows X either way)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return "✓" if self.value else " "


class FieldInput(Input):
    """An ``Input`` laid out at a size its text never changes: a typed character repaints
    the field alone.

    Textual's ``Input`` sets its virtual size (the width of its text) on every change, and
    ``virtual_size`` is a reactive that lays out the whole screen: every widget placed
    again, and the tables' scroll bars (and so the tables' regions) painted again in the
    next frame — about 4 ms of the UI thread for each character typed at 50k objects,
    while the resolver thread shares the interpreter with it. A field whose width and
    height its CSS fixes scrolls by the same virtual size without a layout, so here the
    reactive only repaints.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0))


class AsOfInput(FieldInput):
    """``as_of``: a date or RFC 3339 datetime, or "now". Up/down step a day, PgUp/PgDn a month."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "step(1, 0)", "+1 day", show=False),
        Binding("down", "step(-1, 0)", "-1 day", show=False),
        Binding("pageup", "step(0, 1)", "+1 month", show=False),
        Binding("pagedown", "step(0, -1)", "-1 month", show=False),
    ]

    async def action_step(self, days: int, months: int) -> None:
        """Step as_of from inside the field: the field then shows the stepped instant."""
        for pane in self.ancestors:
            if isinstance(pane, InputsPane):
                pane.editing.discard(self.id or "")
        if days:
            await self.app.run_action(f"step_day({days})")
        if months:
            await self.app.run_action(f"step_month({months})")


def parse_as_of(text: str) -> tuple[bool, datetime | None]:
    """``(ok, value)``: value None for "now", a datetime for a date, else not ok."""
    t = text.strip()
    if t.lower() == "now":
        return True, None
    try:
        return True, parse_instant(t)
    except ValueError:
        return False, None


def parse_limit(text: str) -> tuple[bool, int | None]:
    t = text.strip()
    if not t:
        return True, None
    if t.isdecimal():  # isdigit() admits '²', which int() refuses
        return True, int(t)
    return False, None


def parse_min(text: str) -> tuple[bool, float | None]:
    t = text.strip()
    if not t:
        return True, None
    try:
        value = float(t)
    except ValueError:
        return False, None
    if value != value or value in (float("inf"), float("-inf")):
        return False, None
    return True, value


class RoleSelect(Select[str]):
    """The role list. A role picked from the open list is acted on at once (``chosen``),
    before the list closes: ``Select.Changed`` reaches the screen only after the closed list
    has been painted, so the new role's tables came a frame later (two paints for one key,
    15–25 ms apart at 50k objects); now one paint shows both. ``Select.Changed`` still
    follows, and finds the role chosen."""

    def __init__(self, *args: Any, chosen: Callable[[str], None] | None = None, **kw: Any):
        super().__init__(*args, **kw)
        self.chosen = chosen

    def watch_value(self, value: Any) -> None:
        """Textual's public watcher, called right after ``Select``'s own (``_watch_value``)
        and before the list closes. Open: the user picked it (the app sets a value only
        while the list is closed)."""
        if self.expanded and isinstance(value, str) and self.chosen is not None:
            self.chosen(value)


class InputsPane(Vertical):
    DEFAULT_CSS = """
    InputsPane { height: auto; padding: 0 1; background: $boost; }
    InputsPane > Horizontal { height: 1; }
    InputsPane Label { padding: 0 1 0 0; color: $text-muted; }
    InputsPane Label.gap { padding: 0 1 0 2; }
    InputsPane #role { width: 22; }
    InputsPane #task { width: 1fr; }
    InputsPane #as-of { width: 17; }
    InputsPane #as-of-mode { width: 7; color: $text-accent; padding: 0 0 0 1; }
    InputsPane #limit, InputsPane #min-relevance { width: 5; }
    InputsPane Checkbox { margin-left: 1; }
    InputsPane Input.-invalid { color: $error; }
    InputsPane #as-of-problem-line { display: none; height: auto; }
    InputsPane #as-of-problem-line.-on { display: block; }
    InputsPane #as-of-problem { color: $text-error; padding: 0; width: 1fr; }
    """

    def __init__(
        self,
        roles: list[str] | None = None,
        role: str | None = None,
        chosen: Callable[[str], None] | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.initial_roles = roles or []
        self.initial_role = role
        self.chosen = chosen
        """Called with a role the moment it is picked from the open list (see
        :class:`RoleSelect`)."""
        self.editing: set[str] = set()
        """Ids of the fields the user is typing in: :meth:`show` never writes into them.

        A field is being edited from the user's first change until it loses focus or is
        submitted (or a step key inside it asks for the stepped instant). Changes the
        app makes meanwhile — a resolution landing, an input event that arrives late for
        an older value — reach the tables only, never the text under the cursor.
        """

    def on_input_changed(self, event: Input.Changed) -> None:
        # Only the user's edits arrive here: the pane writes with Changed prevented.
        if event.input.id:
            self.editing.add(event.input.id)

    def on_input_blurred(self, event: Input.Blurred) -> None:
        self.editing.discard(event.input.id or "")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.editing.discard(event.input.id or "")

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label("role")
            if self.initial_roles and self.initial_role in self.initial_roles:
                yield RoleSelect(
                    [(Text(inert(r, keep_newlines=False)), r) for r in self.initial_roles],
                    value=self.initial_role,
                    allow_blank=False,
                    compact=True,
                    id="role",
                    chosen=self.chosen,
                )
            else:
                yield RoleSelect(
                    [], prompt="role", allow_blank=True, compact=True, id="role", chosen=self.chosen
                )
            yield Label("task", classes="gap")
            yield FieldInput(
                placeholder="what the agent is doing, e.g. refund", compact=True, id="task"
            )
        with Horizontal():
            yield Label("as_of (UTC)")
            as_of = AsOfInput(placeholder="now | YYYY-MM-DD", compact=True, id="as-of")
            as_of.tooltip = f"now, YYYY-MM-DD or an RFC 3339 datetime; {UTC_NOTE}"
            yield as_of
            yield Label("", id="as-of-mode")
            yield Flag("historical", compact=True, id="historical")
            yield Flag("strict", compact=True, id="strict")
            yield Label("limit", classes="gap")
            yield FieldInput(placeholder="-", compact=True, id="limit")
            yield Label("min", classes="gap")
            yield FieldInput(placeholder="-", compact=True, id="min-relevance")
        with Horizontal(id="as-of-problem-line"):
            yield Label("", id="as-of-problem")

    def show_as_of_problem(self, typed: str, kept: str | None) -> None:
        """Say why ``typed`` is not an instant and which one is still in use (``kept``);
        clear the message when ``typed`` is fine."""
        problem = as_of_problem(typed)
        line = self.query_one("#as-of-problem-line", Horizontal)
        line.set_class(problem is not None, "-on")
        if problem is None:
            return
        shown = inert(typed.strip(), keep_newlines=False)
        still = f" (still showing {kept})" if kept else ""
        self.query_one("#as-of-problem", Label).update(
            Text(f"✗ as_of {shown!r} not used{still}: {problem}")
        )

    def set_roles(self, roles: list[str], current: str | None) -> None:
        select = self.query_one("#role", Select)
        select.disabled = not roles
        if not roles:
            return  # nothing to choose: the explorer judges the whole repository
        with select.prevent(Select.Changed):
            select.set_options([(Text(inert(r, keep_newlines=False)), r) for r in roles])
            if current in roles:
                select.value = current

    def show(self, inputs: Inputs) -> None:
        """Make the widgets show ``inputs`` (without echoing change messages)."""
        select = self.query_one("#role", Select)
        if inputs.role is not None and select.value != inputs.role:
            # the role may not be among the options yet
            with select.prevent(Select.Changed), contextlib.suppress(Exception):
                select.value = inputs.role
        self._set_input("#task", inputs.task, parse=lambda t: (True, t))
        as_of_text = "now" if inputs.as_of is None else format_day(inputs.as_of)
        self._set_input("#as-of", as_of_text, parse=parse_as_of, want=inputs.as_of)
        mode = "● now" if inputs.as_of is None else "◆ set"
        show_text(self.query_one("#as-of-mode", Label), mode)
        for wid, value in (("#historical", inputs.include_historical), ("#strict", inputs.strict)):
            box = self.query_one(wid, Checkbox)
            if box.value != value:
                with box.prevent(Checkbox.Changed):
                    box.value = value
        self._set_input(
            "#limit", "" if inputs.limit is None else str(inputs.limit), parse_limit, inputs.limit
        )
        self._set_input(
            "#min-relevance",
            "" if inputs.min_relevance is None else f"{inputs.min_relevance:g}",
            parse_min,
            inputs.min_relevance,
        )

    def _set_input(self, selector: str, text: str, parse, want: object = ...) -> None:  # type: ignore[no-untyped-def]
        widget = self.query_one(selector, Input)
        if widget.id in self.editing:
            return  # the user is typing here: their text wins, whatever arrives meanwhile
        ok, value = parse(widget.value)
        current = value if want is not ... else widget.value
        target = want if want is not ... else text
        if ok and current == target:
            return  # the user's own spelling of the same value: leave it alone
        with widget.prevent(Input.Changed):
            widget.value = text
            widget.remove_class("-invalid")
        if selector == "#as-of":
            self.show_as_of_problem(text, None)
