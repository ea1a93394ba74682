"""The lineage of an id: every version and every object joined to it by supersession."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from octui.core.enums import ExclusionReason, Lifecycle
from octui.core.model import ContextObject, Exclusion
from octui.core.suggest import did_you_mean
from octui.core.timeutil import BEGINNING_OF_TIME, format_day, format_instant
from octui.load.assemble import Repository
from octui.resolve.engine import resolve
from octui.resolve.result import Edge, Included, Query, Resolution

#: Why an edge whose replacement is a draft never takes effect (the explorer says the same).
NEVER_IN_EFFECT = "never in effect (the replacement is a draft)"
IN_A_CYCLE = "in a cycle; ignored"


class UnknownId(LookupError):
    pass


def edge_effective(resolution: Resolution, edge: Edge) -> datetime | None:
    """The instant ``edge`` takes effect — its replacement's effective start (SPEC §2 step 5)
    — or None when it never does: the replacement is a draft, or the edge is in a cycle."""
    if (edge.replacement.uid, edge.replaced.uid) in resolution.cycle_edges:
        return None
    fate = resolution.fate(edge.replacement.uid)
    if isinstance(fate, Exclusion) and fate.reason is ExclusionReason.UNAPPROVED:
        return None
    return edge.replacement.effective_start


def edge_note(effective: datetime | None, in_cycle: bool) -> str:
    """When an edge takes effect, as the history and the timeline say it: ``in effect from
    2026-06-01``, ``in effect always``, or why it never is."""
    if in_cycle:
        return IN_A_CYCLE
    if effective is None:
        return NEVER_IN_EFFECT
    if effective == BEGINNING_OF_TIME:
        return "in effect always"
    return f"in effect from {format_day(effective)}"


@dataclass(frozen=True)
class EdgeFact:
    """One supersession edge as seen from a row: ``text`` is the row's ``edges`` entry."""

    text: str
    replacement: str
    replaced: str
    effective: datetime | None
    """When the edge takes effect; None when it never does (see :func:`edge_effective`)."""
    in_cycle: bool

    @property
    def note(self) -> str:
        """``in effect from 2026-06-01``, ``in effect always``, or why it never is."""
        return edge_note(self.effective, self.in_cycle)

    def to_json(self) -> dict[str, Any]:
        when = self.effective
        return {
            "edge": self.text,
            "takes_effect": when is not None,
            "effective_from": (
                format_instant(when) if when is not None and when != BEGINNING_OF_TIME else None
            ),
            "in_cycle": self.in_cycle,
        }


@dataclass(frozen=True)
class HistoryRow:
    """One object of a lineage. For an object denied to the role only ``id`` and ``state``."""

    id: str
    state: Lifecycle | ExclusionReason
    """The lifecycle of an included object at ``as_of``, else why it is excluded."""
    obj: ContextObject | None = None
    edges: tuple[str, ...] = ()
    edge_facts: tuple[EdgeFact, ...] = ()
    """The edges with when each takes effect, in the order of ``edges``."""

    @property
    def start(self) -> datetime | None:
        if self.obj is None or self.obj.effective_start == BEGINNING_OF_TIME:
            return None
        return self.obj.effective_start

    @property
    def superseded_from(self) -> datetime | None:
        """The earliest instant an edge replacing this object takes effect (None: never)."""
        cuts = [
            f.effective
            for f in self.edge_facts
            if self.obj is not None and f.replaced == self.obj.key and f.effective is not None
        ]
        return min(cuts, default=None)

    @property
    def in_effect_until(self) -> datetime | None:
        """The end of the window in which this object could be in effect: its
        ``valid_until`` or the instant it is superseded, whichever comes first."""
        ends = [t for t in (self.obj.valid_until if self.obj else None, self.superseded_from) if t]
        return min(ends, default=None)

    def to_json(self) -> dict[str, Any]:
        if self.obj is None:
            return {"id": self.id, "state": self.state.value}
        o = self.obj
        return {
            "id": o.id,
            "version": o.version,
            "authority": o.authority,
            "status": str(o.status),
            "effective_from": format_instant(self.start) if self.start else None,
            "valid_until": format_instant(o.valid_until) if o.valid_until else None,
            "state": self.state.value,
            "edges": list(self.edges),
            "path": o.path,
            "edge_effects": [f.to_json() for f in self.edge_facts],
            "superseded_from": (
                format_instant(self.superseded_from) if self.superseded_from else None
            ),
        }


