"""Lexical, deterministic ranking (SPEC §3). No model, no randomness.

Task and fields are tokenized the same way (:mod:`octui.core.tokens`); an object
scores, per field, the number of distinct task tokens that field contains times the
field's weight (content counts at most three matches).

What an object scores depends only on which fields hold which task tokens: a bit mask per
task token (:func:`token_mask`: a bit per short field, :data:`CONTENT_BIT` for the
content) and whether it is L0/L1. :func:`score_of` turns those masks into the score, so
step 8 can compute each distinct pattern of masks once however many objects share it.
"""

from __future__ import annotations

from dataclasses import dataclass

from octui.core.model import ContextObject
from octui.core.tokens import CONTENT_BIT, SMALL_FIELDS, TokenTables, token_mask, token_table

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

_FIELD_WEIGHTS = [(1 << bit, name, WEIGHTS[name]) for bit, name in enumerate(SMALL_FIELDS)]


@dataclass(frozen=True, slots=True)
class Score:
    score: int
    matched: dict[str, list[str]]


def score_of(
    tokens: tuple[str, ...], masks: tuple[int, ...], floor_layer: bool, floor: int
) -> Score:
    """The score of an object whose fields hold ``tokens`` (sorted) as ``masks`` say; L0/L1
    objects (``floor_layer``) score at least ``floor``."""
    total = 0
    matched: dict[str, list[str]] = {}
    if any(masks):
        for bit, name, weight in _FIELD_WEIGHTS:
            hits = [t for t, m in zip(tokens, masks, strict=True) if m & bit]
            if hits:
                matched[name] = hits
                total += weight * len(hits)
        found = [t for t, m in zip(tokens, masks, strict=True) if m & CONTENT_BIT]
        if found:
            found = found[:CONTENT_CAP]
            matched["content"] = found
            total += WEIGHTS["content"] * len(found)
    if floor_layer:
        total = max(total, floor)
    return Score(total, matched)


def score(
    obj: ContextObject, task_tokens: frozenset[str], floor: int, tables: TokenTables | None = None
) -> Score:
    """Score ``obj`` against the task; L0/L1 objects score at least ``floor``. ``tables``
    keeps the token tables (else they are computed for this call)."""
    tokens = tuple(sorted(task_tokens))
    masks: tuple[int, ...] = ()
    if tokens:
        table = tables.get(obj) if tables is not None else token_table(obj)
        masks = tuple(token_mask(table, t) for t in tokens)
    return score_of(tokens, masks, obj.is_floor_layer, floor)
