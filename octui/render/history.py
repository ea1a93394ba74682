"""Text layouts of an id's history: its lineage at one instant (``opencontext history``)
and its git log (``--log``). Every line is made inert."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from octui.analysis.history import HistoryRow
from octui.analysis.objlog import ObjectLog, VersionChange
from octui.core.enums import LogChangeKind
from octui.core.textsafe import inert
from octui.core.timeutil import format_day, format_instant


def _window(row: HistoryRow) -> str:
    """``2025-10-01 → 2026-06-01``: from the effective start to the end of the window in
    which the object could be in effect (closed by a supersession in effect)."""
    o = row.obj
    assert o is not None
    start = format_day(row.start) if row.start else "always"
    superseded = row.superseded_from
    if superseded is not None and superseded <= o.effective_start:
        return f"never in effect (superseded from {start})"
    end = row.in_effect_until
    return f"{start} → {format_day(end) if end else 'open'}"


def render_text(rows: list[HistoryRow], object_id: str, role: str | None, as_of: datetime) -> str:
    """The human layout of ``opencontext history``: one line per version (id@version,
    authority, window, state at ``as_of``, path), then its supersession edges, each with
    when it takes effect. A superseded window ends where the supersession takes effect;
    the declared window, when different, is shown under it."""
    lines = [
        f"History of {object_id} at {format_instant(as_of)} (UTC)"
        + (f" for role {role}" if role else " (whole repository)")
    ]
    for r in rows:
        if r.obj is None:
            lines.append(f"  {r.id}  {r.state}")
            continue
        o = r.obj
        lines.append(
            f"  {o.key}  {o.authority or '(no authority)'}  {_window(r)}  {r.state}  {o.path}"
        )
        if r.in_effect_until != o.valid_until:  # closed early by a supersession
            start = format_day(r.start) if r.start else "always"
            until = format_day(o.valid_until) if o.valid_until else "open"
            lines.append(f"      declared: {start} → {until}")
        lines.extend(
            f"      {f.text if f.in_cycle else f'{f.text} — {f.note}'}" for f in r.edge_facts
        )
    return "\n".join(inert(line, keep_newlines=False) for line in lines) + "\n"


def show_value(value: Any) -> str:
    """A field value as the text layout shows it: lists as lists, None as ``null``."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def log_mark(kind: LogChangeKind) -> str:
    """``+`` a version added, ``-`` removed, ``~`` changed."""
    return _LOG_MARK[kind]


_LOG_MARK = {LogChangeKind.ADDED: "+", LogChangeKind.REMOVED: "-", LogChangeKind.CHANGED: "~"}


def change_lines(change: VersionChange, object_id: str, *, body: bool = True) -> list[str]:
    """One commit's change to one version: ``+``/``-``/``~`` line, fields, body diff."""
    mark = log_mark(change.kind)
    lines = [f"  {mark} {object_id}@{change.version} {change.kind} ({change.path})"]
    for name, (old, new) in change.fields.items():
        lines.append(f"      {name}: {show_value(old)} → {show_value(new)}")
    if change.body_diff and body:
        lines.append("      body:")
        lines.extend(f"        {line}" for line in change.body_diff.splitlines())
    return lines


def render_log(log: ObjectLog) -> str:
    """The text layout of ``opencontext history --log``: each commit, newest first, with
    what it did to each version of the id."""
    if not log.commits:
        return f"{log.id}: no commit of HEAD changed a file holding it\n"
    count = len(log.commits)
    lines = [f"{log.id}: {count} commit{'s' if count != 1 else ''} changed it, newest first"]
    for c in log.commits:
        lines.append("")
        lines.append(f"commit {c.commit}")
        lines.append(f"  {format_instant(c.date)} · {c.author}")
        lines.append(f"  {c.subject}")
        for change in c.changes:
            lines.extend(change_lines(change, log.id))
    return "".join(inert(line, keep_newlines=False) + "\n" for line in lines)
