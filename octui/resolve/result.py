"""What a resolution is asked and what it answers: :class:`Query` in, :class:`Resolution` out
(SPEC §2 and §5), with the bundle's entries (:class:`Included`) and supersession edges
(:class:`Edge`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import cached_property
from itertools import repeat, starmap
from typing import Protocol

from octui.core.enums import Lifecycle
from octui.core.model import ContextObject, Exclusion, Finding, count_errors
from octui.load.assemble import Repository
from octui.resolve.memo import ResolutionMemos


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


def included_each(
    objects: list[ContextObject],
    lifecycles: Iterable[Lifecycle],
    stale: Iterable[bool],
    scores: Iterable[int],
    matched: Iterable[dict[str, list[str]]],
) -> list[Included]:
    """``[Included(o, l, s, n, m) ...]`` over the columns, in order: the same entries, each
    field set through its slot in one C loop per column (a column of another length than
    ``objects`` raises ``ValueError``). A frozen dataclass's ``__init__``
    sets every field through ``object.__setattr__`` from Python, about 0.8 µs an entry:
    5.8 ms of a new task's 47 at 50,000 objects, whose bundles hold 7,000 entries."""
    made = list(map(Included.__new__, repeat(Included, len(objects))))
    for slot, column in zip(_SLOTS, (objects, lifecycles, stale, scores, matched), strict=True):
        deque(starmap(slot.__set__, zip(made, column, strict=True)), maxlen=0)
    return made


_SLOTS = tuple(getattr(Included, f.name) for f in fields(Included))
"""The slot of each field of :class:`Included`, in field order."""


@dataclass(frozen=True, slots=True)
class Edge:
    """``replacement`` supersedes ``replaced``, as declared on ``declared_on``."""

    replacement: ContextObject
    replaced: ContextObject
    declared_on: ContextObject
    field: str


class Supersession(Protocol):
    """Declared supersession among the objects one role may read, as a resolution shows it
    (:class:`octui.resolve.graph.SupersessionGraph`)."""

    @property
    def edges(self) -> list[Edge]: ...

    @property
    def cycle_edges(self) -> set[tuple[int, int]]: ...


@dataclass
class Resolution:
    """The outcome of one resolution: what is in, what is out and why, what is wrong."""

    query: Query
    repository: Repository
    included: list[Included]
    exclusions: list[Exclusion]
    warnings: list[Finding]
    excluded_at_stage: Mapping[int, Exclusion]
    """The exclusion, by uid, of each object steps 1–7 left out (the stage's own map)."""
    trimmed_out: Mapping[int, Exclusion]
    """The exclusion, by uid, of each object step 8 left out (``limit``, ``min_relevance``):
    no uid is in both maps, nor included."""
    included_uids: tuple[int, ...]
    """The uid of each entry of :attr:`included`, in the same order."""
    graph: Supersession
    """Declared supersession among the objects the role may read."""
    by_id: dict[str, list[ContextObject]]
    """Every object of :attr:`repository` by id (``Repository.by_id()``, computed once)."""
    memos: ResolutionMemos | None = field(default=None, init=False, compare=False, repr=False)
    """Where what is derived from this resolution's repository and stage is kept (the
    digest's pieces), set by the engine; not copied by ``dataclasses.replace`` (a changed
    copy is another resolution). A resolution is never changed once made."""

    def __post_init__(self) -> None:
        self._entries = tuple(self.included)
        """The entries as made (what :attr:`fates` and :meth:`fate` read: a caller that
        changes :attr:`included` changes neither)."""

    @cached_property
    def fates(self) -> dict[int, Included | Exclusion]:
        """Every object's place, by ``ContextObject.uid``: made when first asked for (the
        bundle, its digest and a view's tables never ask; at 50,000 objects the table costs
        2–3 ms, a tenth of a new task)."""
        fates: dict[int, Included | Exclusion] = {}
        for excluded in self.excluded_by_uid:
            fates.update(excluded)
        fates.update(zip(self.included_uids, self._entries, strict=True))
        return fates

    @property
    def excluded_by_uid(self) -> tuple[Mapping[int, Exclusion], Mapping[int, Exclusion]]:
        """Both exclusion maps, the stage's then step 8's: every object not included."""
        return (self.excluded_at_stage, self.trimmed_out)

    @property
    def trimmed(self) -> bool:
        """True when step 8 left objects out (``limit``, ``min_relevance``): otherwise every
        object standing at the stage (role, instant, ``include_historical``) is included,
        whatever the task."""
        return bool(self.trimmed_out)

    def fate(self, uid: int) -> Included | Exclusion | None:
        """``fates.get(uid)`` without making :attr:`fates`: for the callers that look up a
        few objects on a new resolution (the timeline, why-not, the what-if questions).
        An included object is found by a scan of :attr:`included_uids` (in C, a few
        microseconds per thousand entries), not by a table made for the look-up."""
        for step in self.excluded_by_uid:
            found = step.get(uid)
            if found is not None:
                return found
        try:
            return self._entries[self.included_uids.index(uid)]
        except ValueError:
            return None

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
        return self.error_count > 0

    @property
    def error_count(self) -> int:
        """How many warnings have severity ``error`` (the one count every layout prints)."""
        return count_errors(self.warnings)

    @property
    def strict_failed(self) -> bool:
        return self.query.strict and self.failed
