"""Repository-wide tables that make a new role or a new instant cheap, kept by a
:class:`~octui.resolve.cache.ResolutionCache` (one :class:`Prepared` per repository).

Each table is a pure function of the repository, computed on first use: a resolution
without a cache never builds them (it computes what it needs directly), and a resolution
with one reads them instead of repeating work that does not depend on the role or the
instant. Every answer is the same either way (the property tests compare cached and
uncached bundles).
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Set
from datetime import datetime
from functools import cached_property, partial
from itertools import compress, repeat
from operator import gt, is_

from octui.core.enums import Status
from octui.core.model import ContextObject, Finding, uid_of
from octui.resolve.findings import StaleKey, fresh_until, stale_finding, stale_sort_key
from octui.resolve.fixed import FixedOrder
from octui.resolve.graph_whole import WholeGraph
from octui.resolve.index import RepoIndex
from octui.resolve.order import ExclusionOrder
from octui.resolve.steps.s6_competition import competition_key
from octui.resolve.steps.tables import Access, Contenders, Records, ScopeIds, Spans

CARRY_SHARE = 4
"""A reload that replaced more than one object in this many (a bulk edit, a branch switch)
builds the fixed order again rather than carry it: resetting every kept task-token match of
that many objects costs about as much as matching them again when asked."""

FRESHNESS_READS = frozenset({"review_every", "type", "updated", "created"})
"""Fields an object's freshness (its stale instant and finding) reads beside its id and path."""
RECORDS_READ = frozenset({"valid_from", "created", "valid_until"})
"""Fields an object's exclusion records read beside its id, version and path (the details of
``not-yet-valid`` and ``expired``)."""


class Prepared:
    """What resolution precomputes once per repository (see the module)."""

    def __init__(self, index: RepoIndex) -> None:
        self.index = index
        self._instants = 0

    def built_graph(self) -> WholeGraph | None:
        """:attr:`graph` when built: a new role builds it (about 0.6 s at 50,000 objects); a
        reload that carried every role's graph has none until a new role asks."""
        graph: WholeGraph | None = self.__dict__.get("graph")
        return graph

    def replaceable(self) -> bytes | None:
        """:attr:`WholeGraph.replaceable` when the whole graph is built (a stage judged for
        a role carried across a reload does not wait for it)."""
        graph = self.built_graph()
        return None if graph is None else graph.replaceable

    def spans_in_use(self) -> Spans | None:
        """:attr:`spans` from the second instant judged on, or once built (by
        :meth:`~octui.session.Session.prepare`): building them costs about what step 3
        costs at one instant, so the first resolution after a load or reload (often the
        only one before the next edit) judges without them."""
        if "spans" not in self.__dict__:
            self._instants += 1  # a race at worst builds them one instant later
            if self._instants < 2:
                return None
        return self.spans

    def carried(self, index: RepoIndex, replaced: Collection[int], what: Set[str]) -> Prepared:
        """The tables of ``index`` — this repository after a reload that replaced the objects
        at ``replaced`` in place, changing only their fields ``what`` (same id, version, path
        and configuration; see :mod:`octui.resolve.carry`) — that this one already built and
        that still hold: the exclusion order (a function of each place's id and version), the
        fixed order when no layer or authority changed (``index`` then keeps the same groups
        and places) and the reload replaced few objects (:data:`CARRY_SHARE`), each object's
        freshness and its exclusion records (shared whole when no field they read changed),
        the validity windows, the competitors (their keys made again), and the objects step
        7 looks at when no declared conflict changed; the objects the reload replaced are
        looked at again when first asked for. Every other table is built again on first
        use. Nothing of this one is changed, so a thread still resolving the old repository
        is never disturbed."""
        made = Prepared(index)
        built, into = self.__dict__, made.__dict__
        if "order" in built:
            into["order"] = built["order"]
        fixed = built.get("fixed")
        few = len(replaced) * CARRY_SHARE <= len(index.objects)
        same_places = index.groups == self.index.groups and index.places == self.index.places
        if fixed is not None and few and same_places:
            into["fixed"] = fixed.carried(index, replaced)
        for name, reads in (("freshness", FRESHNESS_READS), ("records", RECORDS_READ)):
            if name in built:
                into[name] = built[name] if not what & reads else built[name].carried(replaced)
        if "spans" in built:
            old, new = self.index.objects, index.objects
            into["spans"] = built["spans"].carried(
                [old[u] for u in replaced], [new[u] for u in replaced]
            )
        if "competition" in built:
            into["competition"] = built["competition"].carried(replaced)
        if "conflicted" in built and "conflicts_with" not in what:  # the same ids declare
            into["conflicted"] = built["conflicted"]
        return made

    @cached_property
    def order(self) -> ExclusionOrder:
        """Where every exclusion record falls in the bundle's exclusion order."""
        return ExclusionOrder(self.index.objects)

    @cached_property
    def graph(self) -> WholeGraph:
        """Declared supersession among every object, from which a role's graph is derived."""
        return WholeGraph(self.index)

    @cached_property
    def scope_ids(self) -> ScopeIds:
        """The sorted ids, from which a role's scope verdicts are made per id range."""
        return ScopeIds(self.index.objects)

    @cached_property
    def records(self) -> Records:
        """Per object, the exclusion records whose detail is fixed, made once."""
        return Records(len(self.index.objects))

    @cached_property
    def fixed(self) -> FixedOrder:
        """The bundle's fixed order over every object, and its task-token matches."""
        return FixedOrder(self.index)

    @cached_property
    def competition(self) -> Contenders:
        """Which objects share their id, and each one's competition key (step 6)."""
        return Contenders(self.index, competition_key)

    @cached_property
    def conflicted(self) -> bytes:
        """Per uid, 1 when some object holding the object's id declares a conflict, or some
        declaration names it: step 7 looks at no other object."""
        objects = self.index.objects
        ids = {i for o in objects for i in o.conflicts_with}
        ids.update(o.id for o in objects if o.conflicts_with)
        return bytes(o.id in ids for o in objects)

    @cached_property
    def access(self) -> Access:
        """Every object's access class, and the denial records (step 1)."""
        return Access(self.index.objects)

    @cached_property
    def drafts(self) -> bytes:
        """Per uid, 1 for a draft (step 2)."""
        return bytes(o.status == Status.DRAFT for o in self.index.objects)

    @cached_property
    def spans(self) -> Spans:
        """Every object's validity window, sorted by its boundaries (step 3 at an instant)."""
        return Spans(self.index.objects)

    @cached_property
    def freshness(self) -> Freshness:
        """When each object turns stale, and its ``stale`` finding."""
        return Freshness(self.index)


