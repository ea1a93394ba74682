"""Step 1, authorization (SPEC §2).

"``access.roles`` not naming the role → ``permission-denied``; classification above
the role's clearance → ``classification-denied``. A denied object is removed before
anything else sees it: its exclusion entry holds only its ``id`` and the reason. A
denied id is listed once, however many versions or copies it has
(``permission-denied`` when any copy is denied by ``access.roles``, else
``classification-denied``)."
"""

from __future__ import annotations

from collections import defaultdict

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion
from octui.load.config import Config
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader

R = ExclusionReason


def read_denial(
    config: Config, role_name: str, clearance: int, obj: ContextObject
) -> ExclusionReason | None:
    """Why ``role_name`` (of clearance rank ``clearance``) may not read ``obj``, if it may not:
    the access list first, then the classification."""
    if obj.access_roles is not None and role_name not in obj.access_roles:
        return R.PERMISSION_DENIED
    if config.level_rank(obj.classification) > clearance:
        return R.CLASSIFICATION_DENIED
    return None


def authorization(
    index: RepoIndex, reader: Reader, query: Query, standing: list[ContextObject]
) -> Outcome:
    """What ``reader`` may read of ``standing``; the rest denied (nothing for the whole
    repository)."""
    if reader.role is None or reader.name is None:
        return Outcome(list(standing))
    config = index.config
    role_name = reader.name
    clearance = config.clearance_rank(reader.role)
    readable = []
    denied: dict[str, list[ContextObject]] = defaultdict(list)
    reasons: dict[str, ExclusionReason] = {}
    # the denial depends on (access list, classification) alone: decided once per pair
    decided: dict[tuple[tuple[str, ...] | None, str], ExclusionReason | None] = {}
    for obj in standing:
        pair = (obj.access_roles, obj.classification)
        if pair in decided:
            denial = decided[pair]
        else:
            denial = decided[pair] = read_denial(config, role_name, clearance, obj)
        if denial is not None:
            denied[obj.id].append(obj)
            if reasons.get(obj.id) is not R.PERMISSION_DENIED:
                reasons[obj.id] = denial
        else:
            readable.append(obj)
    exclusions: dict[int, Exclusion] = {}
    for object_id, copies in denied.items():
        # one entry per denied id, shared by all its copies: how many there are stays hidden
        entry = Exclusion(object_id, None, reasons[object_id])
        for obj in copies:
            exclusions[obj.uid] = entry
    return Outcome(readable, exclusions)
