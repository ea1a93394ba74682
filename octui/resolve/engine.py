"""Resolution (SPEC §2): eight steps, in order; an object leaves at the first step that
excludes it, with that step's reason.

Each ``step_*`` function takes the objects still standing and returns those that
remain, recording exclusions and findings on the :class:`Run`. Read them top to
bottom: that is the specification's order.

``query.role = None`` is the repository-wide judgement of ``opencontext
validate``: no authorization and no scope, every finding with its file.
"""

from __future__ import annotations

import threading
import weakref
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property, lru_cache
from typing import Any

from octui.core.enums import (
    Authority,
    ExclusionReason,
    Lifecycle,
    Status,
    TieBreaker,
    WarningCode,
)
from octui.core.model import REF_RE, ContextObject, Exclusion, Finding
from octui.core.timeutil import add_days, format_day
from octui.core.tokens import tokenize
from octui.load.assemble import Repository, object_findings
from octui.load.config import Config, RoleConfig
from octui.load.heap import gc_paused
from octui.resolve.ranking import Score, score

R = ExclusionReason
W = WarningCode


class UnknownRole(ValueError):
    """The role is not declared in the configuration."""

    def __init__(self, role: str, declared: Iterable[str]) -> None:
        names = sorted(declared)
        listing = ", ".join(names) if names else "none are declared"
        super().__init__(f"unknown role {role!r}; declared roles: {listing}")
        self.role = role
        self.declared = names


@dataclass(frozen=True)
class Query:
    """The inputs of one resolution."""

    role: str | None
    as_of: datetime
    task: str = ""
    include_historical: bool = False
    limit: int | None = None
    min_relevance: float | None = None
    strict: bool = False


@dataclass(frozen=True, slots=True)
class Included:
    """An object in the bundle, with its state at ``as_of`` and why it ranks where it does."""

    obj: ContextObject
    lifecycle: Lifecycle
    stale: bool
    score: int
    matched: dict[str, list[str]]


@dataclass(frozen=True, slots=True)
class Edge:
    """``replacement`` supersedes ``replaced``, as declared on ``declared_on``."""

    replacement: ContextObject
    replaced: ContextObject
    declared_on: ContextObject
    field: str


@dataclass
class Resolution:
    """The outcome of one resolution: what is in, what is out and why, what is wrong."""

    query: Query
    repository: Repository
    included: list[Included]
    exclusions: list[Exclusion]
    warnings: list[Finding]
    fates: dict[int, Included | Exclusion]
    """Every object's place, by ``ContextObject.uid``."""
    graph: SupersessionGraph
    """Declared supersession among the objects the role may read."""

    @cached_property
    def edges(self) -> list[Edge]:
        """Supersession edges among the objects the role may read (cycles included), expanded
        one per pair: computed when first asked for."""
        return list(self.graph.edges)

    @cached_property
    def cycle_edges(self) -> set[tuple[int, int]]:
        """The edges of :attr:`edges` that lie on a cycle (ignored), as uid pairs."""
        return set(self.graph.cycle_edges)

    @property
    def failed(self) -> bool:
        """True when a warning of severity ``error`` is present (a strict run fails)."""
        return any(w.severity == "error" for w in self.warnings)

    @property
    def error_count(self) -> int:
        """How many warnings have severity ``error`` (the one count every layout prints)."""
        return sum(1 for w in self.warnings if w.severity == "error")

    @property
    def strict_failed(self) -> bool:
        return self.query.strict and self.failed


@dataclass
class Run:
    """Mutable state threaded through the steps of one resolution."""

    repo: Repository
    query: Query
    role: RoleConfig | None
    exclusions: dict[int, Exclusion] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    readable: list[ContextObject] = field(default_factory=list)
    approved: set[int] = field(default_factory=set)
    historical: dict[int, Lifecycle] = field(default_factory=dict)
    graph: SupersessionGraph | None = None

    @property
    def config(self) -> Config:
        return self.repo.config

    @property
    def whole_repository(self) -> bool:
        return self.query.role is None

    def exclude(
        self,
        obj: ContextObject,
        reason: ExclusionReason,
        detail: str | None = None,
        related: Iterable[str] = (),
    ) -> None:
        if reason.is_denial:
            self.exclusions[obj.uid] = Exclusion(obj.id, None, reason)
        else:
            self.exclusions[obj.uid] = Exclusion(
                obj.id, obj.version, reason, tuple(sorted(set(related))), detail, obj.path
            )

    def rank(self, obj: ContextObject) -> int:
        return self.config.authority_rank(obj.authority)


# -- memoised facts about one loaded repository -------------------------------------------------
#
# A Repository is never changed once loaded (a reload makes a new one), so facts derived
# from it — and from it plus one role, or one role and one instant — can be kept on it and
# reused by the next resolution. Keys hold every input a fact depends on; results are the
# same with and without the memo (tests/load/test_parse_cache.py compares whole bundles).

_MEMO_STAGES = 6
_MEMO_ROLES = 4
"""Roles whose facts (steps 1-2, scope verdicts, supersession graph) are kept: the least
recently resolved role beyond these is forgotten, so a session's memory stays bounded."""
_format_day = lru_cache(maxsize=4096)(format_day)  # strftime is slow; instants repeat


