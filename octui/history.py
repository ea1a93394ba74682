"""The lineage of an id: every version and every object joined to it by supersession."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from octui.loader import Repository
from octui.model import ContextObject, Exclusion
from octui.pipeline import Included, Query, Resolution, repo_by_id, resolve
from octui.timeutil import BEGINNING_OF_TIME, format_instant


class UnknownId(LookupError):
    pass


@dataclass(frozen=True)
class HistoryRow:
    """One object of a lineage. For an object denied to the role only ``id`` and ``state``."""

    id: str
    state: str
    obj: ContextObject | None = None
    edges: tuple[str, ...] = ()

    @property
    def start(self) -> datetime | None:
        if self.obj is None or self.obj.effective_start == BEGINNING_OF_TIME:
            return None
        return self.obj.effective_start

    def to_json(self) -> dict[str, Any]:
        if self.obj is None:
            return {"id": self.id, "state": self.state}
        o = self.obj
        return {
            "id": o.id,
            "version": o.version,
            "authority": o.authority,
            "status": str(o.status),
            "effective_from": format_instant(self.start) if self.start else None,
            "valid_until": format_instant(o.valid_until) if o.valid_until else None,
            "state": self.state,
            "edges": list(self.edges),
            "path": o.path,
        }


def state_of(fate: Included | Exclusion | None) -> str:
    """Lifecycle for an included object, else the exclusion reason."""
    if isinstance(fate, Included):
        return fate.lifecycle.value
    if isinstance(fate, Exclusion):
        return fate.reason.value
    return "unknown"


def _denied(fate: Included | Exclusion | None) -> bool:
    return isinstance(fate, Exclusion) and fate.reason.is_denial


def _graph(resolution: Resolution) -> tuple[dict[int, set[int]], dict[int, ContextObject]]:
    """Supersession neighbours by uid, and the objects on an edge; computed once per
    resolution (the explorer asks for a lineage on every cursor move)."""
    cached = resolution.__dict__.get("_lineage_graph")
    if cached is None:
        neighbours: dict[int, set[int]] = defaultdict(set)
        objs: dict[int, ContextObject] = {}
        for e in resolution.edges:
            a, b = e.replacement.uid, e.replaced.uid
            neighbours[a].add(b)
            neighbours[b].add(a)
            objs[a], objs[b] = e.replacement, e.replaced
        cached = resolution.__dict__["_lineage_graph"] = (neighbours, objs)
    return cached


def lineage(resolution: Resolution, object_id: str) -> list[HistoryRow]:
    """Oldest first; objects denied to the role last, as id and reason only."""
    fates = resolution.fates
    same_id = repo_by_id(resolution.repository).get(object_id, [])
    # a denied id is one row, however many objects hold it (as in the bundle)
    denied_rows = [
        HistoryRow(o.id, state_of(fates.get(o.uid))) for o in same_id if _denied(fates.get(o.uid))
    ][:1]
    neighbours, joined = _graph(resolution)
    objs = dict(joined)
    readable = [o for o in same_id if not _denied(fates.get(o.uid))]
    if not readable and not denied_rows:
        raise UnknownId(f"no object with id {object_id!r} in the repository")
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
    edges_of: dict[int, list[str]] = defaultdict(list)
    for e in resolution.edges:  # described only where they touch the lineage
        a, b = e.replacement.uid, e.replaced.uid
        if a in seen:  # an edge joins two members or neither
            note = " (in a cycle; ignored)" if (a, b) in resolution.cycle_edges else ""
            edges_of[a].append(f"supersedes {e.replaced.key}{note}")
            edges_of[b].append(f"superseded by {e.replacement.key}{note}")
    members = sorted(
        (objs[u] for u in seen), key=lambda o: (o.effective_start, o.id, o.version, o.path)
    )
    rows = [
        HistoryRow(o.id, state_of(fates.get(o.uid)), o, tuple(sorted(edges_of[o.uid])))
        for o in members
    ]
    return rows + denied_rows


def history(
    repo: Repository, object_id: str, role: str | None, as_of: datetime
) -> list[HistoryRow]:
    """Resolve with history included (so retired versions show their lifecycle)."""
    resolution = resolve(repo, Query(role=role, as_of=as_of, include_historical=True))
    return lineage(resolution, object_id)
