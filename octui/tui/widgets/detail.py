"""Detail: every field of the selected object, its content rendered, and why it is where it is.

An object denied to the role shows only its id and the reason, exactly as the
bundle does: nothing else about it is looked up.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from rich.theme import Theme
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from octui.bundle.bundle import object_fields
from octui.core.model import ContextObject, Exclusion, Finding
from octui.core.textsafe import inert
from octui.core.textsafe import markup_escape as escape
from octui.core.timeutil import format_day
from octui.resolve.findings import fresh_for
from octui.resolve.result import Included
from octui.tui.looks import ansi_markup
from octui.tui.state import View, included_key
from octui.tui.widgets.quiet import show_text
from octui.tui.widgets.results import LIFECYCLE_STYLE, REASON_STYLE, one_line, warning_style
from octui.tui.widgets.scrollbars import SteadyScrollbars


def _link(ref: str) -> str:
    """A clickable id (ids and refs are [a-z0-9._-] plus @N: safe inside markup)."""
    return f"[@click=app.jump('{ref}')][u]{escape(ref)}[/u][/]"


FIELD_CAP = 2_000
"""Characters of one field value shown in the detail pane (the bundle holds them whole)."""
CONTENT_CAP = 20_000
"""Characters of content shown (as Markdown, or as plain text past :data:`MARKDOWN_BLOCKS`)."""
MARKDOWN_BLOCKS = 400
"""Markdown blocks rendered: paragraphs, headings, list items, table rows and cells, ...
Each is laid out on the UI thread (a table of 3,000 columns is slow to measure), so
content with more is shown as plain text instead."""

PLAIN_LINES = 1_000
"""Lines of plain-text content shown (laying out a tall text costs the UI thread too)."""

_PARSER = MarkdownIt("commonmark", {"html": False}).enable(["strikethrough", "table"])
"""The parser of an object's body: Rich's own (CommonMark, tables, strikethrough) but for
HTML, which it leaves as text (Rich drops HTML blocks and tags from what it shows, so a
comment written for the agent would be hidden from the reviewer)."""

BODY_THEME = Theme(
    {
        "markdown.h1": "bold blue",
        "markdown.h2": "underline blue",
        "markdown.h3": "bold",
        "markdown.item.bullet": "bold blue",
        "markdown.code": "bold cyan",
        "markdown.code_block": "cyan",
    },
    inherit=False,
)
"""Rich's Markdown styles where they differ from the look of Textual's Markdown widget
(headings and bullets in blue), and code without Rich's fixed black background, a black
band on light themes. Named colours follow the theme's ANSI palette."""


def parse_body(text: str) -> list[Token]:
    """``text`` (an object's body, already :func:`inert`) parsed by :data:`_PARSER`, with
    every text, code and link target the parser produced made inert too: a character
    reference (``&#x202e;``) or a percent-encoded autolink becomes a character the source
    never held. Parsed once per body shown: :func:`markdown_blocks` counts these tokens and
    :func:`body_markdown` draws them."""
    return _inert_tokens(_PARSER.parse(text))


def body_markdown(text: str, tokens: list[Token]) -> Markdown:
    """``text`` as Rich's Markdown, drawn from its :func:`parse_body` tokens. Links are shown
    as text, never as hyperlinks."""
    markdown = Markdown("", code_theme="ansi_dark", hyperlinks=False)
    markdown.markup = text
    markdown.parsed = tokens
    return markdown


def _inert_tokens(tokens: list[Token]) -> list[Token]:
    for token in tokens:
        token.content = inert(token.content)
        token.info = inert(token.info)
        token.attrs = {k: inert(v) if isinstance(v, str) else v for k, v in token.attrs.items()}
        if token.children:
            _inert_tokens(token.children)
    return tokens


def markdown_blocks(tokens: list[Token]) -> int:
    """How many block elements a body's tokens make (see :data:`MARKDOWN_BLOCKS`)."""
    return sum(1 for t in tokens if t.block and t.nesting >= 0 and t.type != "inline")