@dataclass
class _Memo:
    objects: list[ContextObject]
    by_id: dict[str, list[ContextObject]]
    shared_ids: frozenset[str]
    """Ids held by two or more objects: the only ones that can compete or repeat."""
    roles: dict[str | None, _RoleFacts] = field(default_factory=dict)
    candidate_edges: list[Edge] | None = None
    """Every declared supersession edge in the repository, in declaration order."""
    order: tuple[list[int], list[int]] | None = None
    own_findings: dict[int, list[Finding]] | None = None
    first_steps: dict[
        str | None, tuple[dict[int, Exclusion], list[ContextObject], set[int], list[ContextObject]]
    ] = field(default_factory=dict)
    """Per role: exclusions, readable, approved and standing objects after steps 1-2."""
    scope_verdicts: dict[str, dict[int, Exclusion | None]] = field(default_factory=dict)
    copies: list[tuple[tuple[str, int], list[ContextObject]]] | None = None
    broken: dict[int, list[tuple[str, Finding]]] = field(default_factory=dict)
    by_version: dict[tuple[str, int], list[ContextObject]] | None = None
    """Objects by (id, version)."""
    stages: dict[tuple[str | None, datetime, bool], _Stage] = field(default_factory=dict)
    recent_roles: dict[str | None, None] = field(default_factory=dict)
    """Roles by last use, most recent last (see :data:`_MEMO_ROLES`)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def use_role(self, role: str | None) -> None:
        """Mark ``role`` most recently used; forget the facts of roles beyond the bound.
        (Called with :attr:`lock` held.)"""
        self.recent_roles.pop(role, None)
        self.recent_roles[role] = None
        while len(self.recent_roles) > _MEMO_ROLES:
            del self.recent_roles[next(iter(self.recent_roles))]
        # also what a resolution still running for a forgotten role stored meanwhile
        tables: list[dict[Any, Any]] = [self.first_steps, self.roles, self.scope_verdicts]
        for table in tables:
            for key in list(table):  # a copy: another thread may be adding
                if key not in self.recent_roles:
                    table.pop(key, None)


@dataclass
class _RoleFacts:
    """What depends on the role alone: supersession among what it may read, cycles."""

    graph: SupersessionGraph
    reference_findings: list[Finding] | None = None
    load_findings: list[Finding] | None = None


@dataclass(frozen=True)
class _RunState:
    """A run's state after step 7, without the run's reference to the repository (the memo
    lives on the repository; a reference back would make a cycle that only the garbage
    collector could free)."""

    exclusions: dict[int, Exclusion]
    findings: list[Finding]
    readable: list[ContextObject]
    approved: set[int]
    historical: dict[int, Lifecycle]
    graph: SupersessionGraph | None


@dataclass
class _Stage:
    """A run after step 7 for one (role, as_of, include_historical): everything but ranking."""

    base: _RunState
    current: list[ContextObject]
    historical: list[ContextObject]
    stale: dict[int, bool] = field(default_factory=dict)
    """``is_stale`` at this stage's instant, by uid, as computed."""
    untrimmed: tuple[list[Exclusion], list[Finding]] | None = None
    """Sorted exclusions and warnings when nothing is trimmed (they do not depend on the task)."""


def _memo(repo: Repository) -> _Memo:
    memo: _Memo | None = repo.__dict__.get("_pipeline_memo")
    if memo is None or memo.objects is not repo.objects:
        by_id = repo.by_id()
        shared = frozenset(i for i, group in by_id.items() if len(group) > 1)
        memo = _Memo(repo.objects, by_id, shared)
        repo.__dict__["_pipeline_memo"] = memo
    return memo


def repo_by_id(repo: Repository) -> dict[str, list[ContextObject]]:
    """``repo.by_id()``, computed once per loaded repository."""
    return _memo(repo).by_id


# -- step 1 -----------------------------------------------------------------------------------


def read_denial(
    config: Config, role_name: str, clearance: int, obj: ContextObject
) -> ExclusionReason | None:
    """Why ``role_name`` (of clearance rank ``clearance``) may not read ``obj``, if it may not:
    the access list first, then the classification."""
    if obj.access_roles is not None and role_name not in obj.access_roles:
        return R.PERMISSION_DENIED
    if config.level_rank(obj.classification) > clearance:
        return R.CLASSIFICATION_DENIED
    return None


def step_authorization(run: Run, objects: list[ContextObject]) -> list[ContextObject]:
    """Remove what the role may not read, before anything else sees it."""
    if run.role is None or run.query.role is None:
        run.readable = list(objects)
        return list(objects)
    role_name = run.query.role
    clearance = run.config.clearance_rank(run.role)
    standing = []
    denied: dict[str, list[ContextObject]] = defaultdict(list)
    reasons: dict[str, ExclusionReason] = {}
    for obj in objects:
        denial = read_denial(run.config, role_name, clearance, obj)
        if denial is not None:
            denied[obj.id].append(obj)
            if reasons.get(obj.id) is not R.PERMISSION_DENIED:
                reasons[obj.id] = denial
        else:
            standing.append(obj)
    for object_id, copies in denied.items():
        # one entry per denied id, shared by all its copies: how many there are stays hidden
        entry = Exclusion(object_id, None, reasons[object_id])
        for obj in copies:
            run.exclusions[obj.uid] = entry
    run.readable = standing
    return standing


