"""The explorer's inputs as one immutable value, and the view computed from a resolution.

Textual-free: the app keeps an :class:`Inputs`, turns it into a
:class:`octui.resolve.engine.Query` and resolves it off the UI thread into a
:class:`View` (everything the panes need, computed once per resolution).
"""

from __future__ import annotations

import operator
import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Protocol, TypeVar, cast

from octui.analysis.history import LineageIndex, lineage_index
from octui.bundle.bundle import digest
from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion, Finding
from octui.core.timeutil import now_utc, shift
from octui.load.heap import gc_paused, hold_heap
from octui.resolve.result import Included, Query, Resolution
from octui.tui.measure import longest_line

END_OF_TIME_NOTE = "as_of is at the end of representable time (0001-01-01 to 9999-12-31)"
"""What the explorer says when a step would leave the representable range."""


@dataclass(frozen=True)
class Inputs:
    """What the user has chosen. ``as_of=None`` follows the clock ("now")."""

    role: str | None = None
    task: str = ""
    as_of: datetime | None = None
    chosen: datetime | None = None
    """The instant last chosen, kept while following "now" so one key toggles back."""
    include_historical: bool = False
    strict: bool = False
    limit: int | None = None
    min_relevance: float | None = None

    def query(self, now: datetime | None = None) -> Query:
        return Query(
            role=self.role,
            as_of=self.as_of if self.as_of is not None else (now or now_utc()),
            task=self.task,
            include_historical=self.include_historical,
            limit=self.limit,
            min_relevance=self.min_relevance,
            strict=self.strict,
        )

    def with_as_of(self, when: datetime | None) -> Inputs:
        return replace(self, as_of=when, chosen=when if when is not None else self.chosen)

    def toggle_now(self, now: datetime | None = None) -> Inputs:
        """Between "now" and the chosen instant (today at midnight when none was chosen)."""
        if self.as_of is not None:
            return replace(self, as_of=None, chosen=self.as_of)
        chosen = self.chosen or midnight(now or now_utc())
        return replace(self, as_of=chosen, chosen=chosen)

    def step(self, *, days: int = 0, months: int = 0, now: datetime | None = None) -> Inputs | None:
        """Move ``as_of`` by days or calendar months (from today's midnight when following
        now); None when the step would leave representable time (years 1 to 9999)."""
        base = self.as_of if self.as_of is not None else midnight(now or now_utc())
        moved = shift(base, months=months, days=days)
        if moved is None:
            return None
        return replace(self, as_of=moved, chosen=moved)


def midnight(t: datetime) -> datetime:
    u = t.astimezone(UTC)
    return datetime(u.year, u.month, u.day, tzinfo=UTC)


R = TypeVar("R")
T = TypeVar("T")


@dataclass(frozen=True)
class TableRows:
    """Rows for a table with what the table would otherwise compute on the UI thread.

    Built in the resolver's worker thread, so showing a new resolution costs the
    UI thread only what is on screen, however many rows there are.
    """

    rows: Sequence[object]
    index: dict[Hashable, int]
    """Row key → first position (see :func:`key_index`)."""
    id_width: int
    """Terminal cells of the longest id cell (the id made inert on one line)."""
    detail_width: int = 0
    """Terminal cells of the longest detail cell (exclusions; denied ones show none)."""


def key_index(rows: Sequence[R], key: Callable[[R], Hashable]) -> dict[Hashable, int]:
    """Each key's first position among ``rows`` (an attribute getter as ``key`` makes it
    without a Python call per row)."""
    # from the end, so that the first position of a repeated key is the one kept
    return dict(zip(map(key, reversed(rows)), range(len(rows) - 1, -1, -1), strict=True))


def table_rows(
    rows: Sequence[R],
    key: Callable[[R], Hashable],
    ids: Callable[[R], str | None] | None = None,
    id_width: int | None = None,
    details: Callable[[R], str | None] | None = None,
    detail_width: int | None = None,
) -> TableRows:
    """Index ``rows`` (see :func:`key_index`) and measure their id (and detail) cells
    (unless the width is known)."""
    if id_width is None:
        id_width = longest_line(map(ids, rows)) if ids is not None else 0
    if detail_width is None:
        detail_width = longest_line(map(details, rows)) if details is not None else 0
    return TableRows(rows, key_index(rows, key), id_width, detail_width)


class MadeOfRows(Protocol):
    """What :class:`RowsMemo` keeps: a value made of ``rows`` alone, holding them."""

    @property
    def rows(self) -> Sequence[object]: ...


M = TypeVar("M", bound=MadeOfRows)