def state_of(fate: Included | Exclusion | None) -> Lifecycle | ExclusionReason:
    """Lifecycle for an included object, else the exclusion reason."""
    if isinstance(fate, Included):
        return fate.lifecycle
    if fate is None:  # pragma: no cover - every object of a resolution has a fate
        raise ValueError("an object of the repository has no fate in the resolution")
    return fate.reason


def _denied(fate: Included | Exclusion | None) -> bool:
    return isinstance(fate, Exclusion) and fate.reason.is_denial


@dataclass(frozen=True)
class LineageIndex:
    """A resolution's supersession indexed by object, for :func:`lineage`: each uid's
    neighbours, the objects on an edge, and where (in ``Resolution.edges``) the edges
    touching each uid are. It is a pure function of the resolution's graph, so one index
    serves every resolution of that graph (the explorer keeps one per graph: a cursor
    move then walks one lineage, not every edge the role may read)."""

    neighbours: dict[int, set[int]]
    objs: dict[int, ContextObject]
    touching: dict[int, list[int]]
    """Positions in ``Resolution.edges`` of the edges with the uid at either end."""

    def edges_among(self, uids: set[int]) -> list[int]:
        """Positions of the edges touching ``uids``, in ``Resolution.edges`` order."""
        return sorted({i for uid in uids for i in self.touching.get(uid, ())})


def lineage_index(resolution: Resolution) -> LineageIndex:
    """Index ``resolution``'s supersession edges (linear in the edges the role may read)."""
    neighbours: dict[int, set[int]] = defaultdict(set)
    objs: dict[int, ContextObject] = {}
    touching: dict[int, list[int]] = defaultdict(list)
    for i, e in enumerate(resolution.edges):
        a, b = e.replacement.uid, e.replaced.uid
        neighbours[a].add(b)
        neighbours[b].add(a)
        objs[a], objs[b] = e.replacement, e.replaced
        touching[a].append(i)
        if b != a:
            touching[b].append(i)
    return LineageIndex(dict(neighbours), objs, dict(touching))


def lineage(
    resolution: Resolution, object_id: str, index: LineageIndex | None = None
) -> list[HistoryRow]:
    """Oldest first; objects denied to the role last, as id and reason only. ``index``:
    :func:`lineage_index` of ``resolution`` (of its graph), when the caller keeps one."""
    fate = resolution.fate
    same_id = resolution.by_id.get(object_id, [])
    # a denied id is one row, however many objects hold it (as in the bundle)
    denied_rows = [
        HistoryRow(o.id, state_of(fate(o.uid))) for o in same_id if _denied(fate(o.uid))
    ][:1]
    if index is None:
        index = lineage_index(resolution)
    neighbours = index.neighbours
    objs = dict(index.objs)
    readable = [o for o in same_id if not _denied(fate(o.uid))]
    if not readable and not denied_rows:
        hint = did_you_mean(object_id, resolution.by_id)
        raise UnknownId(f"no object with id {object_id!r} in the repository{hint}")
    seen = {o.uid for o in readable}
    frontier = list(seen)
    for o in readable:
        objs[o.uid] = o
    while frontier:
        uid = frontier.pop()
        for n in neighbours.get(uid, ()):
            if n not in seen:
                seen.add(n)
                frontier.append(n)
    edges_of: dict[int, list[EdgeFact]] = defaultdict(list)
    edges = resolution.edges
    for e in map(edges.__getitem__, index.edges_among(seen)):  # those touching the lineage
        a, b = e.replacement.uid, e.replaced.uid
        if a in seen:  # an edge joins two members or neither
            in_cycle = (a, b) in resolution.cycle_edges
            note = f" ({IN_A_CYCLE})" if in_cycle else ""
            when = edge_effective(resolution, e)
            rk, dk = e.replacement.key, e.replaced.key
            edges_of[a].append(EdgeFact(f"supersedes {dk}{note}", rk, dk, when, in_cycle))
            edges_of[b].append(EdgeFact(f"superseded by {rk}{note}", rk, dk, when, in_cycle))
    members = sorted(
        (objs[u] for u in seen), key=lambda o: (o.effective_start, o.id, o.version, o.path)
    )
    rows = []
    for o in members:
        facts = tuple(sorted(edges_of[o.uid], key=lambda f: f.text))
        texts = tuple(f.text for f in facts)
        rows.append(HistoryRow(o.id, state_of(fate(o.uid)), o, texts, facts))
    return rows + denied_rows


def history(
    repo: Repository, object_id: str, role: str | None, as_of: datetime
) -> list[HistoryRow]:
    """Resolve with history included (so retired versions show their lifecycle)."""
    resolution = resolve(repo, Query(role=role, as_of=as_of, include_historical=True))
    return lineage(resolution, object_id)
