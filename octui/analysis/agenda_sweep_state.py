"""The state of the agenda's sweep: the bundle of one query kept from candidate instant to
candidate instant, re-judging at each only what its causes touch.

Between two consecutive candidate instants nothing changes, and at a candidate only the
objects its causes name can change state: their validity (step 3), the supersession edges
that start there (step 5), their staleness. What they touch beyond themselves is bounded:
the competition within their id (step 6) and the declared conflicts reaching their id
(step 7, transitively). So the ids are split once into *clusters* — ids joined by
``conflicts_with`` — and at each candidate only the clusters its causes name are judged
again (steps 2-7 over those objects, by the pipeline's own step functions), spliced into
the bundle kept from the instant before. Ranking needs no work: an object's place in the
bundle order depends on the task and the object only. The digest is hashed from cached
per-entry pieces; only changes are diffed, and only over the ids they touch.

This module holds that state (:class:`Sweep`); :mod:`octui.analysis.agenda_sweep` moves it
from candidate to candidate and diffs its consecutive bundles.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from octui.analysis.diff import receivable_ids
from octui.analysis.diff_result import SideInfo
from octui.bundle.bundle import canonical_json, warning_digest_form
from octui.bundle.pieces import Pieces, pieces_of
from octui.core.enums import ExclusionReason, Lifecycle, WarningCode
from octui.core.model import ContextObject, Exclusion, Finding
from octui.core.timeutil import format_instant
from octui.core.tokens import tokenize
from octui.load.assemble import Repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import admitted_for, steps_3_to_7
from octui.resolve.findings import is_stale, stale_finding
from octui.resolve.ranking import score
from octui.resolve.result import Included, Query, Resolution
from octui.resolve.steps.s2_approval import approval

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
class ClusterState:
    """What one cluster of ids comes to at an instant: its exclusions, its findings, the
    objects it includes and whether each is stale."""

    exclusions: dict[int, Exclusion]
    findings: list[Finding]
    standing: dict[int, Lifecycle]
    """Included objects by uid, with their lifecycle (historical ones too)."""
    stale: dict[int, bool]


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


def conflict_clusters(readable: list[ContextObject]) -> dict[str, str]:
    """Each readable id's cluster (named by its smallest id): ids joined, transitively, by
    declared conflicts, the most steps 2-7 ever join."""
    readable_ids = {o.id for o in readable}
    parent: dict[str, str] = {i: i for i in readable_ids}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for obj in readable:
        for other in obj.conflicts_with:
            if other in parent:
                ra, rb = find(obj.id), find(other)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    return {i: find(i) for i in readable_ids}


class Sweep:
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
        self.pieces = Pieces() if cache.memo is None else pieces_of(cache.memo, repository.objects)
        self.reader = admitted_for(repository, query, cache).reader
        self.readable: list[ContextObject] = self.reader.readable
        self.cluster_of = conflict_clusters(self.readable)
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
        self.clusters: dict[str, ClusterState] = {}
        self.instant: datetime | None = None
        self.current = _Sorted()  # order key → Included (active)
        self.historical = _Sorted()  # order key → Included (expired / superseded)
        self.exclusions = _Sorted()  # Exclusion.sort_key → Exclusion
        self.warnings = _Sorted()  # Finding.sort_key → Finding
        for ex in dict.fromkeys(base.exclusions):
            if ex.reason.is_denial or ex.reason is ExclusionReason.SOURCE_UNAVAILABLE:
                self.exclusions.add(ex.sort_key(), ex, self.pieces.exclusion(ex))
        for w in set(base.warnings):
            if w.code not in _DYNAMIC_CODES:
                self.warnings.add(w.sort_key(), w, _warning_bytes(w))
        self._digest: str | None = None
        self._included: list[Included] | None = None

    # -- judging -------------------------------------------------------------------------------

    def judge(self, clusters: list[str], instant: datetime) -> dict[str, ClusterState]:
        """Steps 2-7 (and staleness) over the objects of ``clusters`` at ``instant``, by the
        pipeline's own steps: no step joins objects of two clusters."""
        query = replace(self.query, as_of=instant, task="", limit=None, min_relevance=None)
        index, reader = self.index, self.reader
        objects = [o for c in clusters for o in self.members[c]]
        s2 = approval(index, reader, query, objects)
        judged = steps_3_to_7(index, reader, query, s2.standing)
        # supersession cycles (judged.cycles) are fixed for the role and kept apart
        historical, found = judged.historical, judged.findings
        exclusions = s2.exclusions | judged.exclusions
        states = {c: ClusterState({}, [], {}, {}) for c in clusters}
        cluster_of = self.cluster_of
        for uid, ex in exclusions.items():
            states[cluster_of[ex.id]].exclusions[uid] = ex
        for obj in judged.current:
            states[cluster_of[obj.id]].standing[obj.uid] = Lifecycle.ACTIVE
        for obj in judged.past:
            states[cluster_of[obj.id]].standing[obj.uid] = historical[obj.uid]
        config = self.config
        for state in states.values():
            for uid in state.standing:
                obj = self.by_uid[uid]
                stale = state.stale[uid] = is_stale(config, obj, instant)
                if stale:
                    state.findings.append(stale_finding(config, obj))
        for f in found:
            states[cluster_of[f.ids[0]]].findings.append(f)
        for state in states.values():
            state.findings.sort(key=Finding.sort_key)
        return states

    def probe(self, instant: datetime, ids: set[str]) -> dict[str, ClusterState]:
        """The clusters of ``ids`` judged at ``instant``: those whose state changes."""
        clusters = sorted({self.cluster_of[i] for i in ids if i in self.cluster_of})
        judged = self.judge(clusters, instant)
        return {c: s for c, s in judged.items() if s != self.clusters.get(c)}

    def start(self, instant: datetime) -> None:
        self.commit(instant, self.judge(sorted(self.members), instant))

    def commit(self, instant: datetime, changed: dict[str, ClusterState]) -> None:
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

    def _splice(self, state: ClusterState, sign: int) -> None:
        for uid, lifecycle in state.standing.items():
            into = self.current if lifecycle is Lifecycle.ACTIVE else self.historical
            key = self.order[uid]
            if sign < 0:
                into.remove(key)
            else:
                s = self.scores[uid]
                inc = Included(self.by_uid[uid], lifecycle, state.stale[uid], s.score, s.matched)
                into.add(key, inc, self.pieces.included(inc))
        for ex in state.exclusions.values():
            if sign < 0:
                self.exclusions.remove(ex.sort_key())
            else:
                self.exclusions.add(ex.sort_key(), ex, self.pieces.exclusion(ex))
        for w in state.findings:
            if sign < 0:
                self.warnings.remove(w.sort_key())
            else:
                self.warnings.add(w.sort_key(), w, _warning_bytes(w))

    # -- the bundle ----------------------------------------------------------------------------

    def size(self) -> int:
        """How many objects the bundle includes."""
        return len(self.current.keys) + len(self.historical.keys)

    def located(self, states: list[ClusterState]) -> dict[int, tuple[int, Included]]:
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