class RowsMemo:
    """The tables' rows already indexed and measured, by which rows they are.

    A new task re-ranks the included objects, but most exclusions (steps 1–7) are the very
    same objects, in the same order, as in the previous resolution of that role and
    instant: their tables (tens of thousands of keys indexed, every cell measured) are a
    pure function of those objects, so they are reused. An entry is looked up by the rows'
    count and their first and last row (no pass over the rows: hashing every identity cost
    2 ms a view at 50k objects) and taken only when its rows are the very same objects, in
    the same order (what was made holds them as ``rows``, so no identity is reused while
    it lives); rows that only share those are made again and kept beside the entry
    (neighbouring views share their first and last warnings).

    An entry lives exactly as long as something else holds what was made — the views of
    the app's view cache and the view on show hold their tables —: the memo refers to it
    weakly and never decides itself what to drop. (It kept the 24 most recently made
    before: the four views the prefetch makes pushed out the tables of the view on show,
    and the first character typed after a pause made them all again, 60–80 ms at 50k
    objects.) Owned by the app's view cache; a lock guards the table, nothing is computed
    while it is held. ``enabled=False``: nothing is kept.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, int, int, int], list[weakref.ref[MadeOfRows]]] = {}

    def kept(self, name: str, rows: Sequence[R], make: Callable[[Sequence[R]], M]) -> M:
        """``make(rows)``, or what it gave for the same ``name`` and the very same rows
        while that is still held."""
        if not self.enabled:
            return make(rows)
        key = (name, len(rows), id(rows[0]) if rows else 0, id(rows[-1]) if rows else 0)
        with self._lock:
            candidates = [made for ref in self._kept.get(key, ()) if (made := ref()) is not None]
        for found in candidates:
            if all(map(operator.is_, found.rows, rows)):
                return cast(M, found)
        made = make(rows)
        with self._lock:
            alive = [ref for ref in self._kept.get(key, ()) if ref() is not None]
            self._kept[key] = [*alive, weakref.ref(made)]
            if len(self._kept) > SWEEP_AT:  # forget the keys of what nothing holds any more
                self._kept = {k: refs for k, refs in self._kept.items() if _any_alive(refs)}
        return made


SWEEP_AT = 64
"""Keys a :class:`RowsMemo` has before it forgets those whose tables are all gone."""


def _any_alive(refs: list[weakref.ref[MadeOfRows]]) -> bool:
    return any(ref() is not None for ref in refs)


class LineageMemo:
    """The timeline's :class:`~octui.analysis.history.LineageIndex` of each supersession
    graph, by the graph's identity: resolutions that share a graph (a new task re-ranks;
    steps 1–7, the graph with them, are the same) share one index. The ``bound`` most
    recently used are kept; each entry holds its graph, so no identity is reused while it
    is kept. Owned by the app's view cache; a lock guards the table, nothing is computed
    while it is held."""

    def __init__(self, bound: int = 8) -> None:
        self.bound = bound
        self._lock = threading.Lock()
        self._kept: OrderedDict[int, tuple[object, LineageIndex]] = OrderedDict()

    def index(self, resolution: Resolution) -> LineageIndex:
        """``lineage_index(resolution)``, or the one made for the same graph."""
        graph = resolution.graph
        with self._lock:
            found = self._kept.get(id(graph))
            if found is not None and found[0] is graph:
                self._kept.move_to_end(id(graph))
                return found[1]
        made = lineage_index(resolution)
        with self._lock:
            self._kept[id(graph)] = (graph, made)
            self._kept.move_to_end(id(graph))
            while len(self._kept) > self.bound:
                self._kept.popitem(last=False)
        return made


@dataclass
class View:
    """One resolution, with what the panes need precomputed.

    Its digest is not among them: it is shown only as eight characters in the status line,
    and at 50k objects it costs as much as the tables, so the explorer shows a new view's
    tables first and computes the digest on the resolver thread after that paint
    (:meth:`~octui.tui.resolving.Resolving.finish_digest`); until then
    :attr:`known_digest` is None and the status line says so."""

    resolution: Resolution
    generation: int
    included_rows: TableRows | None = None
    """The bundle's objects, indexed and measured for the included table."""
    excluded: ExcludedTables | None = None
    """The exclusions' tables, counts and objects (see :attr:`excluded_rows`)."""
    warnings: WarningTable | None = None
    """The warnings' table and the count of errors (see :attr:`warning_rows`)."""
    lineages: LineageIndex | None = None
    """The supersession indexed for the timeline (see :attr:`lineage_index`)."""
    known_digest: str | None = None
    """The bundle's digest once computed (see :attr:`digest`); None until then."""
    _digesting: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )
    """Held while the digest is computed: a second thread asking meanwhile (the pin's
    comparison, an export) waits for it instead of hashing the whole bundle again."""

    @property
    def digest(self) -> str:
        """The bundle's digest, computed here if it is not known yet (the resolution's memos
        keep it: a second view of the same query finds it at once)."""
        if self.known_digest is None:
            with self._digesting:
                if self.known_digest is None:
                    self.known_digest = digest(self.resolution)
        return self.known_digest

    @property
    def query(self) -> Query:
        return self.resolution.query

    @property
    def included(self) -> list[Included]:
        return self.resolution.included

    @property
    def exclusions(self) -> list[Exclusion]:
        return self.resolution.exclusions

    @property
    def excluded_rows(self) -> dict[str, TableRows]:
        """Exclusions for the excluded table: ``"all"`` and each reason present (its value);
        empty when the view was made without its tables."""
        return self.excluded.tables if self.excluded is not None else {}

    @property
    def reason_counts(self) -> Counter[ExclusionReason]:
        return self.excluded.counts if self.excluded is not None else Counter()

    @property
    def exclusion_uid(self) -> dict[int, int]:
        """``id(exclusion) -> object uid`` (source-unavailable exclusions have none)."""
        return self.excluded.uid_of if self.excluded is not None else {}

    @property
    def warning_rows(self) -> TableRows | None:
        return self.warnings.table if self.warnings is not None else None

    def object_of(self, item: Included | Exclusion) -> ContextObject | None:
        """The object behind a row; never for a denied exclusion (only id and reason)."""
        if isinstance(item, Included):
            return item.obj
        if item.reason.is_denial:
            return None
        uid = self.exclusion_uid.get(id(item))
        if uid is None:
            return None
        return self.resolution.repository.objects[uid]

    @property
    def lineage_index(self) -> LineageIndex:
        """The resolution's supersession indexed for the timeline: made with the view (off
        the UI thread, shared by views of one graph), or here once when it was not."""
        if self.lineages is None:
            self.lineages = lineage_index(self.resolution)
        return self.lineages

    @property
    def errors(self) -> int:
        """The resolution's errors (counted once by :func:`make_view`, in the worker thread)."""
        if self.warnings is not None:
            return self.warnings.errors
        return self.resolution.error_count


