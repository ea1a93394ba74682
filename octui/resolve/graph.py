"""Declared supersession as a graph (SPEC §2 step 5): references resolved to objects, the
graph's strongly connected components (edges on a cycle are ignored), and for each object
the replacements in effect at an instant."""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from octui.core.enums import WarningCode as W
from octui.core.model import REF_RE, ContextObject, Finding
from octui.resolve.index import RepoIndex
from octui.resolve.result import Edge


def resolve_ref(
    ref: str, declaring: ContextObject, by_id: dict[str, list[ContextObject]]
) -> list[ContextObject]:
    """``id@version`` names one object; a bare id every version except the declarer."""
    match = REF_RE.fullmatch(ref)
    if match is None:  # pragma: no cover - refused at load time
        return []
    target_id, version = match.group(1), match.group(2)
    candidates = by_id.get(target_id, [])
    if version is not None:
        return [o for o in candidates if o.version == int(version)]
    return [o for o in candidates if o is not declaring]


def strongly_connected(graph: list[list[int]]) -> list[int]:
    """The component of every node (Tarjan, iterative): two nodes share a number exactly
    when each reaches the other."""
    n = len(graph)
    index = [-1] * n
    low = [0] * n
    component = [-1] * n
    on_stack = [False] * n
    stack: list[int] = []
    counter = 0
    components = 0
    for start in range(n):
        if index[start] >= 0:
            continue
        if not graph[start]:  # no edges (most objects): its own component, as the walk would
            index[start] = counter
            counter += 1
            component[start] = components
            components += 1
            continue
        work: list[tuple[int, int]] = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            children = graph[node]
            if i < len(children):
                work.append((node, i + 1))
                child = children[i]
                if index[child] < 0:
                    work.append((child, 0))
                elif on_stack[child]:
                    low[node] = min(low[node], index[child])
                continue
            if low[node] == index[node]:
                while True:
                    top = stack.pop()
                    on_stack[top] = False
                    component[top] = components
                    if top == node:
                        break
                components += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return component


def split_ref(ref: str) -> tuple[str, int | None]:
    """``id@version`` as (id, version); a bare id as (id, None)."""
    match = REF_RE.fullmatch(ref)
    if match is None:  # pragma: no cover - refused at load time
        return ref, None
    version = match.group(2)
    return match.group(1), None if version is None else int(version)


class _Cover:
    """Replacements that reach every object of one target set (all versions of an id, or
    one id@version), grouped by strongly connected component: those not on a cycle with
    one object are the groups outside its component."""

    __slots__ = ("groups",)

    def __init__(self, replacements: Iterable[ContextObject], component: list[int]) -> None:
        groups: dict[int, list[ContextObject]] = defaultdict(list)
        for r in replacements:
            groups[component[r.uid]].append(r)
        self.groups = groups

    def outside(self, skip: int) -> list[ContextObject]:
        """Every replacement outside component ``skip``."""
        return [r for comp, members in self.groups.items() if comp != skip for r in members]

    def members(self) -> list[ContextObject]:
        """Every replacement."""
        return [r for members in self.groups.values() for r in members]


class Timeline(NamedTuple):
    """When the replacements of one object take effect: their starts, ascending, and the
    keys of those in effect once the first ``k`` have started (``keys[k]``, sorted, each
    once), so the keys at an instant are ``keys[bisect_right(starts, as_of)]``."""

    starts: list[datetime]
    keys: list[tuple[str, ...]]


CoverTables = tuple[
    dict[str, _Cover],
    dict[tuple[str, int], _Cover],
    dict[str, _Cover],
    dict[tuple[str, int], _Cover],
]
"""A graph's four cover tables: ``by_target``, ``by_version``, ``members``, ``copies`` (see
:class:`SupersessionGraph`)."""


def covers_of(obj: ContextObject, tables: CoverTables) -> list[_Cover]:
    """The covers of ``tables`` that hold a replacement of ``obj``."""
    by_target, by_version, members, copies = tables
    found = [by_target.get(obj.id), by_version.get((obj.id, obj.version))]
    for ref in obj.superseded_by:
        target, version = split_ref(ref)
        found.append(members.get(target) if version is None else copies.get((target, version)))
    return [c for c in found if c is not None]


