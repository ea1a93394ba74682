"""Step 6, authority, version, recency, tie breakers (SPEC §2).

"Objects still standing that share an id compete: lower authority rank loses; then the
configured tie breakers; the source path is the final key, so the order is total.
Losers → ``outranked`` (detail: the winner and the deciding key). ``confidence`` only
ever breaks ties inside one authority level."
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from octui.core.enums import ExclusionReason, TieBreaker
from octui.core.model import ContextObject, Exclusion
from octui.core.timeutil import format_day
from octui.load.config import Config
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded

if TYPE_CHECKING:
    from octui.resolve.steps.tables import Tables

R = ExclusionReason

_KEY_NAMES = {
    TieBreaker.VERSION: "version",
    TieBreaker.UPDATED: "updated",
    TieBreaker.CREATED: "created",
    TieBreaker.CONFIDENCE: "confidence",
    TieBreaker.ID: "id",
}


def competition_key(config: Config, obj: ContextObject) -> tuple[Any, ...]:
    """Sort key among objects sharing an id: smallest wins. Total: the path is last."""
    key: list[Any] = [config.authority_rank(obj.authority)]
    for breaker in config.authority.tie_breakers:
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


def _key_labels(config: Config) -> list[str]:
    return ["authority", *(_KEY_NAMES[b] for b in config.authority.tie_breakers), "path"]


def _describe_value(obj: ContextObject, name: str) -> str:
    value: Any = obj.path if name == "path" else getattr(obj, name, None)
    if name == "authority":
        return obj.authority or "none"
    if isinstance(value, datetime):
        return format_day(value)
    return "none" if value is None else str(value)


def competition(
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    tables: Tables | None = None,
) -> Outcome:
    """The winner of each id among ``standing``; every other object holding it outranked
    (with the prepared ``tables``: each object's key made once per repository, and only
    the objects of shared ids looked at)."""
    config = index.config
    exclusions: dict[int, Exclusion] = {}
    key_of: Callable[[ContextObject], tuple[Any, ...]]
    if tables is None:
        groups = index.by_shared_id(standing)
        key_of = partial(competition_key, config)
    else:
        groups = index.by_shared_id(standing, tables.competition.shared)
        key_of = tables.competition.key
    labels = _key_labels(config)
    for group in groups.values():
        if len(group) < 2:
            continue
        ranked = sorted(group, key=key_of)
        winner = ranked[0]
        win_key = key_of(winner)
        for loser in ranked[1:]:
            lose_key = key_of(loser)
            deciding = next(
                i for i, (a, b) in enumerate(zip(win_key, lose_key, strict=True)) if a != b
            )
            name = labels[deciding]
            winner_name = (
                winner.key if winner.key != loser.key else f"{winner.key} in {winner.path}"
            )
            exclusions[loser.uid] = excluded(
                loser,
                R.OUTRANKED,
                f"by {winner_name}: {name} {_describe_value(winner, name)} over "
                f"{_describe_value(loser, name)}",
                [winner.key],
            )
    kept = [o for o in standing if o.uid not in exclusions] if exclusions else list(standing)
    return Outcome(kept, exclusions)
