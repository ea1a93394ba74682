"""The change agenda: the instants at which a role's bundle changes, and what changes.

Candidates come from every object the role may read: its effective start
(``valid_from``, else ``created``), its ``valid_until``, the effective start of
every supersession edge it takes part in, and the instant it goes stale
(``updated``, else ``created``, plus its freshness window). A candidate is kept
only when resolving just before and at it gives different digests — so the
agenda never lists an instant at which nothing a role receives changes, and
never lists one derived from an object the role may not read.

Staleness is strict (``stale`` once ``as_of`` is *past* base + window), so a
staleness change holds from just *after* its instant; every other change holds
*from* its instant. :attr:`ChangePoint.first_instant` is the first instant at
which the new bundle holds — the ``as_of`` to resolve at to see it.

Pure: the same repository and query give the same agenda.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from octui.bundle import digest
from octui.diff import Diff, describe_change, diff_resolutions
from octui.loader import Repository
from octui.model import ContextObject, Exclusion
from octui.pipeline import Query, Resolution, freshness_window, resolve
from octui.textsafe import inert
from octui.timeutil import BEGINNING_OF_TIME, add_days, format_instant

EPSILON = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class Cause:
    """Why an instant is a candidate: one date on one object."""

    kind: str
    """``valid-from``, ``created``, ``valid-until``, ``supersession`` or ``stale``."""
    key: str
    ids: tuple[str, ...]
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "object": self.key, "detail": self.detail}


@dataclass(frozen=True)
class ChangePoint:
    """One instant at which the bundle changes."""

    at: datetime
    after: bool
    """True when the change holds only strictly after ``at`` (staleness)."""
    causes: tuple[Cause, ...]
    diff: Diff

    @property
    def first_instant(self) -> datetime:
        return self.at + EPSILON if self.after else self.at

    def upcoming(self, as_of: datetime) -> bool:
        return self.first_instant > as_of

    def to_json(self, as_of: datetime) -> dict[str, Any]:
        """The change; objects that only moved in rank are counted, not listed."""
        d = self.diff.to_json()
        return {
            "at": format_instant(self.at),
            "holds": "after" if self.after else "from",
            "first_instant": format_instant(self.first_instant),
            "upcoming": self.upcoming(as_of),
            "causes": [c.to_json() for c in self.causes],
            "digest_before": self.diff.a.digest,
            "digest_after": self.diff.b.digest,
            "summary": d["summary"],
            "versions": d["versions"],
            "objects": [o for o in d["objects"] if o["changes"] != ["rank"]],
            "rank_moves": sum(1 for o in d["objects"] if o["changes"] == ["rank"]),
            "warnings": d["warnings"],
        }


@dataclass(frozen=True)
class Agenda:
    query: Query
    since: datetime | None
    until: datetime | None
    points: tuple[ChangePoint, ...]
    rev: str | None = None

    def upcoming(self) -> list[ChangePoint]:
        return [p for p in self.points if p.upcoming(self.query.as_of)]

    def past(self) -> list[ChangePoint]:
        return [p for p in self.points if not p.upcoming(self.query.as_of)]

    def next_after(self, instant: datetime) -> ChangePoint | None:
        """The first change whose new bundle is not yet in effect at ``instant``."""
        return next((p for p in self.points if p.first_instant > instant), None)

    def previous_before(self, instant: datetime) -> ChangePoint | None:
        """The latest change already in effect at ``instant``."""
        found = [p for p in self.points if p.first_instant <= instant]
        return found[-1] if found else None

    def to_json(self) -> dict[str, Any]:
        q = self.query
        return {
            "role": q.role,
            "task": q.task,
            "as_of": format_instant(q.as_of),
            "since": format_instant(self.since) if self.since else None,
            "until": format_instant(self.until) if self.until else None,
            "rev": self.rev,
            "changes": [p.to_json(q.as_of) for p in self.points],
        }


def readable_objects(resolution: Resolution) -> list[ContextObject]:
    """Objects the resolution's role may read (denial does not depend on the instant)."""
    out = []
    for obj in resolution.repository.objects:
        fate = resolution.fates.get(obj.uid)
        if isinstance(fate, Exclusion) and fate.reason.is_denial:
            continue
        out.append(obj)
    return out