# -- step 2 -----------------------------------------------------------------------------------


def step_approval(run: Run, objects: list[ContextObject]) -> list[ContextObject]:
    """A draft is never included and never supersedes."""
    standing = []
    for obj in objects:
        if obj.status == Status.DRAFT:
            run.exclude(obj, R.UNAPPROVED, "status: draft")
        else:
            standing.append(obj)
    run.approved = {o.uid for o in standing}
    return standing


# -- step 3 -----------------------------------------------------------------------------------


def step_temporal(run: Run, objects: list[ContextObject]) -> list[ContextObject]:
    """Validity at ``as_of``: not yet started, or at/after ``valid_until`` (exclusive)."""
    as_of = run.query.as_of
    standing = []
    for obj in objects:
        if as_of < obj.effective_start:
            start = "valid from" if obj.valid_from is not None else "created"
            run.exclude(obj, R.NOT_YET_VALID, f"{start} {_format_day(obj.effective_start)}")
        elif obj.valid_until is not None and as_of >= obj.valid_until:
            if run.query.include_historical:
                run.historical[obj.uid] = Lifecycle.EXPIRED
                standing.append(obj)
            else:
                run.exclude(obj, R.EXPIRED, f"valid until {_format_day(obj.valid_until)}")
        else:
            standing.append(obj)
    return standing


# -- step 4 -----------------------------------------------------------------------------------


def step_scope(run: Run, objects: list[ContextObject]) -> list[ContextObject]:
    """The role's explicit scope: exclude patterns first, then include patterns."""
    if run.role is None:
        return objects
    assert run.query.role is not None
    verdicts = _memo(run.repo).scope_verdicts.setdefault(run.query.role, {})
    standing = []
    for obj in objects:
        uid = obj.uid
        if uid in verdicts:  # decided before for this role (an exclusion is immutable)
            verdict = verdicts[uid]
            if verdict is None:
                standing.append(obj)
            else:
                run.exclusions[uid] = verdict
            continue
        pattern = run.role.excluded_by(obj.id)
        if pattern is not None:
            run.exclude(obj, R.SCOPE_EXCLUSION, f'excluded by "{pattern}"')
        elif not run.role.includes(obj.id):
            run.exclude(obj, R.NOT_IN_SCOPE, "no include pattern matches")
        else:
            standing.append(obj)
            verdicts[uid] = None
            continue
        verdicts[uid] = run.exclusions[uid]
    return standing


# -- step 5 -----------------------------------------------------------------------------------


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


def _split_ref(ref: str) -> tuple[str, int | None]:
    match = REF_RE.fullmatch(ref)
    if match is None:  # pragma: no cover - refused at load time
        return ref, None
    version = match.group(2)
    return match.group(1), None if version is None else int(version)


class _Cover:
    """Replacements that reach every object of one target set (all versions of an id, or
    one id@version), grouped by strongly connected component, each group and the groups
    in order of effective start — so the replacements in effect for one object, minus those
    on a cycle with it, are found in time proportional to how many there are."""

    __slots__ = ("groups",)

    def __init__(self, replacements: Iterable[ContextObject], component: list[int]) -> None:
        by_component: dict[int, list[ContextObject]] = defaultdict(list)
        for r in replacements:
            by_component[component[r.uid]].append(r)
        groups = [
            (c, sorted(members, key=lambda o: o.effective_start))
            for c, members in by_component.items()
        ]
        groups.sort(key=lambda g: g[1][0].effective_start)
        self.groups = groups

    def in_effect(self, as_of: datetime, skip: int, out: set[ContextObject]) -> None:
        """Add the replacements started by ``as_of`` outside component ``skip``."""
        for comp, members in self.groups:
            if members[0].effective_start > as_of:
                break
            if comp == skip:
                continue
            for r in members:
                if r.effective_start > as_of:
                    break
                out.add(r)


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

    memo_ref: weakref.ref[_Memo]
    """The repository's memo, weakly: the memo keeps this graph, and a cycle between them
    would outlive a reload (the loaded heap is held out of the collector's passes)."""
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
    _edges: list[Edge] | None = None
    _cycle_edges: set[tuple[int, int]] | None = None

    def on_cycle(self, replacement: ContextObject, replaced: ContextObject) -> bool:
        """Whether the edge ``replacement`` → ``replaced`` lies on a cycle (and is ignored)."""
        c = self.component[replacement.uid]
        return c in self.cyclic and c == self.component[replaced.uid]

    def replacements(self, obj: ContextObject, as_of: datetime) -> set[ContextObject]:
        """The replacements whose edge to ``obj`` is in effect at ``as_of``."""
        out: set[ContextObject] = set()
        skip = self.component[obj.uid]
        for cover in (self.by_target.get(obj.id), self.by_version.get((obj.id, obj.version))):
            if cover is not None:
                cover.in_effect(as_of, skip, out)
        for ref in obj.superseded_by:
            target, version = _split_ref(ref)
            cover = (
                self.members.get(target) if version is None else self.copies.get((target, version))
            )
            if cover is not None:
                cover.in_effect(as_of, skip, out)
        return out

    @property
    def edges(self) -> list[Edge]:
        """Every edge, expanded (one per pair), in declaration order: computed on first use."""
        if self._edges is None:
            memo = self.memo_ref()
            if memo is None:  # pragma: no cover - a resolution keeps its repository's memo
                raise ValueError("the repository's memo is gone")
            self._edges = _readable_edges(memo, self.readable)
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


