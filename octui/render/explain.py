"""The human-readable layout of ``--explain``: the seed's example, after a header that
names what was resolved (findings as text: :mod:`octui.render.findings`)."""

from __future__ import annotations

import json
from collections import Counter

from octui.core.enums import Lifecycle
from octui.core.textsafe import inert
from octui.core.timeutil import format_instant
from octui.render.findings import finding_lines
from octui.resolve.result import Resolution

#: ``source`` of a resolution read from the files on disk.
WORKING_TREE_SOURCE = "working tree"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def header_lines(resolution: Resolution, source: str = WORKING_TREE_SOURCE) -> list[str]:
    """What was resolved and what came of it, e.g.::

        Role: support · task: "refund" · as_of: 2026-11-30T00:00:00Z (UTC) · source: working tree
        21 included, 36 excluded, 14 warnings (5 errors)

    Options that change the bundle (history, limit, minimum relevance, strict) follow the
    source when they are set.
    """
    q = resolution.query
    task = json.dumps(q.task, ensure_ascii=False) if q.task else "(none)"
    parts = [
        f"Role: {q.role if q.role is not None else '(whole repository)'}",
        f"task: {task}",
        f"as_of: {format_instant(q.as_of)} (UTC)",
        f"source: {source}",
    ]
    if q.include_historical:
        parts.append("historical included")
    if q.limit is not None:
        parts.append(f"limit: {q.limit}")
    if q.min_relevance is not None:
        parts.append(f"min_relevance: {q.min_relevance:g}")
    if q.strict:
        parts.append("strict")
    warnings = _plural(len(resolution.warnings), "warning")
    if resolution.warnings:
        warnings += f" ({_plural(resolution.error_count, 'error')})"
    counts = (
        f"{len(resolution.included)} included, {len(resolution.exclusions)} excluded, {warnings}"
    )
    return [" · ".join(parts), counts]


def explain(resolution: Resolution, digest: str, *, source: str = WORKING_TREE_SOURCE) -> str:
    """The header, then ``Included:``, ``Excluded:``, ``Warnings:`` and ``Digest:``.

    ``source`` names where the repository was read from (``working tree``, or the git
    revision). Every line is inert; colour, when wanted, is added afterwards
    (:func:`octui.render.ansi.paint_marks`).
    """
    lines = [*header_lines(resolution, source), "Included:"]
    copies = Counter(inc.obj.id for inc in resolution.included)  # two versions of an id
    for inc in resolution.included:
        extra = []
        if inc.obj.version != 1 or copies[inc.obj.id] > 1:
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
