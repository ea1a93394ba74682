"""Making untrusted text inert before it reaches a terminal.

Repository text (ids, titles, content, source names, paths) is written by
people and models we do not control. Control characters — ANSI and OSC escape
sequences, including OSC 52 clipboard writes — are shown as visible escapes,
never interpreted.
"""

from __future__ import annotations

import re

# ... and lone surrogates (undecodable bytes smuggled through surrogate escapes).
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def inert(text: str, *, keep_newlines: bool = True) -> str:
    """Replace control characters with visible ``\\xNN`` / ``\\uNNNN`` escapes."""

    def esc(m: re.Match[str]) -> str:
        code = ord(m.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    out = _CONTROL.sub(esc, text)
    if not keep_newlines:
        out = out.replace("\n", "\\n").replace("\t", " ")
    return out


def shown_name(name: str) -> str:
    """A name the repository chose (a key, a role, a level) as a one-line message shows it:
    as it is when it reads as itself there, else quoted and escaped as Python writes a
    string (empty, padded, a line break or another control or invisible character)."""
    return name if name != "" and name.isprintable() and name == name.strip() else repr(name)


def markup_escape(text: str) -> str:
    """``text`` made literal inside Textual (or Rich) console markup.

    ``textual.markup.escape`` only escapes brackets that look like a tag to its regex
    (``[red]``), but Textual's parser also reads ``[31m ...]`` or ``[ ...]`` as tags, so
    text such as ``\\x1b[31mRED`` followed by real markup raises ``MarkupError``. Every
    ``[`` is escaped here; Textual-free, like the rest of this module.
    """
    return text.replace("[", "\\[")