def _copies(memo: _Memo) -> dict[tuple[str, int], list[ContextObject]]:
    if memo.by_version is None:
        groups: dict[tuple[str, int], list[ContextObject]] = defaultdict(list)
        for obj in memo.objects:
            groups[(obj.id, obj.version)].append(obj)
        memo.by_version = dict(groups)
    return memo.by_version


def build_graph(
    memo: _Memo, readable: list[ContextObject], approved: set[int]
) -> SupersessionGraph:
    """The supersession graph among ``readable`` (see :class:`SupersessionGraph`)."""
    n = len(memo.objects)
    readable_uids = {o.uid for o in readable}
    by_id, by_version = memo.by_id, _copies(memo)
    graph: list[list[int]] = [[] for _ in range(n)]
    hubs: dict[tuple[str, object], int] = {}
    self_loops: set[int] = set()

    def hub(kind: str, target: str, version: int | None) -> int | None:
        """The node fanning out to (``out``) or in from (``in``) the readable objects of a
        target: every version of the id, or the copies of one id@version."""
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

    bare: dict[str, list[ContextObject]] = defaultdict(list)
    versioned: dict[tuple[str, int], list[ContextObject]] = defaultdict(list)
    named_ids: set[str] = set()
    named_versions: set[tuple[str, int]] = set()
    for obj in readable:
        for ref in obj.supersedes:
            target, version = _split_ref(ref)
            node = hub("out", target, version)
            if node is None:
                continue
            graph[obj.uid].append(node)
            if version is None:
                bare[target].append(obj)
            else:
                versioned[(target, version)].append(obj)
                if (obj.id, obj.version) == (target, version):
                    self_loops.add(obj.uid)
        for ref in obj.superseded_by:
            target, version = _split_ref(ref)
            node = hub("in", target, version)
            if node is None:
                continue
            graph[node].append(obj.uid)
            if version is None:
                named_ids.add(target)
            else:
                named_versions.add((target, version))
                if (obj.id, obj.version) == (target, version):
                    self_loops.add(obj.uid)
    component = strongly_connected(graph)[:n]
    sizes: dict[int, int] = defaultdict(int)
    for uid in readable_uids:
        sizes[component[uid]] += 1
    cyclic = {c for c, size in sizes.items() if size > 1}
    cyclic.update(component[u] for u in self_loops)
    for uid in range(n):
        if uid not in readable_uids:
            component[uid] = -1
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

    def cover(objs: Iterable[ContextObject]) -> _Cover:
        return _Cover((o for o in objs if o.uid in approved), component)

    return SupersessionGraph(
        weakref.ref(memo),
        readable,
        component,
        cyclic,
        findings,
        {target: cover(objs) for target, objs in bare.items()},
        {key: cover(objs) for key, objs in versioned.items()},
        {
            target: cover(o for o in by_id.get(target, []) if o.uid in readable_uids)
            for target in named_ids
        },
        {
            key: cover(o for o in by_version.get(key, []) if o.uid in readable_uids)
            for key in named_versions
        },
    )


def _readable_edges(memo: _Memo, readable: list[ContextObject]) -> list[Edge]:
    """Supersession edges between objects the role may read, from both directions
    (``supersedes`` on the replacement, ``superseded_by`` on the replaced), each pair once.
    The repository's declared edges are resolved once and kept in the memo."""
    if memo.candidate_edges is None:
        candidates = []
        for obj in memo.objects:
            for ref in obj.supersedes:
                for target in resolve_ref(ref, obj, memo.by_id):
                    candidates.append(Edge(obj, target, obj, "supersedes"))
            for ref in obj.superseded_by:
                for target in resolve_ref(ref, obj, memo.by_id):
                    candidates.append(Edge(target, obj, obj, "superseded_by"))
        memo.candidate_edges = candidates
    readable_uids = {o.uid for o in readable}
    seen: set[tuple[int, int]] = set()
    edges: list[Edge] = []
    for edge in memo.candidate_edges:
        # the declaring object is one of the two ends, so it is readable too
        pair = (edge.replacement.uid, edge.replaced.uid)
        if pair[0] in readable_uids and pair[1] in readable_uids and pair not in seen:
            seen.add(pair)
            edges.append(edge)
    return edges


def _role_facts(run: Run) -> _RoleFacts:
    """The supersession graph among what the role may read (depends on the role only)."""
    memo = _memo(run.repo)
    key = run.query.role
    facts = memo.roles.get(key)
    if facts is None:
        facts = memo.roles[key] = _RoleFacts(build_graph(memo, run.readable, run.approved))
    return facts


