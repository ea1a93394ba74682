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

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from octui.analysis.agenda_points import (
    EPSILON,
    Candidate,
    ChangePoint,
    change_point,
    sorted_candidates,
    without_rank_moves,
)
from octui.analysis.agenda_sweep import sweep_points
from octui.analysis.diff import diff_resolutions
from octui.bundle.bundle import digest
from octui.core.timeutil import format_instant
from octui.load.assemble import Repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Query, Resolution


@dataclass(frozen=True)
class Agenda:
    query: Query
    since: datetime | None
    until: datetime | None
    points: tuple[ChangePoint, ...]
    rev: str | None = None
    everything: bool = True
    """False: only the changes to what the role receives (:attr:`ChangePoint.receives`)."""

    def receiving(self) -> Agenda:
        """The changes to what the role receives: the agenda without the instants at which
        only exclusion entries change, each listing only what the role could receive."""
        return replace(self, points=tuple(p for p in self.points if p.receives), everything=False)

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
            "everything": self.everything,
            "changes": [p.to_json(q.as_of, self.everything) for p in self.points],
        }


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


class _Resolver:
    """Resolutions of one query at many instants, with digests computed once."""

    def __init__(
        self, repository: Repository, query: Query, rev: str | None, cache: ResolutionCache
    ) -> None:
        self.repository = repository
        self.query = query
        self.rev = rev
        self.cache = cache
        self._recent: list[tuple[Resolution, str]] = []

    def at(self, instant: datetime) -> Resolution:
        return resolve(self.repository, replace(self.query, as_of=instant), self.cache)

    def digest(self, resolution: Resolution) -> str:
        """The digest, remembered for the two most recent resolutions (a walk needs no more)."""
        for known, value in self._recent:
            if known is resolution:
                return value
        value = digest(resolution)
        self._recent = [*self._recent[-1:], (resolution, value)]
        return value

    def point(
        self, candidate: Candidate, before: Resolution, after: Resolution
    ) -> ChangePoint | None:
        """A change point when ``before`` and ``after`` really differ, else None."""
        if signature(before) == signature(after):
            return None
        da, db = self.digest(before), self.digest(after)
        if da == db:
            return None
        full = diff_resolutions(
            before, after, rev_a=self.rev, rev_b=self.rev, digest_a=da, digest_b=db
        )
        diff, moves = without_rank_moves(full)
        return change_point(candidate, diff, moves)


def change_agenda(
    repository: Repository,
    query: Query,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    rev: str | None = None,
    cache: ResolutionCache | None = None,
    digests: bool = True,
) -> Agenda:
    """The instants in ``(since, until]`` at which ``query``'s bundle changes (None: unbounded).

    Found by sweeping the candidate instants in order and re-judging, at each, only what its
    causes touch (see :class:`~octui.analysis.agenda_sweep_state.Sweep`); a query that trims
    (``limit``, ``min_relevance``) depends on the whole order, and is resolved at every
    candidate instead. ``cache`` is ``repository``'s resolution cache (without one, the
    sweep makes its own). ``digests``: give every point the digests of its two bundles (the
    ``changes`` command prints them); without, the sweep's points carry ``None`` instead and
    no bundle is hashed — the same points, causes and changes, for a caller that never shows
    a point's digest (the explorer's agenda: hashing the bundle at each point was half of a
    90-day agenda's work at 10k objects).
    """
    cache = cache if cache is not None else ResolutionCache(repository)
    base = resolve(repository, query, cache)
    window = _window(base, since, until)
    if not window:
        return Agenda(query, since, until, (), rev)
    if query.limit is None and query.min_relevance is None:
        points = _sweep_agenda(repository, query, base, window, rev, cache, digests)
        return Agenda(query, since, until, tuple(points), rev)
    return brute_force_agenda(repository, query, since=since, until=until, rev=rev, cache=cache)


