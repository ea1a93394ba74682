"""Looks: the theme (``--theme``, else the saved one) and colours readable on light themes.

The panes colour their cells with the terminal's named colours (``yellow``, ``blue``…);
Textual turns those into true colours through an ANSI palette. Its default palette for
light themes keeps yellow and green bright (made for a terminal's white background),
too pale on the grey surfaces of Textual's light themes. :data:`READABLE_LIGHT` is
darker: each colour has a contrast of at least 4.5:1 (WCAG AA) with the background,
surface and panel of every built-in light theme. On the cursor row colours give way
to the cursor's own (see :class:`~octui.tui.widgets.rowtable.RowTable`), so a blue
``not-yet-valid`` is never drawn on a blue cursor.
"""

from __future__ import annotations

from typing import Any

from rich.terminal_theme import TerminalTheme

_DARK_RED = (148, 26, 26)
_DARK_GREEN = (15, 90, 15)
_DARK_YELLOW = (104, 70, 0)
_DARK_BLUE = (30, 60, 170)
_DARK_MAGENTA = (115, 35, 135)
_DARK_CYAN = (0, 84, 104)

READABLE_LIGHT = TerminalTheme(
    (247, 247, 247),
    (0, 0, 0),
    [
        (0, 0, 0),
        _DARK_RED,
        _DARK_GREEN,
        _DARK_YELLOW,
        _DARK_BLUE,
        _DARK_MAGENTA,
        _DARK_CYAN,
        (80, 80, 80),  # "white" on a light background: a dark grey, still readable
        (80, 80, 80),
    ],
    [
        _DARK_RED,
        _DARK_GREEN,
        _DARK_YELLOW,
        _DARK_BLUE,
        _DARK_MAGENTA,
        _DARK_CYAN,
        (40, 40, 40),
    ],
)
"""The ANSI palette the explorer uses under light themes."""

STATUS_COLOURS = ("red", "green", "yellow", "blue", "magenta", "cyan")
"""The named colours the panes give a meaning to (reasons, lifecycles, severities)."""


def ansi_markup(spec: str) -> str:
    """A Rich style (``"bold red"``) as Textual markup in the same ANSI colour
    (``"bold ansi_red"``), so markup and table cells share :data:`READABLE_LIGHT`."""
    return " ".join(f"ansi_{w}" if w in STATUS_COLOURS else w for w in spec.split())


def theme_names(app: Any) -> list[str]:
    return sorted(app.available_themes)


def apply_theme(app: Any, requested: str | None) -> None:
    """Use ``requested`` (``--theme``, this run only), else the saved theme; from then on
    a theme chosen in the explorer (the palette's theme command) is saved."""
    from octui.tui.settings import load_settings, remember_theme

    app.ansi_theme_light = READABLE_LIGHT
    name = requested or load_settings().theme
    if name and name in app.available_themes:
        app.theme = name
    shown = [app.theme]

    def changed(theme: Any) -> None:
        if theme.name != shown[0]:
            shown[0] = theme.name
            remember_theme(theme.name)

    app.theme_changed_signal.subscribe(app, changed)