def timeline_of(covers: list[_Cover], skip: int) -> Timeline:
    """The :class:`Timeline` of the replacements in ``covers`` outside component ``skip``
    (the replaced object's)."""
    starts = sorted({(r.effective_start, r.key) for c in covers for r in c.outside(skip)})
    # the keys in effect after each start: one pass, a new tuple only when a key is new
    seen: set[str] = set()
    keys: list[tuple[str, ...]] = [()]
    for _, key in starts:
        if key not in seen:
            seen.add(key)
            keys.append(tuple(sorted(seen)))
        else:
            keys.append(keys[-1])
    return Timeline([start for start, _ in starts], keys)


class Timelines:
    """Each asked object's :class:`Timeline` over one graph's cover ``tables`` and
    ``component`` numbers, made on first use and kept by uid (``made``): a new instant
    bisects it instead of walking the covers. Threads racing for one object store equal
    timelines."""

    __slots__ = ("component", "made", "tables")

    def __init__(
        self,
        tables: CoverTables,
        component: list[int],
        made: dict[int, Timeline] | None = None,
    ) -> None:
        self.tables = tables
        self.component = component
        self.made: dict[int, Timeline] = {} if made is None else made

    def of(self, obj: ContextObject) -> Timeline:
        """The timeline of ``obj`` (one the graph's component numbers name)."""
        timeline = self.made.get(obj.uid)
        if timeline is None:
            covers = covers_of(obj, self.tables)
            timeline = self.made[obj.uid] = timeline_of(covers, self.component[obj.uid])
        return timeline


@dataclass
class SupersessionGraph:
    """Declared supersession among the objects one role may read.

    Built in time linear in the objects and the declared references: a bare reference
    ``id`` reaches every version of ``id`` through one hub node (not one edge per version),
    an ``id@version`` through one node per version. Strongly connected components of that
    graph are exactly those of the expanded edges (a path through a hub from an object back
    to itself is only ever a detour), so an edge lies on a cycle exactly when its two ends
    share a component with two or more objects, or it is an object's edge to itself.
    Every edge counts for cycles — a draft's too; only approved replacements take effect.
    """

    index: RepoIndex
    readable: list[ContextObject]
    component: list[int]
    """Component number by uid (objects the role may not read: -1)."""
    cyclic: set[int]
    """Components that hold a cycle."""
    cycle_findings: list[Finding]
    by_target: dict[str, _Cover]
    """Approved replacements declaring a bare ``supersedes: [id]``, by that id."""
    by_version: dict[tuple[str, int], _Cover]
    """Approved replacements declaring ``supersedes: [id@version]``, by (id, version)."""
    members: dict[str, _Cover]
    """Approved members of ids named by some ``superseded_by``."""
    copies: dict[tuple[str, int], _Cover]
    """Approved copies of id@versions named by some ``superseded_by``."""
    shared: Timelines | None = None
    """The whole repository's timelines, when the graph is derived from its graph (see
    :func:`~octui.resolve.graph_whole.restricted_graph`): every object not in ``remade``
    reads the very covers the whole repository's own does, with the same result, so its
    timeline is read there, made once for every role."""
    remade: AbstractSet[int] = frozenset()
    """Objects whose timeline the graph makes itself (``shared`` only): those one of whose
    covers is not the whole repository's, and, in a graph carried across a reload, the
    objects the reload replaced."""
    _edges: list[Edge] | None = None
    _cycle_edges: set[tuple[int, int]] | None = None
    _timelines: dict[int, Timeline] = field(default_factory=dict)
    """The timelines made over this graph's own covers, by uid (see :meth:`replaced_by`):
    the very dict ``_own`` fills, passed in so a reload's carry can hand the kept ones on."""
    _own: Timelines = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tables = (self.by_target, self.by_version, self.members, self.copies)
        self._own = Timelines(tables, self.component, self._timelines)

    def on_cycle(self, replacement: ContextObject, replaced: ContextObject) -> bool:
        """Whether the edge ``replacement`` → ``replaced`` lies on a cycle (and is ignored)."""
        c = self.component[replacement.uid]
        return c in self.cyclic and c == self.component[replaced.uid]

    def timeline(self, obj: ContextObject) -> Timeline:
        """The :class:`Timeline` of ``obj``: the whole repository's (``shared``) unless the
        object is ``remade``, else the graph's own."""
        shared = self.shared
        if shared is not None and obj.uid not in self.remade:
            return shared.of(obj)
        return self._own.of(obj)

    def replaced_by(self, obj: ContextObject, as_of: datetime) -> tuple[str, ...]:
        """The keys of the replacements whose edge to ``obj`` is in effect at ``as_of``
        (sorted, each once), bisected from the object's :meth:`timeline`."""
        timeline = self.timeline(obj)
        return timeline.keys[bisect_right(timeline.starts, as_of)]

    @property
    def edges(self) -> list[Edge]:
        """Every edge, expanded (one per pair), in declaration order: computed on first use."""
        if self._edges is None:
            self._edges = readable_edges(self.index, self.readable)
        return self._edges

    @property
    def cycle_edges(self) -> set[tuple[int, int]]:
        """The expanded edges that lie on a cycle, as (replacement uid, replaced uid)."""
        if self._cycle_edges is None:
            self._cycle_edges = {
                (e.replacement.uid, e.replaced.uid)
                for e in self.edges
                if self.on_cycle(e.replacement, e.replaced)
            }
        return self._cycle_edges


