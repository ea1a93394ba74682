"""Keys written as people read them: ``Esc``, ``,``, ``PgDn``, ``Ctrl+P`` (not ``escape``,
``comma``, ``pagedown``, ``ctrl+p``). Textual-free; used by the footer and the help."""

from __future__ import annotations

NAMES = {
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "space": "Space",
    "backspace": "Backspace",
    "delete": "Del",
    "insert": "Ins",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "comma": ",",
    "full_stop": ".",
    "slash": "/",
    "question_mark": "?",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "left_curly_bracket": "{",
    "right_curly_bracket": "}",
    "minus": "-",
    "plus": "+",
    "equals_sign": "=",
    "exclamation_mark": "!",
    "number_sign": "#",
    "asterisk": "*",
    "colon": ":",
    "semicolon": ";",
    "less_than_sign": "<",
    "greater_than_sign": ">",
}

MODIFIERS = {"ctrl": "Ctrl", "shift": "Shift", "alt": "Alt", "meta": "Meta", "super": "Super"}


def key_label(key: str) -> str:
    """One key (``ctrl+p`` → ``Ctrl+P``, ``escape`` → ``Esc``, ``f1`` → ``F1``)."""
    parts = key.strip().split("+")
    *mods, name = parts if parts[-1] else [*parts[:-2], "+"]
    shown = NAMES.get(name)
    if shown is None:
        if len(name) > 1 and name[0] == "f" and name[1:].isdigit():
            shown = name.upper()
        elif len(name) == 1:
            shown = name.upper() if mods else name
        else:
            shown = name.replace("_", " ").capitalize()
    return "+".join([*(MODIFIERS.get(m, m.capitalize()) for m in mods), shown])


def keys_label(keys: str) -> str:
    """A binding's comma-separated keys (``up,k`` → ``↑ / k``)."""
    return " / ".join(key_label(k) for k in keys.split(",") if k.strip())
