"""Step 8, relevance (SPEC §2, the order in §3).

    "Only on request: ``--limit N`` keeps the N best-ranked objects that are not L0/L1;
    ``--min-relevance S`` drops those scoring below S. Each trimmed object →
    ``not-relevant``. L0 and L1 are never trimmed."

Ranking orders and never includes: L0, then L1, then score descending, authority rank, id,
version descending; historical objects after all current ones.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion
from octui.core.tokens import tokenize
from octui.resolve.index import RepoIndex
from octui.resolve.ranking import Score, score
from octui.resolve.result import Query
from octui.resolve.steps.base import Reader, excluded

R = ExclusionReason


@dataclass
class Ranked:
    """The objects kept, in bundle order with their scores, and those trimmed (by uid)."""

    kept: list[tuple[ContextObject, Score]]
    exclusions: dict[int, Exclusion]


def relevance(
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    historical: Collection[int] = (),
) -> Ranked:
    """``standing`` in bundle order, current objects before ``historical`` ones (by uid),
    trimmed to ``limit`` / ``min_relevance`` when the query asks."""
    task_tokens = tokenize(query.task)
    floor = index.config.ranking.floor
    tables = index.repo.tokens
    scored = [(o, score(o, task_tokens, floor, tables)) for o in standing]
    current = [p for p in scored if p[0].uid not in historical]
    past = [p for p in scored if p[0].uid in historical]
    # the bundle order as one integer: (layer group, -score) first, then the object's place
    # in the repository's fixed order of (authority rank, id, -version, path)
    groups, places = index.groups, index.places
    width = len(places) + 1

    def order(p: tuple[ContextObject, Score]) -> int:
        uid = p[0].uid
        return ((groups[uid] << 40) - p[1].score) * width + places[uid]

    current.sort(key=order)
    past.sort(key=order)
    ordered = current + past
    limit, minimum = query.limit, query.min_relevance
    if limit is None and minimum is None:
        return Ranked(ordered, {})
    kept: list[tuple[ContextObject, Score]] = []
    exclusions: dict[int, Exclusion] = {}
    trimmable_kept = 0
    for position, (obj, s) in enumerate(ordered, start=1):
        if obj.is_floor_layer:
            kept.append((obj, s))
        elif minimum is not None and s.score < minimum:
            detail = f"score {s.score} is below --min-relevance {minimum:g}"
            exclusions[obj.uid] = excluded(obj, R.NOT_RELEVANT, detail)
        elif limit is not None and trimmable_kept >= limit:
            detail = f"ranked {position}; --limit {limit} keeps the {limit} best-ranked"
            exclusions[obj.uid] = excluded(obj, R.NOT_RELEVANT, detail)
        else:
            trimmable_kept += 1
            kept.append((obj, s))
    return Ranked(kept, exclusions)
