"""Colour for the text layouts on a terminal: plain ANSI SGR codes, no dependencies.

Colour is applied to text that is already inert (:func:`octui.core.textsafe.inert`), so
the only escape sequences in the output are the ones added here. Only the marks
the layouts put at the head of a line are painted — ``✓`` green, ``✗`` red, ``⚠``
yellow, ``!`` (stale) cyan — optionally after a one-character diff marker
(``+ ✗ code``); nothing else changes, so stripping the codes gives the plain text
byte for byte. JSON output is never coloured.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TextIO

from octui.core.enums import ColorMode, FindingMark

RESET = "\x1b[0m"
MARK_COLOURS: dict[str, str] = {
    "✓": "\x1b[32m",  # green
    **{mark.value: mark.ansi for mark in FindingMark},
}

# A mark at the head of a line (after indentation and an optional one-character diff
# marker such as ``+``), followed by a space.
_MARK = re.compile(r"^( *(?:[-+~*] )?)([✓✗⚠!])(?= )", re.MULTILINE)


def colour_enabled(
    mode: ColorMode | str, stream: TextIO, environ: Mapping[str, str] | None = None
) -> bool:
    """``always``: yes; ``never``: no; ``auto``: when ``stream`` is a terminal and
    ``NO_COLOR`` is unset or empty (https://no-color.org)."""
    mode = ColorMode(mode)
    if mode is ColorMode.ALWAYS:
        return True
    if mode is ColorMode.NEVER:
        return False
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):  # a closed or detached stream
        return False


def paint_marks(text: str) -> str:
    """``text`` with each line-leading mark wrapped in its colour."""

    def paint(m: re.Match[str]) -> str:
        mark = m.group(2)
        return f"{m.group(1)}{MARK_COLOURS[mark]}{mark}{RESET}"

    return _MARK.sub(paint, text)


def strip_sgr(text: str) -> str:
    """``text`` without the SGR codes :func:`paint_marks` adds."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)
