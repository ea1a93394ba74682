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
bundle order depends on the task and the object only. Whether the bundle changed is
decided from the entries each commit takes out and puts in; the digest, when asked for, is
hashed from cached per-entry pieces; only changes are diffed, and only over the ids they
touch.

This module holds that state (:class:`Sweep`); :mod:`octui.analysis.agenda_sweep` moves it
from candidate to candidate and diffs its consecutive bundles.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from octui.analysis.diff import receivable_ids
from octui.analysis.diff_result import SideInfo
from octui.bundle.bundle import canonical_json, warning_digest_form
from octui.bundle.pieces import Pieces, joined_digest, pieces_of
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

    def add(self, key: Any, value: Any, blob: bytes) -> bytes:
        """Put in ``key``'s entry; its canonical JSON, ``blob``."""
        i = bisect_left(self.keys, key)
        self.keys.insert(i, key)
        self.values.insert(i, value)
        self.blobs.insert(i, blob)
        return blob

    def remove(self, key: Any) -> bytes:
        """Take out ``key``'s entry; its canonical JSON."""
        i = bisect_left(self.keys, key)
        blob = self.blobs[i]
        del self.keys[i]
        del self.values[i]
        del self.blobs[i]
        return blob

    def index(self, key: Any) -> int:
        return bisect_left(self.keys, key)


_EXCLUSIONS, _CURRENT, _HISTORICAL, _WARNINGS = range(4)
"""The bundle's sorted lists, in the order the digest hashes them: the exclusions, the
objects (active, then expired and superseded), the warnings."""
_PART = {_EXCLUSIONS: 0, _CURRENT: 1, _HISTORICAL: 1, _WARNINGS: 2}
"""Each list's part of the content (the objects are one part)."""
_Entry = tuple[int, Any, bytes]
"""One entry of the bundle as a commit logs it: its list, its key there, its JSON."""


def _joined(lists: list[list[bytes]]) -> tuple[bytes, bytes, bytes]:
    """The content of a bundle whose four lists (:data:`_EXCLUSIONS`…) hold ``lists``: the
    exclusions, the objects and the warnings, each part's JSON joined by commas."""
    exclusions, current, historical, warnings = lists
    return b",".join(exclusions), b",".join(current + historical), b",".join(warnings)


def _same_json(removed: list[_Entry], added: list[_Entry]) -> bool:
    """Whether the entries a commit took out and put in have the same JSON in each part of
    the content. Canonical JSON joined by commas parses back to one list of values, so a
    part whose entries' JSON changed as a multiset has changed; one whose JSON did not
    may still have changed its order."""

    def parts(entries: list[_Entry]) -> Counter[tuple[int, bytes]]:
        return Counter((_PART[where], blob) for where, _, blob in entries)

    return parts(removed) == parts(added)


def _entries_before(
    lst: _Sorted, where: int, removed: list[_Entry], added: list[_Entry]
) -> list[bytes]:
    """The JSON of ``lst``'s entries, in order, as they were before a commit that took out
    ``removed`` and put in ``added`` (``where``: which list ``lst`` is)."""
    entries = dict(zip(lst.keys, lst.blobs, strict=True))
    for at, key, _ in added:
        if at == where:
            del entries[key]
    for at, key, blob in removed:
        if at == where:
            entries[key] = blob
    return [entries[key] for key in sorted(entries)]


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
        self._content: tuple[bytes, bytes, bytes] | None = None
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

    def commit(self, instant: datetime, changed: dict[str, ClusterState]) -> bool:
        """Move to ``instant``, splicing the re-judged clusters into the bundle; whether its
        content (:meth:`content`) changed, decided from the entries the splice took out and
        put in, without joining the content (a part whose entries' JSON changed has
        changed, see :func:`_same_json`) unless only their places moved."""
        self.instant = instant
        if not changed:
            return False
        removed: list[_Entry] = []
        added: list[_Entry] = []
        for cluster, state in changed.items():
            old = self.clusters.get(cluster)
            if old is not None:
                self._splice(old, False, removed)
            self._splice(state, True, added)
            self.clusters[cluster] = state
        self._included = None
        if Counter(removed) == Counter(added):
            return False  # the very same entries: the same content, the same digest
        if _same_json(removed, added):  # only places moved (rare): compare the contents
            before = self._joined_before(removed, added)
            self._content = None
            if self.content() == before:
                return False  # the digest, if known, still holds
        else:
            self._content = None
        self._digest = None  # the content, if joined above, is the new one
        return True

    def _joined_before(
        self, removed: list[_Entry], added: list[_Entry]
    ) -> tuple[bytes, bytes, bytes]:
        """The content before the commit that took out ``removed`` and put in ``added``."""
        if self._content is not None:
            return self._content
        lists = self._lists()
        return _joined([_entries_before(lst, i, removed, added) for i, lst in enumerate(lists)])

    def _lists(self) -> tuple[_Sorted, _Sorted, _Sorted, _Sorted]:
        """The bundle's sorted lists: :data:`_EXCLUSIONS`, :data:`_CURRENT`,
        :data:`_HISTORICAL`, :data:`_WARNINGS`."""
        return (self.exclusions, self.current, self.historical, self.warnings)

    def _splice(self, state: ClusterState, put: bool, log: list[_Entry]) -> None:
        """Put ``state``'s entries into the bundle, or take them out (``put`` false), logging
        each one in ``log``."""
        key: Any
        for uid, lifecycle in state.standing.items():
            active = lifecycle is Lifecycle.ACTIVE
            into, where = (self.current, _CURRENT) if active else (self.historical, _HISTORICAL)
            key = self.order[uid]
            if put:
                s = self.scores[uid]
                inc = Included(self.by_uid[uid], lifecycle, state.stale[uid], s.score, s.matched)
                log.append((where, key, into.add(key, inc, self.pieces.included(inc))))
            else:
                log.append((where, key, into.remove(key)))
        for ex in state.exclusions.values():
            key = ex.sort_key()
            if put:
                blob = self.exclusions.add(key, ex, self.pieces.exclusion(ex))
            else:
                blob = self.exclusions.remove(key)
            log.append((_EXCLUSIONS, key, blob))
        for w in state.findings:
            key = w.sort_key()
            if put:
                blob = self.warnings.add(key, w, _warning_bytes(w))
            else:
                blob = self.warnings.remove(key)
            log.append((_WARNINGS, key, blob))

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

    def side(self, digest: bool = True) -> SideInfo:
        """This bundle's side of a diff (``digest``: with its digest, else ``None``)."""
        q = self.query
        assert self.instant is not None
        return SideInfo(
            role=q.role,
            task=q.task,
            as_of=format_instant(self.instant),
            digest=self.digest() if digest else None,
            rev=self.rev,
            include_historical=q.include_historical,
            limit=q.limit,
            min_relevance=q.min_relevance,
        )

    def content(self) -> tuple[bytes, bytes, bytes]:
        """What the digest hashes, joined from each entry's cached canonical JSON: the
        exclusions, the objects and the warnings (one value until the next change; 4 MB at
        10k objects)."""
        if self._content is None:
            self._content = _joined([lst.blobs for lst in self._lists()])
        return self._content

    def digest(self) -> str:
        """The digest of SPEC §5, hashed from :meth:`content`."""
        if self._digest is None:
            self._digest = joined_digest(*self.content())
        return self._digest
