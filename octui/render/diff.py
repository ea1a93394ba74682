"""The human layout of ``opencontext diff`` (and the change lines the agenda and the
explorer's compare view share): each object under exactly one heading, each changed field
old → new, the body's unified diff on request. Every line is made inert."""

from __future__ import annotations

import json
from typing import Any

from octui.analysis.diff_result import Diff, EntryView, ObjectChange, SideInfo, WarningView
from octui.core.enums import DiffAspect
from octui.core.textsafe import inert
from octui.render.findings import code_glyph


def describe_side(role: str | None, task: str, as_of: str, rev: str | None) -> str:
    """One line naming what produced a side of a comparison."""
    parts = [f"role {role}" if role else "whole repository"]
    if task:
        parts.append(f"task {task!r}")
    parts.append(f"as of {as_of}")
    parts.append(f"revision {rev}" if rev else "working tree")
    return ", ".join(parts)


def side_text(side: SideInfo) -> str:
    """One line naming what produced ``side``."""
    return describe_side(side.role, side.task, side.as_of, side.rev)


SECTIONS: tuple[tuple[str, str, str], ...] = (
    ("added", "Added (only in B)", "+"),
    ("removed", "Removed (only in A)", "-"),
    ("now-included", "Now included", "+"),
    ("now-excluded", "Now excluded", "-"),
    ("reason", "Exclusion reason changed", "*"),
    ("changed", "Changed", "~"),
    ("rank", "Rank moved", "↕"),
)


def section_of(change: ObjectChange) -> str:
    """The section of :data:`SECTIONS` a change is listed under."""
    first = change.primary
    if first.moves_in or first.moves_out or first is DiffAspect.REASON:
        return first.value
    if change.rank_only:
        return DiffAspect.RANK.value
    return "changed"


def describe_change(change: ObjectChange) -> str:
    """One line saying what happened to one object."""
    b, a = change.before, change.after
    if b is None and a is not None:
        return f"{a.label}: {_state_text(a)}"
    if a is None and b is not None:
        return f"{b.label}: was {_state_text(b)}"
    assert a is not None and b is not None
    label = b.label if b.version == a.version else f"{change.id}@{b.version}→@{a.version}"
    if b.version is None or a.version is None:
        label = a.label if a.version is not None else b.label
    parts: list[str] = []
    for aspect in change.aspects:
        if aspect in (DiffAspect.NOW_INCLUDED, DiffAspect.NOW_EXCLUDED, DiffAspect.REASON):
            parts.append(f"{_state_text(b)} → {_state_text(a)}")
        elif aspect is DiffAspect.VERSION and not parts:
            parts.append(f"version {b.version} → {a.version}")
        elif aspect is DiffAspect.RELATED:
            parts.append(
                f"{a.reason} {', '.join(b.related) or '-'} → {', '.join(a.related) or '-'}"
            )
        elif aspect is DiffAspect.LIFECYCLE:
            parts.append(f"lifecycle {b.lifecycle} → {a.lifecycle}")
        elif aspect is DiffAspect.STALE:
            parts.append("now stale" if a.stale else "no longer stale")
        elif aspect is DiffAspect.AUTHORITY:
            parts.append(f"authority {b.authority or 'none'} → {a.authority or 'none'}")
        elif aspect is DiffAspect.FIELDS:
            parts.append("changed " + ", ".join(change.changed_fields))
        elif aspect is DiffAspect.RANK:
            parts.append(f"rank {b.rank} → {a.rank}")
    return f"{label}: " + "; ".join(parts)


def _state_text(e: EntryView) -> str:
    if e.included:
        text = e.state
        if e.stale:
            text += ", stale"
        return text
    if e.detail:
        return f"{e.reason} ({e.detail})"
    return e.reason or "excluded"


def value_text(value: Any) -> str:
    """A field value as the bundle writes it: strings quoted, lists as lists, null."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def field_lines(change: ObjectChange, body: bool = False) -> list[str]:
    """One line per changed field, old → new; the body's unified diff when ``body``."""
    lines: list[str] = []
    for name, (old, new) in change.field_values().items():
        if name == "content":
            a, b = (len(str(v or "").splitlines()) for v in (old, new))
            hint = "" if body else "; --body shows the diff"
            lines.append(f"content: body changed ({a} → {b} lines{hint})")
        else:
            lines.append(f"{name}: {value_text(old)} → {value_text(new)}")
    if body:
        text = change.body_diff()
        if text:
            lines.extend(text.rstrip("\n").split("\n"))
    return lines


def grouped(
    diff: Diff,
) -> tuple[dict[str, list[ObjectChange]], list[tuple[str, list[ObjectChange]]]]:
    """Each object under exactly one heading: the object changes of every id whose included
    version changed (by id, listed under "Version changed"), then the rest by section."""
    versioned = {v.id for v in diff.versions}
    by_version: dict[str, list[ObjectChange]] = {v.id: [] for v in diff.versions}
    rest: list[ObjectChange] = []
    for change in diff.objects:
        if change.id in versioned:
            by_version[change.id].append(change)
        else:
            rest.append(change)
    sections = [(key, [c for c in rest if section_of(c) == key]) for key, _t, _m in SECTIONS]
    return by_version, [(key, rows) for key, rows in sections if rows]


def render_text(diff: Diff, *, body: bool = False) -> str:
    """The human layout of ``opencontext diff``: each object under one heading, each changed
    field old → new (the body's unified diff with ``body``)."""
    lines = [
        f"A: {side_text(diff.a)}",
        f"B: {side_text(diff.b)}",
    ]
    if diff.same:
        lines.append("Same context: the two bundles digest identically.")
    by_version, sections = grouped(diff)
    if diff.versions:
        lines.append("Version changed:")
        for v in diff.versions:
            before = ", ".join(f"@{n}" for n in v.before)
            after = ", ".join(f"@{n}" for n in v.after)
            lines.append(f"  ~ {v.id} {before} → {after}")
            for change in by_version[v.id]:
                lines.append(f"      {describe_change(change)}")
                lines.extend(f"        {line}" for line in field_lines(change, body))
    titles = {key: (title, mark) for key, title, mark in SECTIONS}
    for key, rows in sections:
        title, mark = titles[key]
        lines.append(f"{title}:")
        for c in rows:
            lines.append(f"  {mark} {describe_change(c)}")
            lines.extend(f"      {line}" for line in field_lines(c, body))
    if diff.warnings_added:
        lines.append("Warnings added:")
        lines.extend(f"  + {_warning_text(w)}" for w in diff.warnings_added)
    if diff.warnings_removed:
        lines.append("Warnings removed:")
        lines.extend(f"  - {_warning_text(w)}" for w in diff.warnings_removed)
    if not diff.objects and not diff.warnings_added and not diff.warnings_removed:
        lines.append("No differences." if not diff.hidden else "No differences the role sees.")
    if diff.hidden:
        n = diff.hidden
        lines.append(
            f"({n} change{'s' if n != 1 else ''} to objects the role cannot receive not shown; "
            "--all shows every exclusion change)"
        )
    lines.append(f"Digest A: {diff.a.digest}")
    lines.append(f"Digest B: {diff.b.digest}")
    return "\n".join(inert(line, keep_newlines=False) for line in lines) + "\n"


def _warning_text(w: WarningView) -> str:
    mark = code_glyph(w.code)
    ids = " ".join(w.ids)
    return f"{mark} {w.code} {ids}: {w.message}" if ids else f"{mark} {w.code}: {w.message}"
