"""The human-readable layout of ``--explain`` (the seed's example), and findings as text."""

from __future__ import annotations

from octui.enums import Lifecycle, Severity, WarningCode
from octui.model import Finding
from octui.pipeline import Resolution
from octui.textsafe import inert


def glyph(finding: Finding) -> str:
    """``✗`` error, ``⚠`` warning, ``!`` staleness (a reminder more than a fault)."""
    if finding.code is WarningCode.STALE:
        return "!"
    return "✗" if finding.severity is Severity.ERROR else "⚠"


def finding_lines(finding: Finding, *, with_paths: bool = False) -> list[str]:
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


def explain(resolution: Resolution, digest: str) -> str:
    lines = ["Included:"]
    seen_ids = [inc.obj.id for inc in resolution.included]
    for inc in resolution.included:
        extra = []
        if inc.obj.version != 1 or seen_ids.count(inc.obj.id) > 1:
            extra.append(f"v{inc.obj.version}")
        if inc.lifecycle is not Lifecycle.ACTIVE:
            extra.append(f"({inc.lifecycle.value})")
        if inc.stale:
            extra.append("stale")
        suffix = ("  " + " ".join(extra)) if extra else ""
        lines.append(f"  ✓ {inc.obj.id} {inc.obj.authority or '(no authority)'}{suffix}")
    if not resolution.included:
        lines.append("  (nothing)")
    lines.append("Excluded:")
    for ex in resolution.exclusions:
        label = ex.id if ex.version is None else f"{ex.id}@{ex.version}"
        detail = f" ({ex.detail})" if ex.detail else ""
        lines.append(f"  - {label} {ex.reason.value}{detail}")
    if not resolution.exclusions:
        lines.append("  (nothing)")
    lines.append("Warnings:")
    for w in resolution.warnings:
        lines.extend("  " + line for line in finding_lines(w))
    if not resolution.warnings:
        lines.append("  (none)")
    lines.append(f"Digest: {digest}")
    return "\n".join(inert(line, keep_newlines=False) for line in lines) + "\n"
