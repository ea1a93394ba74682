"""The text layout of ``opencontext changes``: the change agenda, one instant at a time,
with the causes, the changes (rank-only moves counted), the findings and the digests.
Every line is made inert."""

from __future__ import annotations

from octui.analysis.agenda import Agenda
from octui.analysis.diff_result import ObjectChange
from octui.core.textsafe import inert
from octui.core.timeutil import format_instant
from octui.render.diff import describe_change, field_lines


def render_text(agenda: Agenda) -> str:
    """The agenda, oldest instant first; each instant says whether it is past or upcoming."""
    q = agenda.query
    head = f"Changes to the bundle for {'role ' + q.role if q.role else 'the whole repository'}"
    if q.task:
        head += f", task {q.task!r}"
    head += f" (as of {format_instant(q.as_of)}"
    if agenda.since is not None:
        head += f", since {format_instant(agenda.since)}"
    if agenda.until is not None:
        head += f", until {format_instant(agenda.until)}"
    if agenda.rev is not None:
        head += f", revision {agenda.rev}"
    lines = [head + "):"]
    if not agenda.everything:
        lines.append("Changes to what the role receives (--all: every digest change).")
    if not agenda.points:
        lines.append("  (no changes in this window)")
    for point in agenda.points:
        when = "upcoming" if point.upcoming(q.as_of) else "past"
        holds = "after" if point.after else "at"
        lines.append(f"{holds} {format_instant(point.at)}  ({when})")
        for cause in point.causes:
            lines.append(f"  because {cause.detail}")
        diff = point.diff if agenda.everything else point.diff.receivable_only()
        ranks = point.rank_moves
        for change in diff.objects:
            lines.append(f"  {_mark(change)} {describe_change(change)}")
            lines.extend(f"      {line}" for line in field_lines(change))
        if ranks:
            lines.append(f"  ↕ {ranks} object{'s' if ranks != 1 else ''} moved in rank")
        for w in point.diff.warnings_added:
            lines.append(f"  + warning {w.code} {' '.join(w.ids)}")
        for w in point.diff.warnings_removed:
            lines.append(f"  - warning {w.code} {' '.join(w.ids)}")
        if diff.hidden:
            n = diff.hidden
            lines.append(f"  ({n} exclusion change{'s' if n != 1 else ''} the role cannot receive)")
        lines.append(f"  digest {point.diff.a.digest} → {point.diff.b.digest}")
    return "\n".join(inert(line, keep_newlines=False) for line in lines) + "\n"


def _mark(change: ObjectChange) -> str:
    """``+`` moved into the bundle, ``-`` moved out of it, ``~`` changed."""
    return "+" if change.moved_in else "-" if change.moved_out else "~"
