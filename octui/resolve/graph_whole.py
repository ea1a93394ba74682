"""The supersession graph of one role derived from the whole repository's, made once.

A role's :class:`~octui.resolve.graph.SupersessionGraph` is the graph of the whole
repository with the objects the role may not read removed (hubs fan out to, or in from, the
readable objects only — exactly the edges among what is left). Removing nodes only ever
splits strongly connected components, never joins them, so:

- an object outside every cycle of the whole repository is outside every cycle of any role:
  it keeps its own component;
- a cyclic component of the whole repository that the role reads entirely stays one cyclic
  component, with the same members and the same finding;
- only a cyclic component the role reads in part is split again, among its own nodes (a
  path that leaves a component never comes back to it).

And a replacement cover (the approved replacements reaching one target, grouped by
component) is the whole repository's when the role reads every approved replacement in it
and none of them lies in a component split again. :func:`restricted_graph` therefore
touches only the cyclic components and the declarations, never every object; it gives the
graph :func:`~octui.resolve.graph.build_graph` gives (the property tests compare them).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Collection, Hashable
from itertools import chain, compress, repeat
from typing import NamedTuple, cast

from octui.core.enums import Status
from octui.core.model import ContextObject, Finding
from octui.resolve.graph import (
    CoverTables,
    SupersessionGraph,
    Timelines,
    _Cover,
    _cycle_findings,
    _Declared,
    _wire,
    split_ref,
    strongly_connected,
)
from octui.resolve.index import RepoIndex


class WholeGraph:
    """Declared supersession among every object of the repository, and what a role's graph
    reuses of it: components, cyclic components (with their nodes, edges and findings),
    declarations and replacement covers."""

    def __init__(self, index: RepoIndex) -> None:
        objects = index.objects
        n = len(objects)
        self.index = index
        graph: list[list[int]] = [[] for _ in range(n)]
        self.declared: _Declared = _wire(index, objects, set(range(n)), graph)
        node_component = strongly_connected(graph)
        self.component: list[int] = node_component[:n]
        """Component number by uid in the whole repository."""
        self.fresh = max(node_component, default=-1) + 1
        """A number above every component's: where a role's renumbered components start."""
        members: dict[int, list[int]] = defaultdict(list)
        for uid, c in enumerate(self.component):
            members[c].append(uid)
        loops = self.declared.self_loops
        self.cycles: dict[int, list[int]] = {
            c: uids for c, uids in members.items() if len(uids) > 1 or uids[0] in loops
        }
        """The members (uids, ascending) of each cyclic component, by component."""
        self.edges = _cycle_edges(graph, node_component, self.cycles)
        """Per cyclic component, its nodes (hubs too) and the edges among them."""
        self.findings = {
            c: _cycle_findings([objects[u] for u in uids], self.component, {c})[0]
            for c, uids in self.cycles.items()
        }
        """The cycle finding of each cyclic component, read whole."""
        approved = {o.uid for o in objects if o.status != Status.DRAFT}
        self.tables = _whole_tables(index, self.component, approved)
        """By target, what each of the graph's four cover tables is made of."""
        self.covers = [{key: entry.cover for key, entry in t.items()} for t in self.tables]
        """The four cover tables of the whole repository."""
        bare, versioned = self.covers[0], self.covers[1]
        self.replaceable = bytes(
            o.id in bare or (o.id, o.version) in versioned or bool(o.superseded_by) for o in objects
        )
        """Per uid, 1 when some replacement could reach the object in some role (a role's
        cover tables only ever drop targets of the whole repository's)."""
        self.timelines = Timelines(cast(CoverTables, tuple(self.covers)), self.component)
        """Each asked object's timeline over the whole repository's covers: a role's graph
        reads it for every object whose covers the role keeps whole."""
        self.touching: dict[int, list[tuple[int, Hashable]]] = defaultdict(list)
        """Per uid, the (table, target) entries it declares, is named by or replaces in:
        the only entries a role that may not read it (or renumbers it) makes again."""
        for kind, table in enumerate(self.tables):
            for key, entry in table.items():
                for uid in {*entry.declarers, *entry.ends, *entry.replacements}:
                    self.touching[uid].append((kind, key))

    def prepare(self) -> None:
        """Make now the timeline of every object some replacement could reach, which roles'
        first visits would otherwise make one object at a time (about 5 µs each)."""
        deque(map(self.timelines.of, compress(self.index.objects, self.replaceable)), maxlen=0)