def candidates(resolution: Resolution) -> dict[tuple[datetime, bool], list[Cause]]:
    """Every instant at which the bundle might change, with the dates that put it there."""
    config = resolution.repository.config
    found: dict[tuple[datetime, bool], list[Cause]] = defaultdict(list)
    for obj in readable_objects(resolution):
        start = obj.effective_start
        if start != BEGINNING_OF_TIME:
            kind = "valid-from" if obj.valid_from else "created"
            found[(start, False)].append(Cause(kind, obj.key, (obj.id,), f"{obj.key} starts"))
        if obj.valid_until is not None:
            found[(obj.valid_until, False)].append(
                Cause("valid-until", obj.key, (obj.id,), f"{obj.key} expires")
            )
        window = freshness_window(config, obj)
        base = obj.updated or obj.created
        if window is not None and base is not None:
            stale_at = add_days(base, window)
            found[(stale_at, True)].append(
                Cause("stale", obj.key, (obj.id,), f"{obj.key} goes stale ({window}d window)")
            )
    for edge in resolution.edges:
        start = edge.replacement.effective_start
        if start == BEGINNING_OF_TIME:
            continue
        if (edge.replacement.uid, edge.replaced.uid) in resolution.cycle_edges:
            continue
        found[(start, False)].append(
            Cause(
                "supersession",
                edge.replacement.key,
                (edge.replacement.id, edge.replaced.id),
                f"{edge.replacement.key} supersedes {edge.replaced.key}",
            )
        )
    return found


def _touched_ids(diff: Diff) -> set[str]:
    ids = {c.id for c in diff.objects}
    for w in (*diff.warnings_added, *diff.warnings_removed):
        ids.update(w.ids)
    return ids


Signature = tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]


def signature(resolution: Resolution) -> Signature:
    """What the digest covers, by object identity: cheap to compare within one repository.

    Equal signatures imply equal digests (an object's fields are fixed by its uid); unequal
    signatures are confirmed with the digest before a change is reported.
    """
    return (
        tuple((i.obj.uid, i.lifecycle, i.stale) for i in resolution.included),
        tuple((e.id, e.version, e.reason, e.related) for e in resolution.exclusions),
        tuple((w.code, w.ids) for w in resolution.warnings),
    )


@dataclass(frozen=True)
class _Candidate:
    at: datetime
    after: bool
    causes: tuple[Cause, ...]

    @property
    def first_instant(self) -> datetime:
        return self.at + EPSILON if self.after else self.at


def sorted_candidates(resolution: Resolution) -> list[_Candidate]:
    """Candidate instants in order, without those at the edge of representable time."""
    out = []
    for (at, after), causes in sorted(candidates(resolution).items(), key=lambda kv: kv[0]):
        try:
            at + EPSILON
            at - EPSILON
        except OverflowError:
            continue
        unique = tuple(sorted(set(causes), key=lambda c: (c.kind, c.key, c.detail)))
        out.append(_Candidate(at, after, unique))
    return out


class _Resolver:
    """Resolutions of one query at many instants, with digests computed once."""

    def __init__(self, repository: Repository, query: Query, rev: str | None) -> None:
        self.repository = repository
        self.query = query
        self.rev = rev
        self._recent: list[tuple[Resolution, str]] = []

    def at(self, instant: datetime) -> Resolution:
        return resolve(self.repository, replace(self.query, as_of=instant))

    def digest(self, resolution: Resolution) -> str:
        """The digest, remembered for the two most recent resolutions (a walk needs no more)."""
        for known, value in self._recent:
            if known is resolution:
                return value
        value = digest(resolution)
        self._recent = [*self._recent[-1:], (resolution, value)]
        return value

    def point(
        self, candidate: _Candidate, before: Resolution, after: Resolution
    ) -> ChangePoint | None:
        """A change point when ``before`` and ``after`` really differ, else None."""
        if signature(before) == signature(after):
            return None
        da, db = self.digest(before), self.digest(after)
        if da == db:
            return None
        diff = diff_resolutions(
            before, after, rev_a=self.rev, rev_b=self.rev, digest_a=da, digest_b=db
        )
        touched = _touched_ids(diff)
        relevant = tuple(c for c in candidate.causes if touched.intersection(c.ids))
        return ChangePoint(candidate.at, candidate.after, relevant or candidate.causes, diff)