def step_supersession(run: Run, objects: list[ContextObject]) -> list[ContextObject]:
    """Declared supersession only; an edge takes effect at the replacement's effective start,
    if the replacement passed steps 1–2 and the edge is on no cycle, and stays in effect after
    the replacement expires."""
    graph = _role_facts(run).graph
    run.graph = graph
    run.findings.extend(graph.cycle_findings)
    as_of = run.query.as_of
    standing = []
    for obj in objects:
        replacements = graph.replacements(obj, as_of)
        if not replacements:
            standing.append(obj)
            continue
        keys = sorted({r.key for r in replacements})
        if run.query.include_historical:
            run.historical.setdefault(obj.uid, Lifecycle.SUPERSEDED)
            standing.append(obj)
        else:
            run.exclude(obj, R.SUPERSEDED, "by " + ", ".join(keys), keys)
    return standing


# -- findings about what stands after step 5 -----------------------------------------------------


def version_findings(run: Run, objects: list[ContextObject]) -> None:
    """``duplicate-canonical`` and ``multiple-active-versions`` over current objects."""
    shared = _memo(run.repo).shared_ids  # an id only one object holds never repeats
    groups: dict[str, list[ContextObject]] = defaultdict(list)
    for obj in objects:
        if obj.id in shared:
            groups[obj.id].append(obj)
    for object_id, group in groups.items():
        if len(group) < 2:
            continue
        paths = tuple(sorted(o.path for o in group))
        canonical = [o for o in group if o.authority == Authority.CANONICAL]
        if len(canonical) >= 2:
            message, hint = _duplicate_canonical_text(object_id, canonical)
            run.findings.append(Finding(W.DUPLICATE_CANONICAL, (object_id,), message, hint, paths))
        versions = sorted({o.version for o in group})
        if len(versions) >= 2:
            older = ", ".join(f"{object_id}@{v}" for v in versions[:-1])
            run.findings.append(
                Finding(
                    W.MULTIPLE_ACTIVE_VERSIONS,
                    (object_id,),
                    f'{len(versions)} active versions of "{object_id}" (versions '
                    + ", ".join(map(str, versions))
                    + ")",
                    f"Add supersedes: [{older}] to the newer object.",
                    paths,
                )
            )


def _duplicate_canonical_text(object_id: str, canonical: list[ContextObject]) -> tuple[str, str]:
    """Which canonical copy is newer (by version only: nothing else is guessed) and what to
    add where to retire the older ones."""
    ordered = sorted(canonical, key=lambda o: (o.version, o.path))
    newest = ordered[-1]
    older = [o for o in ordered if o.version < newest.version]
    head = f'{len(canonical)} active canonical objects share the id "{object_id}": '
    if len(older) == len(ordered) - 1:
        names = ", ".join(f"{o.key} ({o.path})" for o in older)
        verb = "is" if len(older) == 1 else "are"
        refs = ", ".join(o.key for o in older)
        return (
            head + f"{names} {verb} older than {newest.key} ({newest.path})",
            f"Supersede the older one: add supersedes: [{refs}] to {newest.key} "
            f"({newest.path}), or lower the older one's authority to reference.",
        )
    # the highest version is held by more than one file: no copy is older than another
    copies = [o.path for o in ordered if o.version == newest.version]
    return (
        head
        + f"{newest.key} is held by {len(copies)} files ({', '.join(copies)})"
        + "".join(f", {o.key} ({o.path})" for o in older),
        f"Give one copy of {newest.key} a higher version and add supersedes: "
        f"[{', '.join(dict.fromkeys(o.key for o in ordered))}] to it, or lower the others' "
        "authority to reference.",
    )


# -- step 6 -----------------------------------------------------------------------------------

_KEY_NAMES = {
    TieBreaker.VERSION: "version",
    TieBreaker.UPDATED: "updated",
    TieBreaker.CREATED: "created",
    TieBreaker.CONFIDENCE: "confidence",
    TieBreaker.ID: "id",
}


def competition_key(run: Run, obj: ContextObject) -> tuple[Any, ...]:
    """Sort key among objects sharing an id: smallest wins. Total: the path is last."""
    key: list[Any] = [run.rank(obj)]
    for breaker in run.config.authority.tie_breakers:
        if breaker is TieBreaker.VERSION:
            key.append(-obj.version)
        elif breaker is TieBreaker.UPDATED:
            key.append((0, -obj.updated.timestamp()) if obj.updated else (1, 0.0))
        elif breaker is TieBreaker.CREATED:
            key.append((0, -obj.created.timestamp()) if obj.created else (1, 0.0))
        elif breaker is TieBreaker.CONFIDENCE:
            key.append((0, -obj.confidence) if obj.confidence is not None else (1, 0.0))
        else:
            key.append(obj.id)
    key.append(obj.path)
    return tuple(key)


def _key_labels(run: Run) -> list[str]:
    return ["authority", *(_KEY_NAMES[b] for b in run.config.authority.tie_breakers), "path"]


def _describe_value(obj: ContextObject, name: str) -> str:
    value: Any = obj.path if name == "path" else getattr(obj, name, None)
    if name == "authority":
        return obj.authority or "none"
    if isinstance(value, datetime):
        return format_day(value)
    return "none" if value is None else str(value)


