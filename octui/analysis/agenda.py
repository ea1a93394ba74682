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

import hashlib
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from octui.analysis.diff import (
    Diff,
    EntryView,
    SideInfo,
    describe_change,
    diff_entries,
    diff_resolutions,
    excluded_view,
    field_lines,
    included_view,
    receivable_ids,
    warning_changes,
)
from octui.bundle.bundle import (
    _exclusion_json,
    _included_json,
    canonical_json,
    digest,
    warning_digest_form,
)
from octui.core.enums import ExclusionReason, Lifecycle, WarningCode
from octui.core.model import ContextObject, Exclusion, Finding
from octui.core.textsafe import inert
from octui.core.timeutil import BEGINNING_OF_TIME, add_days, format_instant
from octui.core.tokens import tokenize
from octui.load.assemble import Repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import admitted_for, resolve
from octui.resolve.findings import freshness_window, is_stale, version_findings
from octui.resolve.ranking import score
from octui.resolve.result import Included, Query, Resolution
from octui.resolve.steps.s2_approval import approval
from octui.resolve.steps.s3_temporal import temporal
from octui.resolve.steps.s4_scope import scope
from octui.resolve.steps.s5_supersession import supersession
from octui.resolve.steps.s6_competition import competition
from octui.resolve.steps.s7_conflicts import conflicts

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
    """What changes, without the objects that only moved in rank (counted in
    :attr:`rank_moves`): an agenda says what enters, leaves or changes."""
    rank_moves: int = 0
    """How many included objects only moved in rank."""

    @property
    def first_instant(self) -> datetime:
        return self.at + EPSILON if self.after else self.at

    def upcoming(self, as_of: datetime) -> bool:
        return self.first_instant > as_of

    @property
    def receives(self) -> bool:
        """Whether what the role receives changes here: an object enters, leaves or changes
        in the bundle, or a finding is added or removed. Otherwise only exclusion entries
        change (an out-of-scope object starting, a loser's reason)."""
        d = self.diff
        if d.warnings_added or d.warnings_removed:
            return True
        return any(
            (c.before is not None and c.before.included)
            or (c.after is not None and c.after.included)
            for c in d.objects
        )

    def to_json(self, as_of: datetime, everything: bool = True) -> dict[str, Any]:
        """The change; objects that only moved in rank are counted, not listed. Without
        ``everything``, only changes to objects the role could receive are listed."""
        diff = self.diff if everything else self.diff.receivable_only()
        d = diff.to_json()
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
            "objects": d["objects"],
            "rank_moves": self.rank_moves,
            "hidden": d["hidden"],
            "receives": self.receives,
            "warnings": d["warnings"],
        }


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
            found[(start, False)].append(Cause(kind, obj.key, (obj.id,), f"{obj.key} takes effect"))
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
        self, candidate: _Candidate, before: Resolution, after: Resolution
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
        return _point(candidate, diff, moves)


def without_rank_moves(diff: Diff) -> tuple[Diff, int]:
    """The diff without the objects that only moved in rank, and how many there were."""
    kept = tuple(c for c in diff.objects if c.aspects != ("rank",))
    return replace(diff, objects=kept), len(diff.objects) - len(kept)


def _point(candidate: _Candidate, diff: Diff, rank_moves: int) -> ChangePoint:
    """A change point; its causes are those naming an id that changed (all, if none does)."""
    touched = _touched_ids(diff)
    relevant = tuple(c for c in candidate.causes if touched.intersection(c.ids))
    return ChangePoint(
        candidate.at, candidate.after, relevant or candidate.causes, diff, rank_moves
    )


def change_agenda(
    repository: Repository,
    query: Query,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    rev: str | None = None,
    cache: ResolutionCache | None = None,
) -> Agenda:
    """The instants in ``(since, until]`` at which ``query``'s bundle changes (None: unbounded).

    Found by sweeping the candidate instants in order and re-judging, at each, only what its
    causes touch (see :class:`_Sweep`); a query that trims (``limit``, ``min_relevance``)
    depends on the whole order, and is resolved at every candidate instead. ``cache`` is
    ``repository``'s resolution cache (without one, the sweep makes its own).
    """
    cache = cache if cache is not None else ResolutionCache(repository)
    base = resolve(repository, query, cache)
    window = _window(base, since, until)
    if not window:
        return Agenda(query, since, until, (), rev)
    if query.limit is None and query.min_relevance is None:
        points = _sweep_agenda(repository, query, base, window, rev, cache)
        return Agenda(query, since, until, tuple(points), rev)
    return brute_force_agenda(repository, query, since=since, until=until, rev=rev, cache=cache)


