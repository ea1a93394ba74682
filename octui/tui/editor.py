"""The fix loop's editor command: ``$VISUAL`` or ``$EDITOR``, at a line, never through a shell.

Textual-free. The explorer suspends itself, runs the command, and re-resolves when the
editor returns; the explorer itself never writes to the repository.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

NO_EDITOR = (
    "no editor set: set $VISUAL or $EDITOR (e.g. export EDITOR=vim) to open files from the explorer"
)

_PLUS_LINE = {"vi", "vim", "nvim", "nano", "emacs", "emacsclient", "micro", "kak", "hx", "helix"}
"""Editors that take ``+LINE FILE``."""
_GOTO = {"code", "code-insiders", "codium", "subl", "sublime_text"}
"""Editors that take ``-g FILE:LINE``."""


class EditorError(Exception):
    """The editor cannot be run (none set, or the variable cannot be parsed)."""


def editor_words(env: Mapping[str, str] | None = None) -> list[str]:
    """``$VISUAL``, else ``$EDITOR``, split as a shell would split words (nothing else of a
    shell: no expansion, no pipes)."""
    env = os.environ if env is None else env
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if not value:
            continue
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise EditorError(f"${name} cannot be parsed ({exc}): {value!r}") from None
        if words:
            return words
    raise EditorError(NO_EDITOR)


def editor_command(file: Path, line: int | None, env: Mapping[str, str] | None = None) -> list[str]:
    """The argv that opens ``file`` at ``line`` in the user's editor."""
    words = editor_words(env)
    name = Path(words[0]).name.lower()
    if line is not None and line > 0:
        if name in _PLUS_LINE:
            return [*words, f"+{line}", str(file)]
        if name in _GOTO:
            return [*words, "-g", f"{file}:{line}"]
    return [*words, str(file)]
