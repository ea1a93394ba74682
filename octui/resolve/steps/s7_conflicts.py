"""Step 7, declared conflicts (SPEC §2).

"``conflicts_with`` pairs among objects still standing, deduplicated by unordered pair,
detected when declared on one side only. Different authority: the lower side →
``conflict`` (detail: outranked by the winner), plus a ``conflict-declared`` warning
naming both. Equal authority: neither is guessed away — both stay in the bundle and a
``conflict-ambiguous`` error names both."
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import compress
from typing import TYPE_CHECKING

from octui.core.enums import ExclusionReason, WarningCode
from octui.core.model import ContextObject, Finding, uid_of
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded

if TYPE_CHECKING:
    from octui.resolve.steps.tables import Tables

R = ExclusionReason
W = WarningCode


def _declared_pairs(
    objects: Iterable[ContextObject], by_id: dict[str, ContextObject]
) -> set[tuple[str, str]]:
    """The unordered pairs of standing ids joined by a ``conflicts_with`` on either side."""
    pairs: set[tuple[str, str]] = set()
    for obj in objects:
        for other_id in obj.conflicts_with:
            if other_id != obj.id and other_id in by_id:
                first, second = sorted((obj.id, other_id))
                pairs.add((first, second))
    return pairs


def _ambiguous(a: ContextObject, b: ContextObject, paths: tuple[str, ...]) -> Finding:
    """The ``conflict-ambiguous`` error: both sides share one authority."""
    level = a.authority or "unknown authority"
    return Finding(
        W.CONFLICT_AMBIGUOUS,
        (a.id, b.id),
        f"{a.key} and {b.key} declare a conflict and share one authority ({level}); "
        "neither is guessed away",
        "Supersede one, lower the authority of one, or reconcile their content.",
        paths,
    )


def _settled(
    pair: tuple[str, str], winner: ContextObject, loser: ContextObject, paths: tuple[str, ...]
) -> Finding:
    """The ``conflict-declared`` warning: authority settled the conflict for ``winner``."""
    return Finding(
        W.CONFLICT_DECLARED,
        pair,
        f"{winner.key} ({winner.authority}) and {loser.key} "
        f"({loser.authority or 'unknown authority'}) conflict; "
        f"{winner.id} wins on authority",
        f"{loser.key} is left out wherever {winner.key} stands: reconcile it with "
        f"{winner.id}, retire it, or remove the conflicts_with declaration if they no "
        "longer conflict.",
        paths,
    )


def _outranked_detail(obj: ContextObject, winners: list[ContextObject]) -> str:
    """The exclusion detail of a conflict's lower side: every winner with both authorities."""
    return (
        "outranked by "
        + ", ".join(
            f"{w.key} ({w.authority} over {obj.authority or 'none'})"
            for w in sorted(winners, key=lambda w: w.key)
        )
        + " in a declared conflict"
    )


def conflicts(
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    tables: Tables | None = None,
) -> Outcome:
    """``standing`` without the lower side of each declared conflict; both sides when they
    share one authority, with a finding either way (with the prepared ``tables``, only the
    objects :attr:`~octui.resolve.prepared.Prepared.conflicted` marks are looked at: no
    other can be a side of a declared pair)."""
    rank = index.config.authority_rank
    objects: Iterable[ContextObject] = standing
    if tables is not None:
        marks = tables.conflicted
        objects = list(compress(standing, map(marks.__getitem__, map(uid_of, standing))))
    out = Outcome([])
    by_id = {o.id: o for o in objects}
    losers: dict[int, list[ContextObject]] = defaultdict(list)
    for a_id, b_id in sorted(_declared_pairs(objects, by_id)):
        a, b = by_id[a_id], by_id[b_id]
        ra, rb = rank(a.authority), rank(b.authority)
        paths = tuple(sorted({a.path, b.path}))
        if ra == rb:
            out.findings.append(_ambiguous(a, b, paths))
            continue
        winner, loser = (a, b) if ra < rb else (b, a)
        losers[loser.uid].append(winner)
        out.findings.append(_settled((a_id, b_id), winner, loser, paths))
    for obj in objects:
        winners = losers.get(obj.uid)
        if winners:
            names = sorted(w.key for w in winners)
            out.exclusions[obj.uid] = excluded(
                obj, R.CONFLICT, _outranked_detail(obj, winners), names
            )
    gone = out.exclusions
    out.standing = [o for o in standing if o.uid not in gone] if gone else list(standing)
    return out
