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
from collections.abc import Callable, Iterable
from itertools import compress, repeat
from operator import is_
from typing import TYPE_CHECKING

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion
from octui.load.config import Config
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader
from octui.resolve.steps.tables import NOT

if TYPE_CHECKING:
    from octui.resolve.steps.tables import Access, Tables

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
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    tables: Tables | None = None,
) -> Outcome:
    """What ``reader`` may read of ``standing``; the rest denied (nothing for the whole
    repository). With the prepared ``tables``, each object's denial is read from its
    (access list, classification) class, decided once per class, and the denial records
    are the ones made for an earlier role; over the whole repository, the outcome carries
    what it may read as a mask (:attr:`Outcome.mask`)."""
    if reader.role is None or reader.name is None:
        return Outcome(list(standing))
    config = index.config
    role_name = reader.name
    clearance = config.clearance_rank(reader.role)
    if tables is not None:
        access = tables.access
        verdicts = [read_denial(config, role_name, clearance, o) for o in access.examples]
        classes = access.classes
        whole = standing is index.objects
        if not whole:
            classes = [classes[o.uid] for o in standing]
        denials = bytes(map(list(map(bool, verdicts)).__getitem__, classes))
        mask = denials.translate(NOT)
        denied = list(compress(standing, denials))
        reasons = list(filter(None, map(verdicts.__getitem__, compress(classes, denials))))
        readable = list(compress(standing, mask))
        grouped = _grouped(denied, reasons, access)
        return Outcome(readable, grouped, mask=mask if whole else None)
    # the denial depends on (access list, classification) alone: decided once per pair
    decided: dict[tuple[tuple[str, ...] | None, str], ExclusionReason | None] = {}
    readable = []
    found: list[tuple[ContextObject, ExclusionReason]] = []
    for obj in standing:
        pair = (obj.access_roles, obj.classification)
        if pair in decided:
            denial = decided[pair]
        else:
            denial = decided[pair] = read_denial(config, role_name, clearance, obj)
        if denial is not None:
            found.append((obj, denial))
        else:
            readable.append(obj)
    return _denied(readable, found, lambda i, r: Exclusion(i, None, r))


def _grouped(
    denied: list[ContextObject], reasons: list[ExclusionReason], access: Access
) -> dict[int, Exclusion]:
    """What :func:`_denied` makes of ``denied`` (in the repository's order, each with its
    denial in ``reasons``), by C loops over the prepared ``access`` entries: each id's
    reason (``permission-denied`` when any copy has it, else the last copy's), one entry per
    id shared by its copies, the copies of each id listed together where its first is."""
    ids = [o.id for o in denied]
    final = dict(zip(ids, reasons, strict=True))
    permission = repeat(R.PERMISSION_DENIED)
    final.update(zip(compress(ids, map(is_, reasons, permission)), permission, strict=False))
    records = access.records_of(denied, list(map(final.__getitem__, ids)))
    uids = [o.uid for o in denied]
    if len(final) == len(ids):  # every id denied once: the repository's order
        return dict(zip(uids, records, strict=True))
    first = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1), strict=True))
    places = list(map(first.__getitem__, ids))
    order = sorted(range(len(ids)), key=places.__getitem__)  # stable: copies in order
    return dict(zip(map(uids.__getitem__, order), map(records.__getitem__, order), strict=True))


def _denied(
    readable: list[ContextObject],
    pairs: Iterable[tuple[ContextObject, ExclusionReason]],
    record: Callable[[str, ExclusionReason], Exclusion],
) -> Outcome:
    """The outcome: ``readable``, and one entry per denied id of ``pairs`` (each denied
    object with its denial, in the repository's order) shared by all its copies."""
    denied: dict[str, list[ContextObject]] = defaultdict(list)
    reasons: dict[str, ExclusionReason] = {}
    for obj, denial in pairs:
        denied[obj.id].append(obj)
        if reasons.get(obj.id) is not R.PERMISSION_DENIED:
            reasons[obj.id] = denial
    exclusions: dict[int, Exclusion] = {}
    for object_id, copies in denied.items():
        # one entry per denied id, shared by all its copies: how many there are stays hidden
        entry = record(object_id, reasons[object_id])
        for obj in copies:
            exclusions[obj.uid] = entry
    return Outcome(readable, exclusions)