class _Declared(NamedTuple):
    """The supersession declarations among the readable objects, by what they name."""

    bare: dict[str, list[ContextObject]]
    """Declarers of ``supersedes: [id]``, by the id."""
    versioned: dict[tuple[str, int], list[ContextObject]]
    """Declarers of ``supersedes: [id@version]``, by the id@version."""
    named_ids: set[str]
    """Ids named by some bare ``superseded_by``."""
    named_versions: set[tuple[str, int]]
    """id@versions named by some ``superseded_by``."""
    self_loops: set[int]
    """Objects that name their own id@version (a cycle of one)."""


def _hub_maker(
    index: RepoIndex, readable_uids: set[int], graph: list[list[int]]
) -> Callable[[str, str, int | None], int | None]:
    """``hub(kind, target, version)``: the node fanning out to (``out``) or in from (``in``)
    the readable objects of a target (every version of the id, or the copies of one
    id@version), added to ``graph`` on first use; None when none is readable."""
    by_id, by_version = index.by_id, index.by_version
    hubs: dict[tuple[str, object], int] = {}

    def hub(kind: str, target: str, version: int | None) -> int | None:
        key = (kind, target if version is None else (target, version))
        node = hubs.get(key)
        if node is None:
            group = (
                by_id.get(target, []) if version is None else by_version.get((target, version), [])
            )
            ends = [o.uid for o in group if o.uid in readable_uids]
            if not ends:
                return None
            node = hubs[key] = len(graph)
            graph.append(ends if kind == "out" else [])
            if kind == "in":
                for u in ends:
                    graph[u].append(node)
        return node

    return hub


def _wire(
    index: RepoIndex,
    readable: list[ContextObject],
    readable_uids: set[int],
    graph: list[list[int]],
) -> _Declared:
    """Add every readable declaration to ``graph`` (through hubs) and record what it names."""
    hub = _hub_maker(index, readable_uids, graph)
    declared = _Declared(defaultdict(list), defaultdict(list), set(), set(), set())
    for obj in readable:
        for ref in obj.supersedes:
            target, version = split_ref(ref)
            node = hub("out", target, version)
            if node is None:
                continue
            graph[obj.uid].append(node)
            if version is None:
                declared.bare[target].append(obj)
            else:
                declared.versioned[(target, version)].append(obj)
                if (obj.id, obj.version) == (target, version):
                    declared.self_loops.add(obj.uid)
        for ref in obj.superseded_by:
            target, version = split_ref(ref)
            node = hub("in", target, version)
            if node is None:
                continue
            graph[node].append(obj.uid)
            if version is None:
                declared.named_ids.add(target)
            else:
                declared.named_versions.add((target, version))
                if (obj.id, obj.version) == (target, version):
                    declared.self_loops.add(obj.uid)
    return declared


