"""Repository and configuration text, shown literally in the explorer.

Role names, ids, titles, paths, tasks, revisions and error messages are written by
people we do not control. On screen they are never interpreted: not as console
markup (``[@click=app.screenshot(...)]`` would be a clickable action), not as
ANSI or OSC escape sequences (made visible by :func:`octui.core.textsafe.inert`).

Every notification goes through :meth:`octui.tui.app.OctuiApp.notify`, which
uses :func:`toast_text` and never enables markup; widgets that render markup
use :func:`markup_literal` for the text they embed, or show a :class:`Content`
from :func:`content`.
"""

from __future__ import annotations

from textual.content import Content
from textual.fuzzy import Matcher

from octui.core.textsafe import inert, markup_escape


def line(text: object) -> str:
    """``text`` on one line, with control characters as visible escapes."""
    return inert(str(text), keep_newlines=False)


def toast_text(text: object) -> str:
    """A notification's message: control characters visible, line breaks kept."""
    return inert(str(text))


def markup_literal(text: object) -> str:
    """``text`` (one line) made literal inside Textual console markup."""
    return markup_escape(line(text))


def content(text: object) -> Content:
    """``text`` (one line) as content that is never parsed as markup."""
    return Content(line(text))


def highlighted(matcher: Matcher, title: str) -> Content:
    """``title`` as literal content, with the characters ``matcher`` matched highlighted.

    ``Matcher.highlight`` parses its candidate as markup: a palette entry naming a role
    must not.
    """
    shown = line(title)
    result = Content(shown)
    score, offsets = matcher.fuzzy_search.match(matcher.query, shown)
    if not score:
        return result
    for offset in offsets:
        if not shown[offset].isspace():
            result = result.stylize(matcher.match_style, offset, offset + 1)
    return result
