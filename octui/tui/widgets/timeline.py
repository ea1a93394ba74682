"""The supersession timeline of the selected object, drawn by :mod:`octui.render.timeline`."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.containers import VerticalScroll
from textual.widgets import Static

from octui.analysis.history import UnknownId
from octui.render.timeline import Timeline, layout
from octui.tui.literal import line as literal_line
from octui.tui.state import View
from octui.tui.widgets.quiet import show_text
from octui.tui.widgets.scrollbars import SteadyScrollbars

TAG_STYLES = {
    "axis": "dim",
    "tick": "dim",
    "marker": "bold yellow",
    "label": "bold",
    "edge": "cyan",
    "cycle": "bold red",
    "denied": "italic red",
    "after": "dim",
    "text": "",
    "bar-active": "green",
    "bar-superseded": "yellow",
    "bar-expired": "red",
    "bar-not-yet-valid": "blue",
    "bar-unapproved": "magenta",
    "bar-outranked": "yellow",
    "bar-conflict": "magenta",
    "state-active": "green",
    "state-superseded": "yellow",
    "state-expired": "red",
    "state-not-yet-valid": "blue",
    "state-unapproved": "magenta",
    "state-outranked": "yellow",
    "state-conflict": "magenta",
}


def to_text(timeline: Timeline) -> Text:
    text = Text(no_wrap=True, overflow="crop")
    for i, line in enumerate(timeline.lines):
        if i:
            text.append("\n")
        for run, tag in line.runs:
            style = TAG_STYLES.get(tag)
            if style is None and tag.startswith(("bar-", "state-")):
                style = "dim"
            text.append(run, style or "")
    return text


class TimelinePane(SteadyScrollbars, VerticalScroll):
    """Lineage bars on a date axis, edges, and the ``as_of`` marker."""

    DEFAULT_CSS = """
    TimelinePane {
        height: auto; max-height: 45%; padding: 0 1;
        border-bottom: solid $primary-background;
    }
    TimelinePane #timeline-body { width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: View | None = None
        self.object_id: str | None = None
        self.timeline: Timeline | None = None
        self.denied_reason: str | None = None

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("", id="timeline-body")

    def show(self, view: View | None, object_id: str | None, denied: str | None = None) -> None:
        self.view = view
        self.object_id = object_id
        self.denied_reason = denied
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        body = self.query_one("#timeline-body", Static)
        self.timeline = None
        if self.denied_reason is not None:
            body.update(Text(f"Timeline: not shown ({self.denied_reason})", style="dim italic"))
            return
        if self.view is None or self.object_id is None:
            body.update(Text("Timeline: select an object", style="dim italic"))
            return
        width = max(self.scrollable_content_region.width, 40)
        try:
            view = self.view
            self.timeline = layout(view.resolution, self.object_id, width, view.lineage_index)
        except UnknownId:
            body.update(
                Text(f"Timeline: {literal_line(self.object_id)} has no lineage", style="dim italic")
            )
            return
        head = Text.assemble(
            ("Timeline ", "bold"), (self.object_id, "bold cyan"), ("  │ = as_of", "dim yellow")
        )
        drawing = Text("\n").join([head, to_text(self.timeline)])
        drawing.no_wrap = True
        drawing.overflow = "crop"
        show_text(body, drawing)