def _window(base: Resolution, since: datetime | None, until: datetime | None) -> list[Candidate]:
    return [
        c
        for c in sorted_candidates(base)
        if (since is None or c.first_instant > since)
        and (until is None or c.first_instant <= until)
    ]


def brute_force_agenda(
    repository: Repository,
    query: Query,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    rev: str | None = None,
    cache: ResolutionCache | None = None,
) -> Agenda:
    """:func:`change_agenda` by resolving the whole repository at every candidate instant
    (the bundle is constant from one candidate's first instant to the next): the slow,
    obviously right method the sweep is tested against."""
    cache = cache if cache is not None else ResolutionCache(repository)
    resolver = _Resolver(repository, query, rev, cache)
    base = resolve(repository, query, cache)
    window = _window(base, since, until)
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


def _sweep_agenda(
    repository: Repository,
    query: Query,
    base: Resolution,
    window: list[Candidate],
    rev: str | None,
    cache: ResolutionCache,
    digests: bool,
) -> list[ChangePoint]:
    start = window[0].first_instant - EPSILON
    points = sweep_points(
        repository, query, base, window, rev, start, forward=True, cache=cache, digests=digests
    )
    return list(points)


def walk_changes(
    repository: Repository,
    query: Query,
    *,
    forward: bool = True,
    rev: str | None = None,
    cache: ResolutionCache | None = None,
    digests: bool = True,
) -> Iterator[ChangePoint]:
    """Changes after ``query.as_of`` (forward, soonest first) or already in effect at it
    (backward, latest first), found lazily by sweeping from ``query.as_of``. ``cache``:
    ``repository``'s resolution cache (without one, the walk makes its own); ``digests``:
    as for :func:`change_agenda`."""
    cache = cache if cache is not None else ResolutionCache(repository)
    here = resolve(repository, query, cache)
    ordered = sorted_candidates(here)
    if forward:
        ordered = [c for c in ordered if c.first_instant > query.as_of]
    else:
        ordered = [c for c in reversed(ordered) if c.first_instant <= query.as_of]
    if query.limit is not None or query.min_relevance is not None:
        yield from _brute_walk(repository, query, here, ordered, forward, rev, cache)
        return
    yield from sweep_points(
        repository,
        query,
        here,
        ordered,
        rev,
        query.as_of,
        forward=forward,
        cache=cache,
        digests=digests,
    )


def _brute_walk(
    repository: Repository,
    query: Query,
    here: Resolution,
    ordered: list[Candidate],
    forward: bool,
    rev: str | None,
    cache: ResolutionCache | None = None,
) -> Iterator[ChangePoint]:
    """:func:`walk_changes` by resolving at every candidate (a query that trims)."""
    cache = cache if cache is not None else ResolutionCache(repository)
    resolver = _Resolver(repository, query, rev, cache)
    if forward:
        previous = here
        for candidate in ordered:
            current = resolver.at(candidate.first_instant)
            point = resolver.point(candidate, previous, current)
            if point is not None:
                yield point
            previous = current
    else:
        current = here
        for candidate in ordered:
            before = resolver.at(candidate.first_instant - EPSILON)
            point = resolver.point(candidate, before, current)
            if point is not None:
                yield point
            current = before


def next_change(
    repository: Repository,
    query: Query,
    *,
    rev: str | None = None,
    cache: ResolutionCache | None = None,
) -> ChangePoint | None:
    """The first change after ``query.as_of`` (resolving only as far as needed), or None."""
    return next(walk_changes(repository, query, forward=True, rev=rev, cache=cache), None)


def previous_change(
    repository: Repository,
    query: Query,
    *,
    rev: str | None = None,
    cache: ResolutionCache | None = None,
) -> ChangePoint | None:
    """The latest change already in effect at ``query.as_of``, or None."""
    return next(walk_changes(repository, query, forward=False, rev=rev, cache=cache), None)


__all__ = [
    "Agenda",
    "brute_force_agenda",
    "change_agenda",
    "next_change",
    "previous_change",
    "signature",
    "walk_changes",
]