def step_competition(run: Run, objects: list[ContextObject]) -> list[ContextObject]:
    """Objects sharing an id compete: authority, then the tie breakers, then the path."""
    shared = _memo(run.repo).shared_ids  # an id only one object holds has no competitor
    groups: dict[str, list[ContextObject]] = defaultdict(list)
    winners: set[int] = set()
    for obj in objects:
        if obj.id in shared:
            groups[obj.id].append(obj)
        else:
            winners.add(obj.uid)
    labels = _key_labels(run)
    for group in groups.values():
        ranked = sorted(group, key=lambda o: competition_key(run, o))
        winner = ranked[0]
        winners.add(winner.uid)
        win_key = competition_key(run, winner)
        for loser in ranked[1:]:
            lose_key = competition_key(run, loser)
            deciding = next(
                i for i, (a, b) in enumerate(zip(win_key, lose_key, strict=True)) if a != b
            )
            name = labels[deciding]
            winner_name = (
                winner.key if winner.key != loser.key else f"{winner.key} in {winner.path}"
            )
            run.exclude(
                loser,
                R.OUTRANKED,
                f"by {winner_name}: {name} {_describe_value(winner, name)} over "
                f"{_describe_value(loser, name)}",
                [winner.key],
            )
    return [o for o in objects if o.uid in winners]


# -- step 7 -----------------------------------------------------------------------------------


def step_conflicts(run: Run, objects: list[ContextObject]) -> list[ContextObject]:
    """Declared conflicts among standing objects, judged all at once by unordered pair."""
    by_id = {o.id: o for o in objects}
    pairs: set[tuple[str, str]] = set()
    for obj in objects:
        for other_id in obj.conflicts_with:
            if other_id != obj.id and other_id in by_id:
                first, second = sorted((obj.id, other_id))
                pairs.add((first, second))
    losers: dict[int, list[ContextObject]] = defaultdict(list)
    for a_id, b_id in sorted(pairs):
        a, b = by_id[a_id], by_id[b_id]
        ra, rb = run.rank(a), run.rank(b)
        paths = tuple(sorted({a.path, b.path}))
        if ra == rb:
            level = a.authority or "unknown authority"
            run.findings.append(
                Finding(
                    W.CONFLICT_AMBIGUOUS,
                    (a_id, b_id),
                    f"{a.key} and {b.key} declare a conflict and share one authority ({level}); "
                    "neither is guessed away",
                    "Supersede one, lower the authority of one, or reconcile their content.",
                    paths,
                )
            )
            continue
        winner, loser = (a, b) if ra < rb else (b, a)
        losers[loser.uid].append(winner)
        run.findings.append(
            Finding(
                W.CONFLICT_DECLARED,
                (a_id, b_id),
                f"{winner.key} ({winner.authority}) and {loser.key} "
                f"({loser.authority or 'unknown authority'}) conflict; "
                f"{winner.id} wins on authority",
                f"{loser.key} is left out wherever {winner.key} stands: reconcile it with "
                f"{winner.id}, retire it, or remove the conflicts_with declaration if they no "
                "longer conflict.",
                paths,
            )
        )
    standing = []
    for obj in objects:
        winners = losers.get(obj.uid)
        if winners:
            names = sorted(w.key for w in winners)
            run.exclude(
                obj,
                R.CONFLICT,
                "outranked by "
                + ", ".join(
                    f"{w.key} ({w.authority} over {obj.authority or 'none'})"
                    for w in sorted(winners, key=lambda w: w.key)
                )
                + " in a declared conflict",
                names,
            )
        else:
            standing.append(obj)
    return standing


# -- step 8 -----------------------------------------------------------------------------------


def _fixed_order(run: Run) -> tuple[list[int], list[int]]:
    """Per uid: layer group (L0, L1, other) and place in the repository's fixed order of
    the rest of the bundle order (authority rank, id, -version, path; total: paths are unique).
    SPEC §3: L0, then L1, then score descending, authority rank, id, version descending."""
    memo = _memo(run.repo)
    if memo.order is None:
        objects = memo.objects
        groups = [0 if o.layer == "L0" else 1 if o.layer == "L1" else 2 for o in objects]
        places = [0] * len(objects)
        ranked = sorted(objects, key=lambda o: (run.rank(o), o.id, -o.version, o.path))
        for place, obj in enumerate(ranked):
            places[obj.uid] = place
        if any(o.uid != i for i, o in enumerate(objects)):  # pragma: no cover - uids are places
            raise ValueError("objects are not numbered by their place")
        memo.order = (groups, places)
    return memo.order


