"""Step 8, relevance (SPEC §2, the order in §3).

    "Only on request: ``--limit N`` keeps the N best-ranked objects that are not L0/L1;
    ``--min-relevance S`` drops those scoring below S. Each trimmed object →
    ``not-relevant``. L0 and L1 are never trimmed."

Ranking orders and never includes: L0, then L1, then score descending, authority rank, id,
version descending; historical objects after all current ones.

The objects standing at a stage (one role, instant and ``include_historical``) are the same
for every task, so what does not depend on the task is kept in the stage's
:class:`~octui.resolve.memo.Memo` when one is given: the standing objects in their order
with no task (:class:`Standing`) and, per task token met, which fields of each object hold
it (a byte per object). A new task then costs a look-up per object and token, one score per
distinct pattern of matches, and one stable sort of small integers.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TypeVar

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion
from octui.core.tokens import CONTENT_BIT, tokenize
from octui.resolve.fixed import FixedOrder, in_order, masks_of, picked, rank_bases
from octui.resolve.index import RepoIndex
from octui.resolve.memo import Memo
from octui.resolve.ranking import Score, score_of
from octui.resolve.result import Query
from octui.resolve.steps.base import Reader, excluded

R = ExclusionReason
T = TypeVar("T")
CONTENT = CONTENT_BIT


@dataclass
class Ranked:
    """The objects kept, in bundle order with their scores, and those trimmed (by uid). The
    kept objects are named by their positions in the stage's :class:`Standing` order, so
    that what the stage knows of each position is put in bundle order without reading the
    objects again (at 50,000 objects every object read is a cache miss)."""

    standing: Standing
    order: list[int]
    """The positions in :attr:`standing` of the objects kept, in bundle order."""
    scores: list[Score]
    """Their scores, in the same order."""
    exclusions: dict[int, Exclusion]

    def column(self, values: list[T]) -> list[T]:
        """``values`` (one per position of :attr:`standing`) of the objects kept, in order."""
        return list(map(values.__getitem__, self.order))


@dataclass(frozen=True)
class Standing:
    """The standing objects in bundle order when no task token matches — current ones by
    (layer group, place in the repository's fixed order), then historical ones alike — with
    what ranking reads of each, position by position."""

    objects: list[ContextObject]
    tokens: list[tuple[str, ...]]
    """Each object's tokens, sorted (its token table's first half)."""
    masks: list[bytes]
    """Which fields hold each of them (its token table's second half)."""
    floor_layer: bytes
    """1 for an L0/L1 object."""
    rank_base: list[int]
    """The sort key with a score of 0: historical first bit, then the layer group."""
    fixed: FixedOrder | None = None
    """The repository's fixed order this stage's order was picked from (with ``picks``):
    token matches are then picked from its repository-wide ones."""
    picks: tuple[bytes, bytes] = (b"", b"")


def standing_order(
    index: RepoIndex, standing: list[ContextObject], historical: Collection[int]
) -> Standing:
    """:class:`Standing` of ``standing`` (``historical``: the uids standing as history)."""
    groups, places = index.groups, index.places
    width = len(places) + 1
    keyed = sorted(
        (
            (((o.uid in historical) << 2 | groups[o.uid]) * width + places[o.uid], o)
            for o in standing
        ),
        key=lambda p: p[0],
    )
    objects = [o for _, o in keyed]
    tables = [index.repo.tokens.get(o) for o in objects]
    return Standing(
        objects,
        [t[0] for t in tables],
        [t[1] for t in tables],
        bytes(groups[o.uid] < 2 for o in objects),
        [((o.uid in historical) << 2 | groups[o.uid]) << 40 for o in objects],
    )


def token_masks(standing: Standing, token: str, joined: bool = False) -> bytes:
    """Which fields of each standing object hold ``token``: a byte per position (the short
    fields' bits and :data:`CONTENT`), picked from the repository's when the order was
    (``joined``: a session's, where a new task's tokens are matched over the stage's
    token tables laid end to end — :meth:`FixedOrder.joined_tables`)."""
    if standing.fixed is not None:
        return standing.fixed.token_masks(token, standing.picks, joined)
    return masks_of(standing.tokens, standing.masks, token)


def fixed_order(
    fixed: FixedOrder, current: list[ContextObject], past: list[ContextObject]
) -> Standing:
    """:class:`Standing` of ``current`` and ``past`` (the historical objects standing),
    picked from the repository's fixed order: the same order :func:`standing_order` sorts."""
    picks = fixed.pick(current, past)
    objects = in_order(fixed, picks)
    floor = picked(fixed.floor, picks)
    return Standing(objects, [], [], floor, rank_bases(fixed, picks), fixed, picks)


class _Patterns(dict[tuple[int, ...], Score]):
    """(floor layer, mask per task token) -> the score: computed once per distinct pattern."""

    def __init__(self, tokens: tuple[str, ...], floor: int) -> None:
        super().__init__()
        self.tokens, self.floor = tokens, floor

    def __missing__(self, key: tuple[int, ...]) -> Score:
        value = self[key] = score_of(self.tokens, key[1:], bool(key[0]), self.floor)
        return value


def ordered_scores(
    index: RepoIndex, query: Query, standing: Standing, memo: Memo | None
) -> tuple[list[int], list[Score]]:
    """Every standing object's position in ``standing`` and its score, in bundle order
    (SPEC §3)."""
    tokens = tuple(sorted(tokenize(query.task)))
    masks = [
        memo.get(("token", t), lambda t=t: token_masks(standing, t, joined=True))  # type: ignore[misc]
        if memo is not None
        else token_masks(standing, t)
        for t in tokens
    ]
    patterns = _Patterns(tokens, index.config.ranking.floor)
    scores = list(map(patterns.__getitem__, zip(standing.floor_layer, *masks, strict=True)))
    if not any(any(key[1:]) for key in patterns):  # nothing matched: the fixed order
        return list(range(len(scores))), scores
    # a stable sort keeps the fixed order among equal (historical, group, score)
    keys = [base - s.score for base, s in zip(standing.rank_base, scores, strict=True)]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return order, list(map(scores.__getitem__, order))


def relevance(
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    historical: Collection[int] = (),
    memo: Memo | None = None,
    fixed: FixedOrder | None = None,
    current: int = 0,
) -> Ranked:
    """``standing`` in bundle order, current objects before ``historical`` ones (by uid),
    trimmed to ``limit`` / ``min_relevance`` when the query asks. ``memo``: the stage's, when
    ``standing`` and ``historical`` are a cached stage's (what does not depend on the task
    is kept there); ``fixed``: the repository's fixed order, when the cache prepared it
    (``standing`` then lists its ``current`` objects before the historical ones)."""
    if memo is None:
        fixed_standing = standing_order(index, standing, historical)
    elif fixed is None:
        fixed_standing = memo.get(
            ("standing",), lambda: standing_order(index, standing, historical)
        )
    else:
        fixed_standing = memo.get(
            ("standing",), lambda: fixed_order(fixed, standing[:current], standing[current:])
        )
    order, scores = ordered_scores(index, query, fixed_standing, memo)
    limit, minimum = query.limit, query.min_relevance
    if limit is None and minimum is None:
        return Ranked(fixed_standing, order, scores, {})
    objects = fixed_standing.objects
    kept: list[int] = []
    kept_scores: list[Score] = []
    exclusions: dict[int, Exclusion] = {}
    trimmable_kept = 0
    for position, (at, s) in enumerate(zip(order, scores, strict=True), start=1):
        obj = objects[at]
        if obj.is_floor_layer:
            pass  # L0 and L1 are never trimmed, and do not count against the limit
        elif minimum is not None and s.score < minimum:
            detail = f"score {s.score} is below --min-relevance {minimum:g}"
            exclusions[obj.uid] = excluded(obj, R.NOT_RELEVANT, detail)
            continue
        elif limit is not None and trimmable_kept >= limit:
            detail = f"ranked {position}; --limit {limit} keeps the {limit} best-ranked"
            exclusions[obj.uid] = excluded(obj, R.NOT_RELEVANT, detail)
            continue
        else:
            trimmable_kept += 1
        kept.append(at)
        kept_scores.append(s)
    return Ranked(fixed_standing, kept, kept_scores, exclusions)
