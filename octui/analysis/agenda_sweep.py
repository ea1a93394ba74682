"""The change agenda by sweeping: the change points of one query found lazily, moving one
:class:`~octui.analysis.agenda_sweep_state.Sweep` (the bundle kept from candidate instant to
candidate instant, re-judging only what each candidate's causes touch) and diffing each
pair of consecutive bundles over the re-judged clusters alone.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime

from octui.analysis.agenda_points import EPSILON, Candidate, ChangePoint, change_point
from octui.analysis.agenda_sweep_state import ClusterState, Sweep
from octui.analysis.diff import diff_entries, excluded_view, included_view, warning_changes
from octui.analysis.diff_result import Diff, EntryView, SideInfo
from octui.core.model import Finding
from octui.load.assemble import Repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.result import Included, Query, Resolution


def sweep_points(
    repository: Repository,
    query: Query,
    base: Resolution,
    ordered: list[Candidate],
    rev: str | None,
    start: datetime,
    *,
    forward: bool,
    cache: ResolutionCache | None = None,
    digests: bool = True,
) -> Iterator[ChangePoint]:
    """The change points at ``ordered`` candidates, found lazily by sweeping from the bundle
    at ``start``: forward (soonest first, candidates after ``start``) or backward (latest
    first, candidates in effect at ``start``). ``cache``: ``repository``'s resolution cache.

    A candidate is a change point when the bundle's content differs from the one before
    (compared, not hashed). ``digests``: give each side of each point its digest (SPEC §5:
    each is a whole bundle hashed); without, the sides' digests are ``None`` — for a
    caller that never shows them, such as the explorer's agenda."""
    cache = cache if cache is not None else ResolutionCache(repository)
    sweep = Sweep(repository, query, base, rev, cache)
    sweep.start(start)
    ids_at: dict[datetime, set[str]] = defaultdict(set)
    for candidate in ordered:
        for cause in candidate.causes:
            ids_at[candidate.first_instant].update(cause.ids)
    for candidate in ordered:
        instant = candidate.first_instant if forward else candidate.first_instant - EPSILON
        changed = sweep.probe(instant, ids_at[candidate.first_instant])
        if not changed:
            sweep.commit(instant, changed)
            continue
        old_states = [sweep.clusters[c] for c in changed]
        old: _Side = (sweep.side(digests), sweep.located(old_states), old_states, sweep.size())
        if not sweep.commit(instant, changed):
            continue
        new_states = list(changed.values())
        new: _Side = (sweep.side(digests), sweep.located(new_states), new_states, sweep.size())
        diff, moves = _diff(sweep, old, new) if forward else _diff(sweep, new, old)
        yield change_point(candidate, diff, moves)


_Side = tuple[SideInfo, dict[int, tuple[int, Included]], list[ClusterState], int]
"""One side of a change: its description, the re-judged objects it includes (uid → rank and
entry), the re-judged clusters, and how many objects it includes."""


def _diff(sweep: Sweep, a: _Side, b: _Side) -> tuple[Diff, int]:
    """The diff of two consecutive bundles without rank-only moves, and their count. Only the
    re-judged clusters can differ in more than rank; every other included object keeps its
    place among the others, so whether it moved is counted from the positions of the
    re-judged ones alone."""
    side_a, located_a, states_a, _size_a = a
    side_b, located_b, states_b, size_b = b
    changes, versions = diff_entries(
        _entries(located_a, states_a), _entries(located_b, states_b), sweep.receivable
    )
    kept = [ch for ch in changes if not ch.rank_only]
    moves = len(changes) - len(kept)
    moves += _moved_elsewhere(
        sorted(rank - 1 for rank, _ in located_a.values()),
        sorted(rank - 1 for rank, _ in located_b.values()),
        size_b - len(located_b),
    )
    added, removed = warning_changes(
        sorted((w for s in states_a for w in s.findings), key=Finding.sort_key),
        sorted((w for s in states_b for w in s.findings), key=Finding.sort_key),
    )
    return Diff(side_a, side_b, tuple(kept), tuple(versions), added, removed), moves


def _moved_elsewhere(touched_a: list[int], touched_b: list[int], untouched: int) -> int:
    """How many of the ``untouched`` included objects change position between two bundles in
    which the others sit at positions ``touched_a`` and ``touched_b`` (0-based, sorted).

    The m-th untouched object sits after every touched one whose position minus its own index
    is at most m; it moved exactly when those counts differ on the two sides, and they change
    only at those values."""
    xa = [p - k for k, p in enumerate(touched_a)]
    xb = [p - k for k, p in enumerate(touched_b)]
    breaks = sorted({0, *xa, *xb})
    moved = 0
    for i, begin in enumerate(breaks):
        if begin >= untouched:
            break
        end = min(breaks[i + 1] if i + 1 < len(breaks) else untouched, untouched)
        if bisect_right(xa, begin) != bisect_right(xb, begin):
            moved += end - begin
    return moved


def _entries(
    located: dict[int, tuple[int, Included]], states: list[ClusterState]
) -> list[EntryView]:
    """The bundle entries (as :func:`octui.analysis.diff.entries`) of the objects of ``states``."""
    out: list[EntryView] = []
    for state in states:
        for uid in state.standing:
            rank, inc = located[uid]
            out.append(included_view(inc, rank))
        out.extend(excluded_view(ex) for ex in state.exclusions.values())
    return out
