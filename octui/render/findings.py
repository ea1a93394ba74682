"""Findings as text, shared by every layout (``--explain``, ``validate``, ``audit``,
``diff``) and the explorer: the mark at the head of the line comes from the one table of
:class:`octui.core.enums.FindingMark`."""

from __future__ import annotations

from octui.core.enums import FindingMark, WarningCode
from octui.core.model import Finding
from octui.core.textsafe import inert


def glyph(finding: Finding) -> str:
    """``✗`` error, ``⚠`` warning, ``!`` staleness (a reminder more than a fault)."""
    return FindingMark.of(finding.code).value


def code_glyph(code: str) -> str:
    """The mark of a finding known only by its code's spelling (a diff's findings)."""
    return FindingMark.of(WarningCode(code)).value


def finding_lines(finding: Finding, *, with_paths: bool = False) -> list[str]:
    """``glyph code: message`` (the ids too, for staleness), the ``→`` hint, the files."""
    ids = " ".join(finding.ids)
    head = f"{glyph(finding)} {finding.code.value}"
    if finding.code is WarningCode.STALE and ids:
        head += f" {ids}"
    lines = [inert(f"{head}: {finding.message}", keep_newlines=False)]
    if finding.hint:
        lines.append(inert(f"  → {finding.hint}", keep_newlines=False))
    if with_paths:
        lines.extend(inert(f"  at {p}", keep_newlines=False) for p in finding.paths)
    return lines