def capped(text: str, limit: int = FIELD_CAP) -> str:
    """``text``, or its first ``limit`` characters and how many more there are."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … {len(text) - limit:,} more characters"


def _plain(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) if value else "[]"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    return str(value)


def _value(value: Any) -> str:
    """One field value, on one line, capped, control characters made visible."""
    text = _plain(value)
    if len(text) <= FIELD_CAP:
        return inert(text, keep_newlines=False)
    more = len(text) - FIELD_CAP
    return f"{inert(text[:FIELD_CAP], keep_newlines=False)} … {more:,} more characters"


def field_rows(obj: ContextObject, extra: dict[str, str]) -> list[tuple[str, str]]:
    """Every field of the object (SPEC §1.3), then ``extra`` (path, source, ...)."""
    rows = []
    for name, value in object_fields(obj).items():
        if name == "content":
            lines = obj.content.count("\n") + (1 if obj.content else 0)
            rows.append(("content", f"{lines} lines (rendered below)"))
        else:
            rows.append((name, _value(value)))
    return rows + [(name, capped(value)) for name, value in extra.items()]


def fields_table(rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column(overflow="fold")
    for name, value in rows:
        table.add_row(name, Text(value, style="dim" if name == "content" else ""))
    return table


class RenderedOnce:
    """A Rich renderable drawn once per width and replayed.

    Textual asks a ``Static`` for its lines several times per key (its height in each
    layout, its lines in each paint) and a Rich table measures and renders every cell each
    time: about 4 ms for an object's fields at 50k objects, three or four times per cursor
    move. The segments are kept for the last set of options that shape them (a table
    and a Markdown document ignore the height they are given). ``theme`` overrides
    styles of the console's theme while drawing."""

    def __init__(self, renderable: RenderableType, theme: Theme | None = None) -> None:
        self.renderable = renderable
        self.theme = theme
        self._drawn: tuple[tuple[object, ...], list[Segment]] | None = None
        self._measured: tuple[tuple[object, ...], Measurement] | None = None

    @staticmethod
    def _shape(console: Console, options: ConsoleOptions) -> tuple[object, ...]:
        return (
            id(console),
            options.max_width,
            options.min_width,
            options.justify,
            options.overflow,
            options.no_wrap,
            options.highlight,
            options.markup,
            options.is_terminal,
            options.encoding,
            options.legacy_windows,
        )

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        shape = self._shape(console, options)
        if self._drawn is None or self._drawn[0] != shape:
            with nullcontext() if self.theme is None else console.use_theme(self.theme):
                self._drawn = (shape, list(console.render(self.renderable, options)))
        yield from self._drawn[1]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        shape = self._shape(console, options)
        if self._measured is None or self._measured[0] != shape:
            self._measured = (shape, Measurement.get(console, options, self.renderable))
        return self._measured[1]


def included_rank(view: View, inc: Included) -> int:
    """``inc``'s place in the bundle (1 for the first; 0 if it is not in it): looked up in
    the included table's index when the view has one (a scan of thousands of rows
    otherwise, on every cursor move)."""
    prepared = view.included_rows
    if prepared is not None:
        at = prepared.index.get(included_key(inc))
        if at is not None and at < len(view.included) and view.included[at] is inc:
            return at + 1
    return next((i for i, x in enumerate(view.included, 1) if x is inc), 0)