class _Entry(NamedTuple):
    """One target of a cover table: who declares it, which objects it names (a role keeps
    the target when it reads one of each), the approved replacements and their cover."""

    declarers: list[int]
    ends: list[int]
    replacements: list[int]
    cover: _Cover


def _cycle_edges(
    graph: list[list[int]], node_component: list[int], cycles: dict[int, list[int]]
) -> dict[int, tuple[list[int], list[tuple[int, int]]]]:
    """For each cyclic component: its nodes and the edges whose two ends lie in it."""
    nodes: dict[int, list[int]] = defaultdict(list)
    edges: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for node, c in enumerate(node_component):
        if c in cycles:
            nodes[c].append(node)
            edges[c].extend((node, t) for t in graph[node] if node_component[t] == c)
    return {c: (nodes[c], edges[c]) for c in cycles}


def _whole_tables(
    index: RepoIndex, component: list[int], approved: set[int]
) -> tuple[dict[Hashable, _Entry], ...]:
    """The four cover tables of :class:`SupersessionGraph` (``by_target``, ``by_version``,
    ``members``, ``copies``) for the whole repository, each target with its makings."""
    by_id, by_version = index.by_id, index.by_version
    tables: tuple[dict[Hashable, list[int]], ...] = tuple(defaultdict(list) for _ in range(4))
    for obj in index.objects:
        for refs, bare, versioned in ((obj.supersedes, 0, 1), (obj.superseded_by, 2, 3)):
            for ref in refs:
                target, version = split_ref(ref)
                key: Hashable = target if version is None else (target, version)
                tables[bare if version is None else versioned][key].append(obj.uid)
    objects = index.objects
    out: tuple[dict[Hashable, _Entry], ...] = ({}, {}, {}, {})
    for kind, declared in enumerate(tables):
        for key, declarers in declared.items():
            if isinstance(key, str):
                ends = by_id.get(key, [])
            else:
                ends = by_version.get(cast(tuple[str, int], key), [])
            if not ends:
                continue
            named = declarers if kind < 2 else [o.uid for o in ends]
            replacements = [u for u in dict.fromkeys(named) if u in approved]
            cover = _Cover((objects[u] for u in replacements), component)
            out[kind][key] = _Entry(declarers, [o.uid for o in ends], replacements, cover)
    return out


def restricted_graph(
    whole: WholeGraph, readable: list[ContextObject], unreadable: Collection[int]
) -> SupersessionGraph:
    """The supersession graph among ``readable`` (``unreadable``: the uids of every other
    object), derived from ``whole`` (see the module): equal to
    :func:`~octui.resolve.graph.build_graph` over ``readable``."""
    component = list(whole.component)
    deque(map(component.__setitem__, unreadable, repeat(-1)), maxlen=0)
    read = bytearray(b"\x01") * len(component)
    deque(map(read.__setitem__, unreadable, repeat(0)), maxlen=0)
    cyclic: set[int] = set()
    found: list[tuple[int, Finding]] = []
    renumbered: set[int] = set()
    fresh = whole.fresh
    for c, uids in whole.cycles.items():
        seen = [u for u in uids if component[u] >= 0]
        if len(seen) == len(uids):
            cyclic.add(c)
            found.append((uids[0], whole.findings[c]))
        elif seen:
            renumbered.update(seen)
            found += _split(whole, c, seen, component, cyclic, fresh)
            fresh += len(whole.edges[c][0])
    found.sort(key=lambda pair: pair[0])
    tables, remade = _role_tables(whole, component, read, renumbered, unreadable)
    return SupersessionGraph(
        whole.index,
        readable,
        component,
        cyclic,
        [finding for _, finding in found],
        *cast(CoverTables, tuple(tables)),
        shared=whole.timelines,
        remade=remade,
    )