def make_view(
    resolution: Resolution,
    generation: int,
    memo: RowsMemo | None = None,
    lineages: LineageMemo | None = None,
) -> View:
    """Compute the view (runs in a worker thread), the garbage collector paused: the rows
    of a 50k-object view are hundreds of thousands of containers that make no cycles.

    The view then joins the held heap (:func:`~octui.load.heap.hold_heap`, as the loaded
    repository does): left young, the resolution and its rows would be walked again by
    every full collection the UI thread's allocations trigger later (a tenth of a second
    and more at 10k objects, on the key being handled). Reference counting still frees a
    view that is dropped; the next load gives every frozen object back to the collector."""
    with gc_paused():
        view = _make_view(resolution, generation, memo if memo is not None else RowsMemo(False))
        if lineages is not None:  # the timeline's index, off the UI thread
            view.lineages = lineages.index(resolution)
    hold_heap()
    return view


def finish_view(view: View) -> str:
    """Compute ``view``'s digest (in a worker thread, after its tables are shown) and hold
    what it made in the held heap, as :func:`make_view` holds the rest of the view."""
    found = view.digest
    hold_heap()
    return found


def _make_view(resolution: Resolution, generation: int, memo: RowsMemo) -> View:
    # a new task re-ranks the very same exclusions and warnings: their tables (and which
    # object each exclusion is) are taken whole; the included rows are new objects with
    # every resolution (a view cache's view is the one made of its resolution)
    return View(
        resolution,
        generation,
        included_rows=table_rows(
            resolution.included, included_key, id_width=_included_id_width(resolution)
        ),
        excluded=memo.kept(
            "excluded",
            resolution.exclusions,
            lambda rows: _excluded_tables(rows, resolution.excluded_by_uid, memo),
        ),
        warnings=memo.kept(
            "warnings", resolution.warnings, lambda rows: _warning_table(rows, resolution)
        ),
    )


def _included_id_width(resolution: Resolution) -> int:
    """Cells of the longest included id. Unless step 8 trimmed (:attr:`Resolution.trimmed`)
    every task of a stage includes the same objects: the width is then measured once per
    stage, in its memo (each character typed at 50,000 objects measured 7,000 ids again,
    3–4 ms)."""
    memos = resolution.memos

    def measure() -> int:
        return longest_line(map(included_id, resolution.included))

    if memos is None or resolution.trimmed:
        return measure()
    return memos.stage.get(("view", "included id width"), measure)


