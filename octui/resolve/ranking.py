"""Lexical, deterministic ranking (SPEC §3). No model, no randomness.

Task and fields are tokenized the same way (:mod:`octui.core.tokens`); an object
scores, per field, the number of distinct task tokens that field contains times the
field's weight (content counts at most three matches).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from octui.core.model import ContextObject
from octui.core.tokens import SMALL_FIELDS, TokenTables, token_table

#: Field weights, strongest signal first.
WEIGHTS: dict[str, int] = {
    "applies_to": 8,
    "tags": 6,
    "title": 5,
    "id": 4,
    "summary": 3,
    "type": 2,
    "content": 1,
}
CONTENT_CAP = 3


def _content_hits(content: tuple[str, ...], task_tokens: frozenset[str]) -> list[str]:
    hits = []
    for token in task_tokens:
        i = bisect_left(content, token)
        if i < len(content) and content[i] == token:
            hits.append(token)
    return hits


@dataclass(frozen=True, slots=True)
class Score:
    score: int
    matched: dict[str, list[str]]


def score(
    obj: ContextObject, task_tokens: frozenset[str], floor: int, tables: TokenTables | None = None
) -> Score:
    """Score ``obj`` against the task; L0/L1 objects score at least ``floor``. ``tables``
    keeps the token tables (else they are computed for this call)."""
    total = 0
    matched: dict[str, list[str]] = {}
    if task_tokens:
        index, content = tables.get(obj) if tables is not None else token_table(obj)
        masks = [(t, m) for t in task_tokens if (m := index.get(t))]
        if masks:
            for bit, name in enumerate(SMALL_FIELDS):
                hits = [t for t, m in masks if m & (1 << bit)]
                if hits:
                    hits.sort()
                    matched[name] = hits
                    total += WEIGHTS[name] * len(hits)
        found = _content_hits(content, task_tokens)
        if found:
            ordered = sorted(found)[:CONTENT_CAP]
            matched["content"] = ordered
            total += WEIGHTS["content"] * len(ordered)
    if obj.is_floor_layer:
        total = max(total, floor)
    return Score(total, matched)