def step_relevance(run: Run, objects: list[ContextObject]) -> list[tuple[ContextObject, Score]]:
    """Rank (order only) and, when asked, trim to ``limit`` / ``min_relevance``."""
    task_tokens = tokenize(run.query.task)
    floor = run.config.ranking.floor
    tables = run.repo.tokens
    scored = [(o, score(o, task_tokens, floor, tables)) for o in objects]
    current = [p for p in scored if p[0].uid not in run.historical]
    past = [p for p in scored if p[0].uid in run.historical]
    # the bundle order as one integer: (layer group, -score) first, then the object's place
    # in the repository's fixed order of (authority rank, id, -version, path)
    groups, places = _fixed_order(run)
    width = len(places) + 1

    def order(p: tuple[ContextObject, Score]) -> int:
        uid = p[0].uid
        return ((groups[uid] << 40) - p[1].score) * width + places[uid]

    current.sort(key=order)
    past.sort(key=order)
    ordered = current + past
    limit, minimum = run.query.limit, run.query.min_relevance
    if limit is None and minimum is None:
        return ordered
    kept: list[tuple[ContextObject, Score]] = []
    trimmable_kept = 0
    for position, (obj, s) in enumerate(ordered, start=1):
        if obj.is_floor_layer:
            kept.append((obj, s))
        elif minimum is not None and s.score < minimum:
            run.exclude(
                obj, R.NOT_RELEVANT, f"score {s.score} is below --min-relevance {minimum:g}"
            )
        elif limit is not None and trimmable_kept >= limit:
            run.exclude(
                obj,
                R.NOT_RELEVANT,
                f"ranked {position}; --limit {limit} keeps the {limit} best-ranked",
            )
        else:
            trimmable_kept += 1
            kept.append((obj, s))
    return kept


# -- lifecycle, staleness and the findings that depend on who reads ----------------------------


def freshness_window(config: Config, obj: ContextObject) -> int | None:
    if obj.review_every is not None:
        return obj.review_every
    return config.freshness_days(obj.type)


def is_stale(config: Config, obj: ContextObject, as_of: datetime) -> bool:
    """True when ``as_of`` is past (``updated``, else ``created``) + the freshness window."""
    window = freshness_window(config, obj)
    base = obj.updated or obj.created
    if window is None or base is None:
        return False
    return as_of > add_days(base, window)


def reference_findings(run: Run) -> None:
    """``broken-reference``: a link that names nothing in the whole repository. For a role,
    a link to an id it may not read (some copy of it is denied) is never broken, whatever
    version it names: which versions a denied id holds is none of the role's business."""
    memo = _memo(run.repo)
    denied = {e.id for e in run.exclusions.values() if e.reason.is_denial}
    for obj in run.readable:
        found = memo.broken.get(obj.uid)
        if found is None:
            found = memo.broken[obj.uid] = _broken_references(obj, memo.by_id)
        run.findings.extend(f for target, f in found if target not in denied)


def _broken_references(
    obj: ContextObject, by_id: dict[str, list[ContextObject]]
) -> list[tuple[str, Finding]]:
    """``broken-reference`` findings of one object (a fact of the whole repository), each with
    the id its reference names."""
    out: list[tuple[str, Finding]] = []
    for field_name, refs in (
        ("supersedes", obj.supersedes),
        ("superseded_by", obj.superseded_by),
        ("conflicts_with", obj.conflicts_with),
    ):
        for ref in refs:
            if _names_something(ref, obj, by_id):
                continue
            message = f'{obj.key} {field_name} "{ref}", which names nothing in the repository'
            hint = "Fix or remove the reference: a broken chain silently resurrects retired policy."
            finding = Finding(
                W.BROKEN_REFERENCE, (obj.id,), message, hint, (obj.path,), key=field_name
            )
            out.append((_split_ref(ref)[0], finding))
    return out


def _names_something(
    ref: str, declaring: ContextObject, by_id: dict[str, list[ContextObject]]
) -> bool:
    """Whether :func:`resolve_ref` would name an object (without listing them all)."""
    target, version = _split_ref(ref)
    candidates = by_id.get(target, ())
    if version is not None:
        return any(o.version == version for o in candidates)
    return any(o is not declaring for o in candidates)


def load_findings(run: Run) -> None:
    """Findings from loading, limited to what the role may read."""
    repo = run.repo
    memo = _memo(repo)
    readable = {o.uid for o in run.readable}
    if memo.own_findings is None:  # findings about each object alone: computed once
        memo.own_findings = {o.uid: f for o in memo.objects if (f := object_findings(o))}
    own = memo.own_findings
    for obj in run.readable:
        run.findings.extend(own.get(obj.uid, ()))
    if memo.copies is None:  # (id, version) held by two or more files, in first-seen order
        groups: dict[tuple[str, int], list[ContextObject]] = defaultdict(list)
        for obj in memo.objects:
            groups[(obj.id, obj.version)].append(obj)
        memo.copies = [(key, group) for key, group in groups.items() if len(group) > 1]
    for (object_id, version), group in memo.copies:
        seen = [o for o in group if o.uid in readable]  # judged among the copies it may read
        if len(seen) > 1:
            run.findings.append(
                Finding(
                    W.DUPLICATE_VERSION,
                    (object_id,),
                    f"{len(seen)} files hold {object_id}@{version}",
                    "Give each file its own version, or delete the copy.",
                    tuple(sorted(o.path for o in seen)),
                )
            )
    for name, problem in repo.unavailable_sources:
        run.findings.append(
            Finding(
                W.SOURCE_UNAVAILABLE,
                (name,),
                f"source {name!r} is unavailable: {problem}",
                "Fix the path in opencontext.yaml or restore the folder.",
            )
        )
    if run.whole_repository:
        run.findings.extend(repo.findings)
    elif repo.invalid_files:
        n = repo.invalid_files
        run.findings.append(
            Finding(
                W.INVALID_OBJECT,
                (),
                f"{n} file{'s' if n != 1 else ''} failed to load",
                "Run opencontext validate to see which files and why.",
            )
        )