class DetailPane(SteadyScrollbars, VerticalScroll):
    """Everything about one row of the result panes."""

    # Not ``BLANK``: its padding shows (see results.ResultTabs).

    DEFAULT_CSS = """
    DetailPane { height: 1fr; padding: 0 1; }
    DetailPane #why { margin-bottom: 1; }
    DetailPane #fields { margin-bottom: 1; }
    DetailPane #roles { margin-bottom: 1; display: none; }
    DetailPane #content { border-top: solid $primary-background; }
    DetailPane #content-note { color: $warning; text-style: italic; }
    DetailPane #content-plain { border-top: solid $primary-background; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.item: Included | Exclusion | Finding | None = None
        self.field_rows: list[tuple[str, str]] = []
        """The fields on show, as text (empty for denied objects and warnings)."""
        self._markdown_text: str | None = None
        """The content on show as Markdown (see :attr:`markdown_source`)."""
        self._content: str | None = None
        """The object content on show (see :meth:`_show_content`: a new view of the same
        object shows the same content, which is neither parsed nor drawn again); None when
        the boxes show something else."""
        self.roles_lines: list[str] | None = None
        """The Roles block on show (None: hidden); the explorer fills it for each selection
        (:func:`~octui.tui.auditapp.show_roles_block`)."""

    def compose(self) -> ComposeResult:
        yield Static("Select a row to see everything about it.", id="why")
        yield Static("", id="roles", markup=False)
        yield Static("", id="fields")
        yield Static("", id="content")
        yield Static("", id="content-plain", markup=False)
        yield Static("", id="content-note")

    @property
    def why_text(self) -> str:
        """Plain text of the explanation (for tests)."""
        return str(self.query_one("#why", Static).render())

    @property
    def roles_text(self) -> str:
        """Plain text of the Roles block ("" when it is not shown)."""
        box = self.query_one("#roles", Static)
        return str(box.render()) if box.display else ""

    def show_roles(self, lines: list[str] | None) -> None:
        """Show each declared role's fate for the object on show (None hides the block).
        The lines are literal text (role names come from the repository)."""
        self.roles_lines = lines
        box = self.query_one("#roles", Static)
        box.display = lines is not None
        show_text(box, "\n".join(lines or []))

    def show(self, view: View | None, item: Included | Exclusion | Finding | None) -> None:
        self.item = item
        if view is None or item is None:
            self._set_why("Select a row to see everything about it.")
            self._set_fields([])
            self._set_markdown(None)
            return
        if isinstance(item, Finding):
            self._show_finding(item)
            return
        if isinstance(item, Exclusion) and item.reason.is_denial:
            self._set_why(
                f"[b]id[/b]      {escape(one_line(item.id))}\n"
                f"[b]reason[/b]  "
                f"[{ansi_markup(REASON_STYLE[item.reason])}]{item.reason.value}[/]\n\n"
                "[dim]Denied to this role: only the id and the reason are shown, "
                "exactly as in the bundle.[/]"
            )
            self._set_fields([])
            self._set_markdown(None)
            return
        obj = view.object_of(item)
        if isinstance(item, Included):
            self._set_why(self._included_why(view, item))
            extra = {"path": one_line(item.obj.path), "source": one_line(item.obj.source)}
        else:
            self._set_why(self._excluded_why(item))
            extra = {}
            if obj is not None:
                extra = {"path": one_line(obj.path), "source": one_line(obj.source)}
        if obj is None:
            self._set_fields([])
            self._set_markdown(None)
            return
        if obj.unknown_fields:
            extra["unknown fields"] = ", ".join(one_line(f) for f in obj.unknown_fields)
        self._set_fields(field_rows(obj, extra))
        self._show_content(obj.content)

    def _set_why(self, markup: str) -> None:
        """The explanation (:func:`show_text` leaves it alone when it is the same: a new view
        of the object on show, a day on or another task, often explains it in the same
        words, and every update of a Static costs a layout and a paint)."""
        show_text(self.query_one("#why", Static), markup)

    def _set_fields(self, rows: list[tuple[str, str]]) -> None:
        """The fields table, drawn again only when its rows changed (the same object shows
        the same fields in every view; the box starts empty, as no rows)."""
        if rows == self.field_rows:
            return
        self.field_rows = rows
        box = self.query_one("#fields", Static)
        box.update(RenderedOnce(fields_table(rows)) if rows else "")

    def _show_content(self, content: str) -> None:
        """At most ``CONTENT_CAP`` characters, as Markdown unless that would build more than
        ``MARKDOWN_BLOCKS`` blocks (then as plain text, at most ``PLAIN_LINES`` lines), with a
        note saying what was left out. Nothing when that content is on show already."""
        if content == self._content:
            return
        head = content[:CONTENT_CAP]
        text = inert(head)
        tokens = parse_body(text)
        blocks = markdown_blocks(tokens)
        if blocks <= MARKDOWN_BLOCKS:
            self._set_markdown(body_markdown(text, tokens), len(content) - len(head))
        else:
            lines = head.splitlines(keepends=True)
            if len(lines) > PLAIN_LINES:
                head = "".join(lines[:PLAIN_LINES])
            self._set_markdown(None, len(content) - len(head), plain=inert(head), blocks=blocks)
        self._content = content

    def _included_why(self, view: View, inc: Included) -> str:
        o = inc.obj
        rank = included_rank(view, inc)
        lines = [
            f"[b ansi_green]✓ included[/] at rank {rank} of {len(view.included)} · "
            f"{escape(one_line(o.id))} v{o.version}",
            f"lifecycle [{ansi_markup(LIFECYCLE_STYLE.get(inc.lifecycle, ''))}]"
            f"{inc.lifecycle.value}[/]"
            + (" · [b ansi_yellow]! stale[/] " + _stale_why(view, o) if inc.stale else ""),
        ]
        if inc.matched:
            signals = "; ".join(
                f"{escape(k)}: {escape(', '.join(v))}" for k, v in inc.matched.items()
            )
            lines.append(f"score {inc.score} · matched {signals}")
        elif o.is_floor_layer:
            lines.append(f"score {inc.score} · floor score of layer {o.layer} (never trimmed)")
        else:
            lines.append(f"score {inc.score} · no ranking signal matched the task")
        return "\n".join(lines)

    def _excluded_why(self, ex: Exclusion) -> str:
        label = ex.id if ex.version is None else f"{ex.id}@{ex.version}"
        lines = [
            f"[b ansi_red]✗ excluded[/] {escape(one_line(label))}: "
            f"[{ansi_markup(REASON_STYLE.get(ex.reason, 'bold'))}]{ex.reason.value}[/]"
        ]
        if ex.detail:
            lines.append(escape(capped(one_line(ex.detail))))
        if ex.related:
            lines.append("related: " + ", ".join(_link(r) for r in ex.related))
        return "\n".join(lines)

    def _show_finding(self, w: Finding) -> None:
        style = warning_style(w)
        lines = [
            f"[{style}]{w.code.value}[/] ({w.severity.value})",
            escape(capped(one_line(w.message))),
        ]
        if w.hint:
            lines.append(f"[ansi_cyan]→[/] {escape(capped(one_line(w.hint)))}")
        if w.ids:
            lines.append("objects: " + ", ".join(_link(i) for i in w.ids))
            lines.append("[dim]Enter jumps to them in turn.[/]")
        self._set_why("\n".join(lines))
        self._set_fields([])
        self._set_markdown(None)

    @property
    def markdown_source(self) -> str:
        """The content on show as Markdown ("" when there is none or it is plain text)."""
        return self._markdown_text or ""

    @property
    def content_note(self) -> str:
        """Plain text of the note under the content ("" when the content is whole)."""
        return str(self.query_one("#content-note", Static).render())

    def _set_markdown(
        self, markdown: Markdown | None, more: int = 0, *, plain: str = "", blocks: int = 0
    ) -> None:
        """Show ``markdown`` (:func:`body_markdown`), or ``plain`` text, and the note on
        what was left out."""
        self._content = None  # (:meth:`_show_content` says which content this is)
        notes = []
        if plain:
            notes.append(
                f"Shown as plain text: as Markdown it has {blocks:,} blocks, more than the "
                f"{MARKDOWN_BLOCKS:,} the explorer renders."
            )
        if more > 0:
            notes.append(f"… content truncated: {more:,} more characters.")
        if notes:
            notes.append("The bundle holds it whole.")
        note = self.query_one("#content-note", Static)
        note.display = bool(notes)
        show_text(note, " ".join(notes))
        box = self.query_one("#content-plain", Static)
        box.display = bool(plain)
        show_text(box, plain)
        text = markdown.markup if markdown is not None else ""
        if text == self._markdown_text:
            return
        self._markdown_text = text
        body = self.query_one("#content", Static)
        body.display = bool(text)
        body.update(RenderedOnce(markdown, BODY_THEME) if markdown is not None and text else "")


def _stale_why(view: View, obj: ContextObject) -> str:
    """Why an included object is stale: the day its freshness window ran out, and the date
    and window that day is counted from."""
    fresh = fresh_for(view.resolution.repository.config, obj)
    if fresh is None:  # not so for a stale object, which has a window and a date
        return "(past its freshness window)"
    since = f"{fresh.since} {format_day(fresh.base)} + {fresh.days}d"
    return f"(fresh until {format_day(fresh.until)}: {since})"