def _window(base: Resolution, since: datetime | None, until: datetime | None) -> list[_Candidate]:
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


# -- the sweep -----------------------------------------------------------------------------------
#
# Between two consecutive candidate instants nothing changes, and at a candidate only the
# objects its causes name can change state: their validity (step 3), the supersession edges
# that start there (step 5), their staleness. What they touch beyond themselves is bounded:
# the competition within their id (step 6) and the declared conflicts reaching their id
# (step 7, transitively). So the ids are split once into *clusters* — ids joined by
# ``conflicts_with`` — and at each candidate only the clusters its causes name are judged
# again (steps 2-7 over those objects, by the pipeline's own step functions), spliced into
# the bundle kept from the instant before. Ranking needs no work: an object's place in the
# bundle order depends on the task and the object only. The digest is hashed from cached
# per-entry pieces; only changes are diffed, and only over the ids they touch.

_DYNAMIC_CODES = frozenset(
    {
        WarningCode.STALE,
        WarningCode.DUPLICATE_CANONICAL,
        WarningCode.MULTIPLE_ACTIVE_VERSIONS,
        WarningCode.CONFLICT_AMBIGUOUS,
        WarningCode.CONFLICT_DECLARED,
    }
)
"""The warnings that depend on ``as_of``; every other finding is fixed for a role."""


@dataclass
class _ClusterState:
    exclusions: dict[int, Exclusion]
    findings: list[Finding]
    standing: dict[int, Lifecycle]
    """Included objects by uid, with their lifecycle (historical ones too)."""
    stale: dict[int, bool]


def _stale_finding(config: Any, obj: ContextObject) -> Finding:
    window = freshness_window(config, obj)
    return Finding(
        WarningCode.STALE,
        (obj.id,),
        f"has not been updated inside its freshness window ({window}d)",
        "Review it and update `updated`, or set review_every.",
        (obj.path,),
    )


class _Sorted:
    """A sorted list of unique keys with parallel lists of values and of their canonical
    JSON (bisect, in place)."""

    __slots__ = ("blobs", "keys", "values")

    def __init__(self) -> None:
        self.keys: list[Any] = []
        self.values: list[Any] = []
        self.blobs: list[bytes] = []

    def add(self, key: Any, value: Any, blob: bytes) -> None:
        i = bisect_left(self.keys, key)
        self.keys.insert(i, key)
        self.values.insert(i, value)
        self.blobs.insert(i, blob)

    def remove(self, key: Any) -> None:
        i = bisect_left(self.keys, key)
        del self.keys[i]
        del self.values[i]
        del self.blobs[i]

    def index(self, key: Any) -> int:
        return bisect_left(self.keys, key)


@lru_cache(maxsize=1 << 17)
def _warning_bytes(w: Finding) -> bytes:
    return canonical_json(warning_digest_form(w))