_UNKNOWN = object()


class _Never:
    """The stale instant of an object that never turns stale: no instant is after it."""

    __slots__ = ()

    def __lt__(self, other: object) -> bool:
        return False


_NEVER = _Never()


class Freshness:
    """Per object, the instant after which it is stale and its ``stale`` finding, each made
    on first use and handed out again: :func:`~octui.resolve.findings.is_stale` and
    :func:`~octui.resolve.findings.stale_finding` answer the same. A finding handed out again
    is the same record, so whatever is kept by its identity downstream (the digest's pieces)
    is found again. Entries are pure functions of the object, so threads racing for one
    store equal values; the ranks (:meth:`prepare`), a function of every object, are
    stored whole once made."""

    __slots__ = ("_after", "_findings", "_keys", "_ranks", "config")

    def __init__(self, index: RepoIndex) -> None:
        self.config = index.config
        n = len(index.objects)
        self._after: list[object] = [_UNKNOWN] * n
        self._findings: list[Finding | None] = [None] * n
        self._keys: list[StaleKey | None] = [None] * n
        self._ranks: array[int] | None = None
        """Per uid, where the object's ``stale`` finding falls among every object's (made by
        :meth:`prepare`): a stage sorts its stale objects by it, without their keys."""

    def carried(self, replaced: Collection[int]) -> Freshness:
        """The same answers for a repository whose objects at ``replaced`` were replaced in
        place under the same configuration (theirs made again when first asked for)."""
        made = Freshness.__new__(Freshness)
        made.config = self.config
        made._after, made._findings, made._keys = (
            list(self._after),
            list(self._findings),
            list(self._keys),
        )
        for uid in replaced:
            made._after[uid], made._findings[uid], made._keys[uid] = _UNKNOWN, None, None
        made._ranks = None  # a replaced object's finding may fall elsewhere: prepared again
        return made

    def stale(self, objects: list[ContextObject], as_of: datetime) -> dict[int, bool]:
        """By uid, in order, whether each of ``objects`` is stale at ``as_of``: read and
        compared per uid in C loops, only the instants not known yet made one by one."""
        uids = list(map(uid_of, objects))
        afters = self._afters(objects, uids)
        return dict(zip(uids, map(gt, repeat(as_of), afters), strict=True))  # type: ignore[arg-type]

    def prepare(self, objects: list[ContextObject]) -> None:
        """Work out now when each of the repository's ``objects`` turns stale (a stage reads
        it per uid), and where its ``stale`` finding falls among the others (a stage sorts
        by it). The findings are made to be sorted and dropped: a stage makes only those of
        the objects it finds stale."""
        self._afters(objects, list(map(uid_of, objects)))
        if self._ranks is not None:
            return
        ranked = sorted(objects, key=partial(stale_sort_key, self.config))
        ranks = array("i", [0]) * len(self._after)
        for rank, obj in enumerate(ranked):
            ranks[obj.uid] = rank
        self._ranks = ranks

    def _afters(self, objects: list[ContextObject], uids: list[int]) -> list[object]:
        """The instant after which each of ``objects`` (their ``uids``) is stale, made and
        kept for those not known yet."""
        afters = list(map(self._after.__getitem__, uids))
        for at in compress(range(len(afters)), map(is_, afters, repeat(_UNKNOWN))):
            afters[at] = self._after[uids[at]] = self._stale_after(objects[at])
        return afters

    def _stale_after(self, obj: ContextObject) -> object:
        """The instant after which ``obj`` is stale (:data:`_NEVER` when it never is)."""
        until = fresh_until(self.config, obj)
        return _NEVER if until is None else until

    def ordered(self, objects: list[ContextObject]) -> list[Finding]:
        """The ``stale`` findings of ``objects`` in their order (:func:`stale_sort_key`):
        sorted by the prepared ranks, or else by each object's key (kept per uid); keys and
        findings read per uid in C loops, only those not made yet made one by one."""
        uids = list(map(uid_of, objects))
        findings = self._findings
        for at in compress(
            range(len(uids)), map(is_, map(findings.__getitem__, uids), repeat(None))
        ):
            self.finding(objects[at])
        ranks = self._ranks
        if ranks is not None:
            return list(map(findings.__getitem__, sorted(uids, key=ranks.__getitem__)))  # type: ignore[arg-type]
        keys, config = self._keys, self.config
        for at in compress(range(len(uids)), map(is_, map(keys.__getitem__, uids), repeat(None))):
            keys[uids[at]] = stale_sort_key(config, objects[at])
        return list(map(findings.__getitem__, sorted(uids, key=keys.__getitem__)))  # type: ignore[arg-type]

    def finding(self, obj: ContextObject) -> Finding:
        """The ``stale`` finding of ``obj``."""
        found = self._findings[obj.uid]
        if found is None:
            found = self._findings[obj.uid] = stale_finding(self.config, obj)
        return found
