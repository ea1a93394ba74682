"""Step 4, explicit scope (SPEC §2).

"An id matching an ``exclude`` pattern → ``scope-exclusion`` (detail names the
pattern); with ``include`` patterns and none matching → ``not-in-scope``. Patterns are
shell-style globs over the whole id (``*`` also crosses dots)."
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion
from octui.load.config import RoleConfig
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded
from octui.resolve.steps.tables import NOT_IN_SCOPE, scope_exclusion

if TYPE_CHECKING:
    from octui.resolve.steps.tables import Tables

R = ExclusionReason


def scope(index: RepoIndex, reader: Reader, query: Query, standing: list[ContextObject]) -> Outcome:
    """What of ``standing`` is in the role's scope (everything for the whole repository).

    Whether an object is in scope depends on the role alone, so the verdicts the reader
    carries (:attr:`Reader.out_of_scope`, made once per role over what steps 1–2 leave) are
    used when present: a new instant only looks them up, and shares their records."""
    role = reader.role
    if role is None:
        return Outcome(standing)
    verdicts = reader.out_of_scope
    if verdicts is None:
        verdicts = out_of_scope(role, standing)
    out = Outcome([])
    for obj in standing:
        exclusion = verdicts.get(obj.uid)
        if exclusion is None:
            out.standing.append(obj)
        else:
            out.exclusions[obj.uid] = exclusion
    return out


def out_of_scope(
    role: RoleConfig, objects: list[ContextObject], tables: Tables | None = None
) -> dict[int, Exclusion]:
    """The exclusion of each of ``objects`` outside ``role``'s scope, by uid (the patterns
    are matched once per id, however many versions and copies hold it; with the prepared
    ``tables``, once per role over prefix ranges of the sorted ids, and the records of
    ``not-in-scope`` are the ones made for an earlier role)."""
    codes = None if tables is None else tables.scope_ids.codes(role)
    if codes is None or tables is None:
        return _out_of_scope(role, objects)
    records = tables.records
    verdicts: dict[int, Exclusion] = {}
    for obj in objects:
        code = codes[obj.uid]
        if code == NOT_IN_SCOPE:
            verdicts[obj.uid] = records.get(obj, R.NOT_IN_SCOPE, "no include pattern matches")
        elif code:
            verdicts[obj.uid] = excluded(obj, *scope_exclusion(role, obj, code))
    return verdicts


def _out_of_scope(role: RoleConfig, objects: list[ContextObject]) -> dict[int, Exclusion]:
    """:func:`out_of_scope` without prepared tables."""
    verdicts: dict[int, Exclusion] = {}
    by_id: dict[str, tuple[ExclusionReason, str] | None] = {}
    for obj in objects:
        if obj.id in by_id:
            verdict = by_id[obj.id]
        else:
            verdict = by_id[obj.id] = _verdict(role, obj.id)
        if verdict is not None:
            verdicts[obj.uid] = excluded(obj, *verdict)
    return verdicts


def _verdict(role: RoleConfig, object_id: str) -> tuple[ExclusionReason, str] | None:
    """Why ``object_id`` is outside ``role``'s scope (reason and detail), if it is."""
    pattern = role.excluded_by(object_id)
    if pattern is not None:
        return R.SCOPE_EXCLUSION, f'excluded by "{pattern}"'
    if not role.includes(object_id):
        return R.NOT_IN_SCOPE, "no include pattern matches"
    return None
