"""Measuring cell text cheaply (Textual-free, so worker threads can do it).

A table column that fits its longest cell needs the terminal width of every cell.
``rich.cells.cell_len`` costs a function call and a cache lookup per string; a
printable ASCII string is as wide as it is long, so only other strings go to it.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len

from octui.core.textsafe import inert


def text_width(text: str) -> int:
    """Terminal cells of ``text`` (exactly ``cell_len(text)``)."""
    return len(text) if text.isascii() and text.isprintable() else cell_len(text)


def longest(texts: Iterable[str]) -> int:
    """Cells of the widest text (0 when there is none)."""
    return max(map(text_width, texts), default=0)


def line_width(text: str | None) -> int:
    """Cells of ``text`` once made inert on one line (``inert(text, keep_newlines=False)``).

    Printable ASCII is left unchanged by :func:`octui.core.textsafe.inert`, so its width is
    its length; anything else is made inert first and then measured.
    """
    if not text:
        return 0
    if text.isascii() and text.isprintable():
        return len(text)
    return cell_len(inert(text, keep_newlines=False))


def longest_line(texts: Iterable[str | None]) -> int:
    """Cells of the widest text once made inert on one line (0 when there is none).

    Texts that are all printable ASCII (every id of a synthetic or a tidy repository) are
    checked at once, joined, and their width is their length: no call per text."""
    shown = list(filter(None, texts))
    joined = "".join(shown)
    if joined.isascii() and joined.isprintable():
        return max(map(len, shown), default=0)
    return max(map(line_width, shown), default=0)