class _Sweep:
    """The bundle of one query kept from candidate to candidate, re-judging only the
    clusters each candidate touches. Needs a query without ``limit`` / ``min_relevance``
    (trimming depends on the whole order)."""

    def __init__(
        self,
        repository: Repository,
        query: Query,
        base: Resolution,
        rev: str | None,
        cache: ResolutionCache,
    ):
        self.repository = repository
        self.query = query
        self.rev = rev
        self.config = repository.config
        self.index = cache.index()
        self.reader = admitted_for(repository, query, cache).reader
        self.readable: list[ContextObject] = self.reader.readable
        self.approved: set[int] = self.reader.approved
        readable_ids = {o.id for o in self.readable}
        parent: dict[str, str] = {i: i for i in readable_ids}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for obj in self.readable:  # clusters: ids joined by declared conflicts
            for other in obj.conflicts_with:
                if other in parent:
                    ra, rb = find(obj.id), find(other)
                    if ra != rb:
                        parent[max(ra, rb)] = min(ra, rb)
        self.cluster_of = {i: find(i) for i in readable_ids}
        self.members: dict[str, list[ContextObject]] = defaultdict(list)
        for obj in self.readable:
            self.members[self.cluster_of[obj.id]].append(obj)
        tokens = tokenize(query.task)
        floor = self.config.ranking.floor
        self.scores = {o.uid: score(o, tokens, floor) for o in self.readable}
        groups, places = self.index.groups, self.index.places
        width = len(places) + 1
        self.order = {
            o.uid: ((groups[o.uid] << 40) - self.scores[o.uid].score) * width + places[o.uid]
            for o in self.readable
        }
        self.by_uid = {o.uid: o for o in self.readable}
        self.receivable = receivable_ids(base, base)
        self.clusters: dict[str, _ClusterState] = {}
        self.instant: datetime | None = None
        self.current = _Sorted()  # order key → Included (active)
        self.historical = _Sorted()  # order key → Included (expired / superseded)
        self.exclusions = _Sorted()  # Exclusion.sort_key → Exclusion
        self.warnings = _Sorted()  # Finding.sort_key → Finding
        for ex in dict.fromkeys(base.exclusions):
            if ex.reason.is_denial or ex.reason is ExclusionReason.SOURCE_UNAVAILABLE:
                self.exclusions.add(ex.sort_key(), ex, _exclusion_json(ex))
        for w in set(base.warnings):
            if w.code not in _DYNAMIC_CODES:
                self.warnings.add(w.sort_key(), w, _warning_bytes(w))
        self._digest: str | None = None
        self._included: list[Included] | None = None

    # -- judging -------------------------------------------------------------------------------

    def judge(self, clusters: list[str], instant: datetime) -> dict[str, _ClusterState]:
        """Steps 2-7 (and staleness) over the objects of ``clusters`` at ``instant``, by the
        pipeline's own steps: no step joins objects of two clusters."""
        query = replace(self.query, as_of=instant, task="", limit=None, min_relevance=None)
        index, reader = self.index, self.reader
        objects = [o for c in clusters for o in self.members[c]]
        s2 = approval(index, reader, query, objects)
        s3 = temporal(index, reader, query, s2.standing)
        s4 = scope(index, reader, query, s3.standing)
        s5 = supersession(index, reader, query, s4.standing)
        # supersession cycles (s5's findings) are fixed for the role and kept apart
        historical = s5.historical | s3.historical  # expired before superseded
        current = [o for o in s5.standing if o.uid not in historical]
        found = version_findings(index, current)
        s6 = competition(index, reader, query, current)
        s7 = conflicts(index, reader, query, s6.standing)
        found += s6.findings + s7.findings
        exclusions = s2.exclusions | s3.exclusions | s4.exclusions | s5.exclusions
        exclusions |= s6.exclusions | s7.exclusions
        states = {c: _ClusterState({}, [], {}, {}) for c in clusters}
        cluster_of = self.cluster_of
        for uid, ex in exclusions.items():
            states[cluster_of[ex.id]].exclusions[uid] = ex
        for obj in s7.standing:
            states[cluster_of[obj.id]].standing[obj.uid] = Lifecycle.ACTIVE
        for obj in s5.standing:
            if obj.uid in historical:
                states[cluster_of[obj.id]].standing[obj.uid] = historical[obj.uid]
        config = self.config
        for state in states.values():
            for uid in state.standing:
                obj = self.by_uid[uid]
                stale = state.stale[uid] = is_stale(config, obj, instant)
                if stale:
                    state.findings.append(_stale_finding(config, obj))
        for f in found:
            states[cluster_of[f.ids[0]]].findings.append(f)
        for state in states.values():
            state.findings.sort(key=Finding.sort_key)
        return states

    def probe(self, instant: datetime, ids: set[str]) -> dict[str, _ClusterState]:
        """The clusters of ``ids`` judged at ``instant``: those whose state changes."""
        clusters = sorted({self.cluster_of[i] for i in ids if i in self.cluster_of})
        judged = self.judge(clusters, instant)
        return {c: s for c, s in judged.items() if s != self.clusters.get(c)}

    def start(self, instant: datetime) -> None:
        self.commit(instant, self.judge(sorted(self.members), instant))

    def commit(self, instant: datetime, changed: dict[str, _ClusterState]) -> None:
        """Move to ``instant``, splicing the re-judged clusters into the bundle."""
        self.instant = instant
        for cluster, state in changed.items():
            old = self.clusters.get(cluster)
            if old is not None:
                self._splice(old, -1)
            self._splice(state, +1)
            self.clusters[cluster] = state
        if changed:
            self._digest = None
            self._included = None

    def _splice(self, state: _ClusterState, sign: int) -> None:
        for uid, lifecycle in state.standing.items():
            into = self.current if lifecycle is Lifecycle.ACTIVE else self.historical
            key = self.order[uid]
            if sign < 0:
                into.remove(key)
            else:
                s = self.scores[uid]
                inc = Included(self.by_uid[uid], lifecycle, state.stale[uid], s.score, s.matched)
                into.add(key, inc, _included_json(inc))
        for ex in state.exclusions.values():
            if sign < 0:
                self.exclusions.remove(ex.sort_key())
            else:
                self.exclusions.add(ex.sort_key(), ex, _exclusion_json(ex))
        for w in state.findings:
            if sign < 0:
                self.warnings.remove(w.sort_key())
            else:
                self.warnings.add(w.sort_key(), w, _warning_bytes(w))

    # -- the bundle ----------------------------------------------------------------------------

    def size(self) -> int:
        """How many objects the bundle includes."""
        return len(self.current.keys) + len(self.historical.keys)

    def located(self, states: list[_ClusterState]) -> dict[int, tuple[int, Included]]:
        """The 1-based rank and entry of each object ``states`` include, in this bundle."""
        out: dict[int, tuple[int, Included]] = {}
        for state in states:
            for uid, lifecycle in state.standing.items():
                key = self.order[uid]
                if lifecycle is Lifecycle.ACTIVE:
                    i = self.current.index(key)
                    out[uid] = (i + 1, self.current.values[i])
                else:
                    i = self.historical.index(key)
                    out[uid] = (len(self.current.keys) + i + 1, self.historical.values[i])
        return out

    def included(self) -> list[Included]:
        """The bundle's objects in order (one list until the next change)."""
        if self._included is None:
            self._included = self.current.values + self.historical.values
        return self._included

    def side(self) -> SideInfo:
        q = self.query
        assert self.instant is not None
        return SideInfo(
            role=q.role,
            task=q.task,
            as_of=format_instant(self.instant),
            digest=self.digest(),
            rev=self.rev,
            include_historical=q.include_historical,
            limit=q.limit,
            min_relevance=q.min_relevance,
        )

    def digest(self) -> str:
        """The digest of SPEC §5, hashed from each entry's cached canonical JSON."""
        if self._digest is None:
            h = hashlib.sha256(b'{"exclusions":[')
            h.update(b",".join(self.exclusions.blobs))
            h.update(b'],"objects":[')
            h.update(b",".join(self.current.blobs + self.historical.blobs))
            h.update(b'],"warnings":[')
            h.update(b",".join(self.warnings.blobs))
            h.update(b"]}")
            self._digest = "sha256:" + h.hexdigest()
        return self._digest