def _split(
    whole: WholeGraph,
    c: int,
    seen: list[int],
    component: list[int],
    cyclic: set[int],
    fresh: int,
) -> list[tuple[int, Finding]]:
    """Split cyclic component ``c``, read only in part (``seen``: its readable members),
    into the components of what is left, numbered from ``fresh`` on (at most one number per
    node of ``c``); return their cycle findings, each with its first member."""
    n = len(component)
    nodes, edges = whole.edges[c]
    present = [v for v in nodes if v >= n or component[v] >= 0]
    local = {v: i for i, v in enumerate(present)}
    graph: list[list[int]] = [[] for _ in present]
    for a, b in edges:
        if a in local and b in local:
            graph[local[a]].append(local[b])
    numbers = strongly_connected(graph)
    members: dict[int, list[int]] = defaultdict(list)
    for uid in seen:
        members[numbers[local[uid]]].append(uid)
    objects = whole.index.objects
    out = []
    for number, uids in members.items():
        for uid in uids:
            component[uid] = fresh + number
        if len(uids) > 1 or uids[0] in whole.declared.self_loops:
            cyclic.add(fresh + number)
            made = _cycle_findings([objects[u] for u in uids], component, {fresh + number})
            out.append((uids[0], made[0]))
    return out


def _role_tables(
    whole: WholeGraph,
    component: list[int],
    read: bytearray,
    renumbered: set[int],
    unreadable: Collection[int],
) -> tuple[list[dict[Hashable, _Cover]], set[int]]:
    """The four cover tables for the role whose components are ``component`` (-1:
    unreadable; ``read``: 1 per uid it may read, else 0): the whole repository's, with the
    entries touching an unreadable or renumbered object made again (:func:`_role_cover`) or
    dropped; and the objects that read such an entry (an id's or id@version's own cover,
    or one its ``superseded_by`` names), whose timelines the role makes itself.

    Every other object reads only covers of the whole repository, and its component number
    is the whole repository's or, when renumbered, one no whole cover groups by; no
    replacement it reads shares its old component either (it would have been renumbered
    too, and its covers made again), so its timeline is the whole repository's."""
    tables = [dict(t) for t in whole.covers]
    touching = whole.touching
    touched: set[tuple[int, Hashable]] = set(
        chain.from_iterable(filter(None, map(touching.get, chain(unreadable, renumbered))))
    )
    remade: set[int] = set()
    for kind, key in touched:
        entry = whole.tables[kind][key]
        cover = _role_cover(whole, entry, component, read, renumbered)
        if cover is entry.cover:
            continue
        remade.update(entry.ends if kind < 2 else entry.declarers)  # who reads this entry
        if cover is None:
            del tables[kind][key]
        else:
            tables[kind][key] = cover
    return tables, remade


def _role_cover(
    whole: WholeGraph,
    entry: _Entry,
    component: list[int],
    read: bytearray,
    renumbered: set[int],
) -> _Cover | None:
    """A target's cover for the role: None (no entry) unless the role reads one of its
    declarers and one of the objects it names; the whole repository's when the role reads
    every approved replacement in it and none of them was renumbered, else made again from
    what the role reads (``read``: 1 per uid it may read, looked up in C loops)."""
    if not any(map(read.__getitem__, entry.declarers)):
        return None
    if not any(map(read.__getitem__, entry.ends)):
        return None
    replacements = entry.replacements
    kept = list(compress(replacements, map(read.__getitem__, replacements)))
    if len(kept) == len(replacements) and renumbered.isdisjoint(kept):
        return entry.cover
    objects = whole.index.objects
    return _Cover((objects[u] for u in kept), component)