def _components(
    graph: list[list[int]], n: int, readable_uids: set[int], self_loops: set[int]
) -> tuple[list[int], set[int]]:
    """The component of each of the ``n`` objects (-1 when unreadable) and the components
    that are cycles (more than one readable member, or a self-loop)."""
    component = strongly_connected(graph)[:n]
    sizes: dict[int, int] = defaultdict(int)
    for uid in readable_uids:
        sizes[component[uid]] += 1
    cyclic = {c for c, size in sizes.items() if size > 1}
    cyclic.update(component[u] for u in self_loops)
    for uid in range(n):
        if uid not in readable_uids:
            component[uid] = -1
    return component, cyclic


def _cycle_findings(
    readable: list[ContextObject], component: list[int], cyclic: set[int]
) -> list[Finding]:
    """One supersession-cycle warning per cyclic component."""
    members_of: dict[int, list[ContextObject]] = defaultdict(list)
    for obj in readable:
        if component[obj.uid] in cyclic:
            members_of[component[obj.uid]].append(obj)
    findings = []
    for members in members_of.values():
        ordered = sorted(members, key=lambda o: (o.key, o.path))
        findings.append(
            Finding(
                W.SUPERSESSION_CYCLE,
                tuple(sorted({o.id for o in ordered})),
                "supersession edges form a cycle: "
                + " → ".join(o.key for o in ordered)
                + "; edges inside the cycle are ignored",
                "Remove one of the declarations so the chain has a newest end.",
                tuple(sorted({o.path for o in ordered})),
            )
        )
    return findings


def build_graph(
    index: RepoIndex, readable: list[ContextObject], approved: set[int]
) -> SupersessionGraph:
    """The supersession graph among ``readable`` (see :class:`SupersessionGraph`)."""
    n = len(index.objects)
    readable_uids = {o.uid for o in readable}
    by_id, by_version = index.by_id, index.by_version
    graph: list[list[int]] = [[] for _ in range(n)]
    declared = _wire(index, readable, readable_uids, graph)
    component, cyclic = _components(graph, n, readable_uids, declared.self_loops)
    findings = _cycle_findings(readable, component, cyclic)

    def cover(objs: Iterable[ContextObject]) -> _Cover:
        return _Cover((o for o in objs if o.uid in approved), component)

    return SupersessionGraph(
        index,
        readable,
        component,
        cyclic,
        findings,
        {target: cover(objs) for target, objs in declared.bare.items()},
        {key: cover(objs) for key, objs in declared.versioned.items()},
        {
            target: cover(o for o in by_id.get(target, []) if o.uid in readable_uids)
            for target in declared.named_ids
        },
        {
            key: cover(o for o in by_version.get(key, []) if o.uid in readable_uids)
            for key in declared.named_versions
        },
    )


def readable_edges(index: RepoIndex, readable: list[ContextObject]) -> list[Edge]:
    """Supersession edges between objects the role may read, from both directions
    (``supersedes`` on the replacement, ``superseded_by`` on the replaced), each pair once,
    in declaration order. The declaring object is one of the two ends, so only what the role
    may read (a subsequence of the repository's objects) is asked."""
    candidates = []
    for obj in readable:
        for ref in obj.supersedes:
            for target in resolve_ref(ref, obj, index.by_id):
                candidates.append(Edge(obj, target, obj, "supersedes"))
        for ref in obj.superseded_by:
            for target in resolve_ref(ref, obj, index.by_id):
                candidates.append(Edge(target, obj, obj, "superseded_by"))
    readable_uids = {o.uid for o in readable}
    seen: set[tuple[int, int]] = set()
    edges: list[Edge] = []
    for edge in candidates:
        # the declaring object is one of the two ends, so it is readable too
        pair = (edge.replacement.uid, edge.replaced.uid)
        if pair[0] in readable_uids and pair[1] in readable_uids and pair not in seen:
            seen.add(pair)
            edges.append(edge)
    return edges
