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

from octui.core.enums import ExclusionReason, Lifecycle
from octui.core.model import ContextObject
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded


def supersession(
    index: RepoIndex, reader: Reader, query: Query, standing: list[ContextObject]
) -> Outcome:
    """What of ``standing`` no replacement supersedes at ``query.as_of``, judged on the
    reader's supersession graph (:attr:`Reader.graph`)."""
    graph = reader.graph
    if graph is None:  # pragma: no cover - the engine builds it after step 2
        raise ValueError("supersession graph missing")
    out = Outcome([], findings=list(graph.cycle_findings))
    as_of = query.as_of
    for obj in standing:
        replacements = graph.replacements(obj, as_of)
        if not replacements:
            out.standing.append(obj)
            continue
        keys = sorted({r.key for r in replacements})
        if query.include_historical:
            out.historical[obj.uid] = Lifecycle.SUPERSEDED
            out.standing.append(obj)
        else:
            detail = "by " + ", ".join(keys)
            out.exclusions[obj.uid] = excluded(obj, ExclusionReason.SUPERSEDED, detail, keys)
    return out
