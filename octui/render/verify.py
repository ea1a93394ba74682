"""The report of ``opencontext verify``: what the check found, and — when a bundle was not
reproduced — the diff from the cited bundle to the reproduced one and the field values
that differ. Every line passes through ``inert()``."""

from __future__ import annotations

from octui.analysis.verify import Verdict
from octui.core.textsafe import inert
from octui.render.diff import render_text
from octui.render.history import show_value


def render_verdict(verdict: Verdict) -> str:
    """The report of ``verdict``, one line per finding."""
    text = "".join(inert(line, keep_newlines=False) + "\n" for line in verdict.lines)
    if verdict.diff is None:
        return text
    text += render_text(verdict.diff)
    if verdict.fields:
        text += "Field values changed (cited → reproduced):\n"
        for object_id, version, name, old, new in verdict.fields:
            line = f"  ~ {object_id}@{version} {name}: {show_value(old)} → {show_value(new)}"
            text += inert(line, keep_newlines=False) + "\n"
    return text


__all__ = ["render_verdict"]