def change_agenda(
    repository: Repository,
    query: Query,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    rev: str | None = None,
) -> Agenda:
    """The instants in ``(since, until]`` at which ``query``'s bundle changes (None: unbounded).

    The bundle can change only at a candidate instant, so it is constant from one candidate's
    first instant to the next: one resolution per candidate suffices.
    """
    resolver = _Resolver(repository, query, rev)
    base = resolve(repository, query)
    window = [
        c
        for c in sorted_candidates(base)
        if (since is None or c.first_instant > since)
        and (until is None or c.first_instant <= until)
    ]
    points: list[ChangePoint] = []
    if window:
        previous = resolver.at(window[0].first_instant - EPSILON)
        for candidate in window:
            current = resolver.at(candidate.first_instant)
            point = resolver.point(candidate, previous, current)
            if point is not None:
                points.append(point)
            previous = current
    return Agenda(query, since, until, tuple(points), rev)


def walk_changes(
    repository: Repository, query: Query, *, forward: bool = True, rev: str | None = None
) -> Iterator[ChangePoint]:
    """Changes after ``query.as_of`` (forward, soonest first) or already in effect at it
    (backward, latest first), found lazily: each step resolves once."""
    resolver = _Resolver(repository, query, rev)
    here = resolve(repository, query)
    ordered = sorted_candidates(here)
    if forward:
        previous = here
        for candidate in ordered:
            if candidate.first_instant <= query.as_of:
                continue
            current = resolver.at(candidate.first_instant)
            point = resolver.point(candidate, previous, current)
            if point is not None:
                yield point
            previous = current
    else:
        current = here
        for candidate in reversed(ordered):
            if candidate.first_instant > query.as_of:
                continue
            before = resolver.at(candidate.first_instant - EPSILON)
            point = resolver.point(candidate, before, current)
            if point is not None:
                yield point
            current = before


def next_change(
    repository: Repository, query: Query, *, rev: str | None = None
) -> ChangePoint | None:
    """The first change after ``query.as_of`` (resolving only as far as needed), or None."""
    return next(walk_changes(repository, query, forward=True, rev=rev), None)


def previous_change(
    repository: Repository, query: Query, *, rev: str | None = None
) -> ChangePoint | None:
    """The latest change already in effect at ``query.as_of``, or None."""
    return next(walk_changes(repository, query, forward=False, rev=rev), None)


def render_text(agenda: Agenda) -> str:
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
    if not agenda.points:
        lines.append("  (no changes in this window)")
    for point in agenda.points:
        when = "upcoming" if point.upcoming(q.as_of) else "past"
        holds = "after" if point.after else "at"
        lines.append(f"{holds} {format_instant(point.at)}  ({when})")
        for cause in point.causes:
            lines.append(f"  because {cause.detail}")
        ranks = 0
        for change in point.diff.objects:
            if change.aspects == ("rank",):
                ranks += 1
                continue
            lines.append(f"  {_mark(change.primary)} {describe_change(change)}")
        if ranks:
            lines.append(f"  ↕ {ranks} object{'s' if ranks != 1 else ''} moved in rank")
        for w in point.diff.warnings_added:
            lines.append(f"  + warning {w.code} {' '.join(w.ids)}")
        for w in point.diff.warnings_removed:
            lines.append(f"  - warning {w.code} {' '.join(w.ids)}")
        lines.append(f"  digest {point.diff.a.digest} → {point.diff.b.digest}")
    return "\n".join(inert(line, keep_newlines=False) for line in lines) + "\n"


def _mark(aspect: str) -> str:
    return {"added": "+", "now-included": "+", "removed": "-", "now-excluded": "-"}.get(aspect, "~")


__all__ = [
    "Agenda",
    "Cause",
    "ChangePoint",
    "candidates",
    "change_agenda",
    "next_change",
    "previous_change",
    "render_text",
    "signature",
    "walk_changes",
]
