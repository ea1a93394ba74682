"""Step 5, supersession (SPEC §2).

    "Declared only; a higher version never implies it. […] An edge takes effect at the
    replacement's effective start, and only if the replacement passed steps 1–2 for this
    role. Once in effect it stays in effect, even after the replacement expires: a broken
    chain must never resurrect retired policy. An object with an edge in effect →
    ``superseded`` (detail: by whom)."

Edges on a cycle are ignored, each cycle a finding (:mod:`octui.resolve.graph`). With
``include_historical``, an object that would be ``superseded`` is kept instead, marked with
that lifecycle.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from typing import TYPE_CHECKING

from octui.core.enums import ExclusionReason, Lifecycle
from octui.core.model import ContextObject, uid_of
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded

if TYPE_CHECKING:
    from octui.resolve.steps.tables import Tables


def supersession(
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    tables: Tables | None = None,
) -> Outcome:
    """What of ``standing`` no replacement supersedes at ``query.as_of``, judged on the
    reader's supersession graph (:attr:`Reader.graph`), each object's keys in effect bisected
    from its :class:`~octui.resolve.graph.Timeline`. With the prepared ``tables``, only the
    objects some declaration could reach (:attr:`WholeGraph.replaceable`) are asked."""
    graph = reader.graph
    if graph is None:  # pragma: no cover - the engine builds it after step 2
        raise ValueError("supersession graph missing")
    out = Outcome([], findings=list(graph.cycle_findings))
    as_of = query.as_of
    asked: Iterable[ContextObject] = standing
    reachable = None if tables is None else tables.replaceable()
    if reachable is not None:
        asked = compress(standing, map(reachable.__getitem__, map(uid_of, standing)))
    for obj in asked:
        keys = graph.replaced_by(obj, as_of)  # bisected from the object's timeline
        if not keys:
            continue
        if query.include_historical:
            out.historical[obj.uid] = Lifecycle.SUPERSEDED
        elif tables is not None:
            out.exclusions[obj.uid] = tables.records.superseded(obj, keys)
        else:
            detail = "by " + ", ".join(keys)
            out.exclusions[obj.uid] = excluded(obj, ExclusionReason.SUPERSEDED, detail, keys)
    gone = out.exclusions
    out.standing = [o for o in standing if o.uid not in gone] if gone else list(standing)
    return out