# -- the whole run -------------------------------------------------------------------------------


def resolve(repo: Repository, query: Query) -> Resolution:
    """Resolve ``repo`` for ``query``. Pure: the same inputs give the same resolution.

    Steps 1–7 depend on the role, ``as_of`` and ``include_historical`` only, so their outcome
    is kept on the repository (a few at a time) and a new task re-runs only step 8.
    """
    with gc_paused():
        return _resolve(repo, query)


def _resolve(repo: Repository, query: Query) -> Resolution:
    role: RoleConfig | None = None
    if query.role is not None:
        role = repo.config.roles.get(query.role)
        if role is None:
            raise UnknownRole(query.role, repo.config.roles)
    stage = _stage(repo, query, role)
    base = stage.base
    run = Run(
        repo,
        query,
        role,
        exclusions=dict(base.exclusions),
        findings=list(base.findings),
        readable=base.readable,
        approved=base.approved,
        historical=dict(base.historical),
        graph=base.graph,
    )
    kept = step_relevance(run, stage.current + stage.historical)
    trimmed = len(run.exclusions) != len(base.exclusions)

    included = []
    for obj, s in kept:
        lifecycle = run.historical.get(obj.uid, Lifecycle.ACTIVE)
        stale = stage.stale.get(obj.uid)
        if stale is None:
            stale = stage.stale[obj.uid] = is_stale(run.config, obj, query.as_of)
        included.append(Included(obj, lifecycle, stale, s.score, s.matched))
        if stale and (trimmed or stage.untrimmed is None):
            window = freshness_window(run.config, obj)
            run.findings.append(
                Finding(
                    W.STALE,
                    (obj.id,),
                    f"has not been updated inside its freshness window ({window}d)",
                    "Review it and update `updated`, or set review_every.",
                    (obj.path,),
                )
            )
    fates: dict[int, Included | Exclusion] = dict(run.exclusions)
    for inc in included:
        fates[inc.obj.uid] = inc
    if not trimmed and stage.untrimmed is not None:
        exclusions, warnings = list(stage.untrimmed[0]), list(stage.untrimmed[1])
    else:
        facts = _role_findings(run)
        run.findings.extend(facts.reference_findings or ())
        run.findings.extend(facts.load_findings or ())
        exclusions = list(dict.fromkeys(run.exclusions.values()))  # a denied id once
        for name, problem in repo.unavailable_sources:
            exclusions.append(Exclusion(name, None, R.SOURCE_UNAVAILABLE, (), problem))
        exclusions.sort(key=Exclusion.sort_key)
        warnings = sorted(set(run.findings), key=Finding.sort_key)
        if not trimmed:  # the same for every task at this stage
            stage.untrimmed = (list(exclusions), list(warnings))
    return Resolution(query, repo, included, exclusions, warnings, fates, _graph_of(run))


def _graph_of(run: Run) -> SupersessionGraph:
    if run.graph is None:  # pragma: no cover - step 5 always sets it
        raise ValueError("supersession graph missing")
    return run.graph


def _stage(repo: Repository, query: Query, role: RoleConfig | None) -> _Stage:
    """Steps 1–7 for the query's role, instant and ``include_historical`` (memoised)."""
    memo = _memo(repo)
    key = (query.role, query.as_of, query.include_historical)
    with memo.lock:
        stage = memo.stages.pop(key, None)
        if stage is not None:
            memo.stages[key] = stage  # most recently used last
            return stage
    run = Run(repo, replace(query, task="", limit=None, min_relevance=None), role)
    with memo.lock:
        memo.use_role(query.role)
    first = memo.first_steps.get(query.role)
    if first is None:  # steps 1-2 depend on the role alone
        probe = Run(repo, run.query, role)
        standing = step_approval(probe, step_authorization(probe, repo.objects))
        first = (probe.exclusions, probe.readable, probe.approved, standing)
        memo.first_steps[query.role] = first
    run.exclusions.update(first[0])
    run.readable, run.approved, standing = first[1], first[2], first[3]
    standing = step_temporal(run, standing)
    standing = step_scope(run, standing)
    standing = step_supersession(run, standing)
    current = [o for o in standing if o.uid not in run.historical]
    version_findings(run, current)
    current = step_competition(run, current)
    current = step_conflicts(run, current)
    historical = [o for o in standing if o.uid in run.historical]
    state = _RunState(
        run.exclusions,
        run.findings,
        run.readable,
        run.approved,
        run.historical,
        run.graph,
    )
    stage = _Stage(state, current, historical)
    with memo.lock:
        memo.stages[key] = stage
        while len(memo.stages) > _MEMO_STAGES:
            del memo.stages[next(iter(memo.stages))]
    return stage


def _role_findings(run: Run) -> _RoleFacts:
    """Broken references and load findings: they depend on what the role may read only."""
    facts = _role_facts(run)
    if facts.reference_findings is None or facts.load_findings is None:
        probe = Run(run.repo, run.query, run.role, exclusions=run.exclusions, readable=run.readable)
        reference_findings(probe)
        facts.reference_findings = probe.findings
        probe = Run(run.repo, run.query, run.role, readable=run.readable)
        load_findings(probe)
        facts.load_findings = probe.findings
    return facts
