"""Every key of the explorer's own screen, in the order the footer and F1 help show them.

The app's keys and each feature's (:func:`~octui.tui.features.bindings_of`) in one list;
every binding has a description and, when the description is short, a tooltip — F1 help
is written from them.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from octui.tui.features import bindings_of
from octui.tui.features.agenda import Agenda
from octui.tui.features.compare import Compare
from octui.tui.features.export import Export
from octui.tui.features.orientation import Orientation
from octui.tui.features.revisions import Revisions
from octui.tui.features.timetravel import TimeTravel

APP_BINDINGS: list[BindingType] = [
    Binding("question_mark", "help", "Help", tooltip="every key (F1 too)"),
    Binding("f1", "help", "Help", show=False),
    # The keys that move into a field are priority bindings (see OctuiApp.focus_key).
    Binding("r", "focus_role", "Role", tooltip="choose the role", priority=True),
    Binding(
        "a",
        "focus_as_of",
        "as_of",
        tooltip="edit as_of: now, a date or a datetime (UTC unless it has an offset)",
        priority=True,
    ),
    Binding(
        "t",
        "focus_task",
        "Task",
        show=False,
        tooltip="edit the task (it orders the bundle)",
        priority=True,
    ),
    *bindings_of(Orientation, [Orientation.FILTER]),
    Binding(
        "2",
        "show_tab('tab-excluded')",
        "Why excluded",
        tooltip="the Excluded tab: every object left out, its reason, and why not",
    ),
    Binding("left_square_bracket", "step_day(-1)", "−1 day", show=False),
    Binding(
        "right_square_bracket",
        "step_day(1)",
        "±day",
        key_display="[ ]",
        show=False,
        tooltip="+1 day",
    ),
    Binding("left_curly_bracket", "step_month(-1)", "−1 month", show=False),
    Binding(
        "right_curly_bracket",
        "step_month(1)",
        "±month",
        key_display="{ }",
        show=False,
        tooltip="+1 month",
    ),
    Binding(
        "n",
        "toggle_now",
        "Now⇄date",
        show=False,
        tooltip="as_of: toggle between now and the chosen date",
    ),
    Binding("h", "flip('historical')", "Toggle include-historical", show=False),
    Binding("s", "flip('strict')", "Toggle strict", show=False),
    Binding("l", "focus_input('limit')", "Edit limit", show=False, priority=True),
    Binding("m", "focus_input('min-relevance')", "Edit min-relevance", show=False, priority=True),
    Binding("1", "show_tab('tab-included')", "Included pane", show=False),
    Binding("3", "show_tab('tab-warnings')", "Warnings pane", show=False),
    Binding("f", "cycle_reason", "Filter exclusions by reason", show=False),
    Binding(
        "d",
        "toggle_side",
        "Detail",
        tooltip="into the detail pane (it scrolls with the keys); again: back to the table",
    ),
    Binding("escape", "results", "Back to the results", show=False),
    *bindings_of(Export),
    Binding(
        "e",
        "edit",
        "Edit",
        show=False,
        tooltip="open the selected object's file in $VISUAL / $EDITOR",
    ),
    Binding(
        "u", "audit", "Audit", show=False, tooltip="audit view: every finding and role at once"
    ),
    Binding("c", "copy_digest", "Copy digest", show=False),
    Binding("ctrl+r", "reload", "Reload from disk", show=False),
    *bindings_of(Compare),
    *bindings_of(Agenda),
    *bindings_of(Revisions),
    *bindings_of(Orientation),
    *bindings_of(TimeTravel),
    Binding("q", "quit", "Quit"),
]
"""The explorer's keys (``OctuiApp.BINDINGS``)."""

__all__ = ["APP_BINDINGS"]