@dataclass(frozen=True)
class ExcludedTables:
    """What the excluded table shows of one list of exclusions (made off the UI thread)."""

    rows: Sequence[Exclusion]
    """The exclusions, in the resolution's order."""
    tables: dict[str, TableRows]
    """Their rows for every reason present (its value) and for all (:data:`ALL_REASONS`)."""
    counts: Counter[ExclusionReason]
    """How many per reason."""
    uid_of: dict[int, int]
    """``id(exclusion) → object uid`` (an exclusion is one object's, id@version: the very
    same exclusion in another resolution of the repository is the same object's)."""


@dataclass(frozen=True)
class WarningTable:
    """What the Warnings tab shows of one list of warnings (made off the UI thread)."""

    rows: Sequence[Finding]
    """The warnings, in the resolution's order."""
    table: TableRows
    """Their rows, errors first (:func:`severity_first`), and their widest ids cell."""
    errors: int
    """The resolution's count of errors (a pure function of its warnings)."""


def _warning_table(warnings: Sequence[Finding], resolution: Resolution) -> WarningTable:
    """The warnings table's rows and the resolution's count of errors (counted here, off
    the UI thread)."""
    table = table_rows(severity_first(warnings), warning_key, warning_ids)
    return WarningTable(warnings, table, resolution.error_count)


def _excluded_tables(
    exclusions: Sequence[Exclusion],
    excluded_by_uid: Sequence[Mapping[int, Exclusion]],
    memo: RowsMemo,
) -> ExcludedTables:
    """The excluded table's rows for every reason and for all (each reason's reused from
    ``memo`` when they are the very same), the count per reason and which object each
    exclusion is (``excluded_by_uid``: the resolution's)."""
    uid_of: dict[int, int] = {}
    for step in excluded_by_uid:
        uid_of.update(zip(map(id, step.values()), step, strict=True))
    by_reason: dict[ExclusionReason, list[Exclusion]] = {}
    for ex in exclusions:
        by_reason.setdefault(ex.reason, []).append(ex)
    counts = Counter({reason: len(rows) for reason, rows in by_reason.items()})
    excluded = {
        reason.value: memo.kept(
            reason.value,
            rows,
            lambda r: table_rows(r, excluded_key, excluded_id, details=_excluded_detail),
        )
        for reason, rows in by_reason.items()
    }
    widest = max((t.id_width for t in excluded.values()), default=0)
    longest_detail = max((t.detail_width for t in excluded.values()), default=0)
    excluded[ALL_REASONS] = memo.kept(
        ALL_REASONS,
        exclusions,
        lambda r: table_rows(r, excluded_key, id_width=widest, detail_width=longest_detail),
    )
    return ExcludedTables(exclusions, excluded, counts, uid_of)


ALL_REASONS = "all"
"""The key of every exclusion in :attr:`View.excluded_rows` (the reason filter's "all")."""


included_id: Callable[[Included], str] = operator.attrgetter("obj.id")
"""The id cell of an included row (measured here, made inert by the table); an attribute
getter, not a function: it is called for every row of each new view."""

excluded_id: Callable[[Exclusion], str] = operator.attrgetter("id")
"""The id cell of an excluded row (measured here, made inert by the table)."""


def severity_first(warnings: Sequence[Finding]) -> list[Finding]:
    """Errors before warnings; otherwise the bundle's order (the Warnings tab's order)."""
    return sorted(warnings, key=lambda w: w.severity != "error")


def _excluded_detail(ex: Exclusion) -> str | None:
    return None if ex.reason.is_denial else ex.detail


def warning_ids(w: Finding) -> str:
    """The ids cell of a warning row (measured here, made inert by the table)."""
    return " ".join(w.ids)


def warning_key(w: Finding) -> tuple[object, ...]:
    """A stable identity for a warning row across re-resolutions."""
    return (w.code.value, w.ids, w.message)


included_key: Callable[[Included], Hashable] = operator.attrgetter("obj.path")
"""A stable identity for an included row across re-resolutions (so the selection survives):
its object's file. An attribute getter: a new task indexes thousands of rows with it, without
a Python call per row."""


def excluded_key(ex: Exclusion) -> tuple[str, int]:
    """A stable identity for an excluded row across re-resolutions: its id@version."""
    return (ex.id, ex.version or 0)