def _sweep_agenda(
    repository: Repository,
    query: Query,
    base: Resolution,
    window: list[_Candidate],
    rev: str | None,
    cache: ResolutionCache,
) -> list[ChangePoint]:
    start = window[0].first_instant - EPSILON
    points = sweep_points(repository, query, base, window, rev, start, forward=True, cache=cache)
    return list(points)


def sweep_points(
    repository: Repository,
    query: Query,
    base: Resolution,
    ordered: list[_Candidate],
    rev: str | None,
    start: datetime,
    *,
    forward: bool,
    cache: ResolutionCache | None = None,
) -> Iterator[ChangePoint]:
    """The change points at ``ordered`` candidates, found lazily by sweeping from the bundle
    at ``start``: forward (soonest first, candidates after ``start``) or backward (latest
    first, candidates in effect at ``start``). ``cache``: ``repository``'s resolution cache."""
    cache = cache if cache is not None else ResolutionCache(repository)
    sweep = _Sweep(repository, query, base, rev, cache)
    sweep.start(start)
    ids_at: dict[datetime, set[str]] = defaultdict(set)
    for candidate in ordered:
        for cause in candidate.causes:
            ids_at[candidate.first_instant].update(cause.ids)
    for candidate in ordered:
        instant = candidate.first_instant if forward else candidate.first_instant - EPSILON
        changed = sweep.probe(instant, ids_at[candidate.first_instant])
        if not changed:
            sweep.commit(instant, changed)
            continue
        old_states = [sweep.clusters[c] for c in changed]
        old: _Side = (sweep.side(), sweep.located(old_states), old_states, sweep.size())
        sweep.commit(instant, changed)
        if sweep.digest() == old[0].digest:
            continue
        new_states = list(changed.values())
        new: _Side = (sweep.side(), sweep.located(new_states), new_states, sweep.size())
        diff, moves = _diff(sweep, old, new) if forward else _diff(sweep, new, old)
        yield _point(candidate, diff, moves)


_Side = tuple[SideInfo, dict[int, tuple[int, Included]], list[_ClusterState], int]
"""One side of a change: its description, the re-judged objects it includes (uid → rank and
entry), the re-judged clusters, and how many objects it includes."""


def _diff(sweep: _Sweep, a: _Side, b: _Side) -> tuple[Diff, int]:
    """The diff of two consecutive bundles without rank-only moves, and their count. Only the
    re-judged clusters can differ in more than rank; every other included object keeps its
    place among the others, so whether it moved is counted from the positions of the
    re-judged ones alone."""
    side_a, located_a, states_a, _size_a = a
    side_b, located_b, states_b, size_b = b
    changes, versions = diff_entries(
        _entries(located_a, states_a), _entries(located_b, states_b), sweep.receivable
    )
    kept = [ch for ch in changes if ch.aspects != ("rank",)]
    moves = len(changes) - len(kept)
    moves += _moved_elsewhere(
        sorted(rank - 1 for rank, _ in located_a.values()),
        sorted(rank - 1 for rank, _ in located_b.values()),
        size_b - len(located_b),
    )
    added, removed = warning_changes(
        sorted((w for s in states_a for w in s.findings), key=Finding.sort_key),
        sorted((w for s in states_b for w in s.findings), key=Finding.sort_key),
    )
    return Diff(side_a, side_b, tuple(kept), tuple(versions), added, removed), moves


def _moved_elsewhere(touched_a: list[int], touched_b: list[int], untouched: int) -> int:
    """How many of the ``untouched`` included objects change position between two bundles in
    which the others sit at positions ``touched_a`` and ``touched_b`` (0-based, sorted).

    The m-th untouched object sits after every touched one whose position minus its own index
    is at most m; it moved exactly when those counts differ on the two sides, and they change
    only at those values."""
    xa = [p - k for k, p in enumerate(touched_a)]
    xb = [p - k for k, p in enumerate(touched_b)]
    breaks = sorted({0, *xa, *xb})
    moved = 0
    for i, begin in enumerate(breaks):
        if begin >= untouched:
            break
        end = min(breaks[i + 1] if i + 1 < len(breaks) else untouched, untouched)
        if bisect_right(xa, begin) != bisect_right(xb, begin):
            moved += end - begin
    return moved


def _entries(
    located: dict[int, tuple[int, Included]], states: list[_ClusterState]
) -> list[EntryView]:
    """The bundle entries (as :func:`octui.analysis.diff.entries`) of the objects of ``states``."""
    out: list[EntryView] = []
    for state in states:
        for uid in state.standing:
            rank, inc = located[uid]
            out.append(included_view(inc, rank))
        out.extend(excluded_view(ex) for ex in state.exclusions.values())
    return out


def walk_changes(
    repository: Repository,
    query: Query,
    *,
    forward: bool = True,
    rev: str | None = None,
    cache: ResolutionCache | None = None,
) -> Iterator[ChangePoint]:
    """Changes after ``query.as_of`` (forward, soonest first) or already in effect at it
    (backward, latest first), found lazily by sweeping from ``query.as_of``. ``cache``:
    ``repository``'s resolution cache (without one, the walk makes its own)."""
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
        repository, query, here, ordered, rev, query.as_of, forward=forward, cache=cache
    )


def _brute_walk(
    repository: Repository,
    query: Query,
    here: Resolution,
    ordered: list[_Candidate],
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
            lines.append(f"  {_mark(change.primary)} {describe_change(change)}")
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


def _mark(aspect: str) -> str:
    return {"added": "+", "now-included": "+", "removed": "-", "now-excluded": "-"}.get(aspect, "~")


__all__ = [
    "Agenda",
    "Cause",
    "ChangePoint",
    "brute_force_agenda",
    "candidates",
    "change_agenda",
    "next_change",
    "previous_change",
    "render_text",
    "signature",
    "walk_changes",
]
