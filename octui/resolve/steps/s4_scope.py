"""Step 4, explicit scope (SPEC §2).

"An id matching an ``exclude`` pattern → ``scope-exclusion`` (detail names the
pattern); with ``include`` patterns and none matching → ``not-in-scope``. Patterns are
shell-style globs over the whole id (``*`` also crosses dots)."
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from itertools import compress
from typing import TYPE_CHECKING

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion
from octui.load.config import RoleConfig
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, ScopeVerdicts, excluded
from octui.resolve.steps.tables import NO_INCLUDE, NOT_IN_SCOPE, both, scope_exclusion

if TYPE_CHECKING:
    from octui.resolve.steps.tables import Tables

R = ExclusionReason
_IS_NOT_IN_SCOPE = bytes(NOT_IN_SCOPE) + b"\x01" + bytes(255 - NOT_IN_SCOPE)
"""``bytes.translate`` table of the scope codes: 1 for :data:`NOT_IN_SCOPE`, else 0."""


def scope(index: RepoIndex, reader: Reader, query: Query, standing: list[ContextObject]) -> Outcome:
    """What of ``standing`` is in the role's scope (everything for the whole repository).

    Whether an object is in scope depends on the role alone, so the verdicts the reader
    carries (:attr:`Reader.out_of_scope`, made once per role from the prepared tables) are
    used when present: a new instant only reads each object's code, and shares the
    records of every earlier role and instant."""
    role = reader.role
    if role is None:
        return Outcome(standing)
    verdicts = reader.out_of_scope
    out = Outcome([])
    kept, exclusions = out.standing.append, out.exclusions
    if verdicts is None:
        found = out_of_scope(role, standing)
        for obj in standing:
            exclusion = found.get(obj.uid)
            if exclusion is None:
                kept(obj)
            else:
                exclusions[obj.uid] = exclusion
        return out
    codes, table = verdicts.codes, verdicts.not_in_scope
    for obj in standing:
        uid = obj.uid
        code = codes[uid]
        if not code:
            kept(obj)
        elif code == NOT_IN_SCOPE:
            exclusion = table[uid]
            exclusions[uid] = verdicts.make(obj) if exclusion is None else exclusion
        else:
            exclusions[uid] = excluded(obj, *scope_exclusion(role, obj, code))
    return out


def scope_verdicts(
    role: RoleConfig, tables: Tables, standing: bytes | None = None
) -> ScopeVerdicts:
    """``role``'s verdicts over every object of the repository, read by :func:`scope` at
    each instant: the patterns are matched once per role. With ``standing``, what steps 1–2
    leave as a mask of the repository's objects, the ``not-in-scope`` records of those not
    made yet are made now, once per role, so that no instant pays for them."""
    codes = tables.scope_ids.codes(role)
    records = tables.records
    table = records.table(R.NOT_IN_SCOPE)
    make = partial(records.get, reason=R.NOT_IN_SCOPE, detail=NO_INCLUDE)
    if standing is not None:
        outside = both(_not_in_scope(codes), standing)
        records.each(list(compress(tables.index.objects, outside)), R.NOT_IN_SCOPE, NO_INCLUDE)
    return ScopeVerdicts(codes, table, make)


def not_in_scope_records(roles: Iterable[RoleConfig], tables: Tables) -> list[Exclusion]:
    """The ``not-in-scope`` record of every object outside the scope of one of ``roles``
    (made now where not made yet, as :func:`scope_verdicts` makes a role's): a session
    prepares them for its configured roles, so a role's first visit finds them made."""
    outside = 0
    for role in roles:
        if role.scope.include is not None:
            outside |= int.from_bytes(_not_in_scope(tables.scope_ids.codes(role)), "big")
    objects = tables.index.objects
    mask = outside.to_bytes(len(objects), "big")
    return tables.records.each(list(compress(objects, mask)), R.NOT_IN_SCOPE, NO_INCLUDE)


def _not_in_scope(codes: bytes | list[int]) -> bytes:
    """1 per uid whose scope code is :data:`NOT_IN_SCOPE`, else 0."""
    if type(codes) is bytes:
        return codes.translate(_IS_NOT_IN_SCOPE)
    return bytes(map(NOT_IN_SCOPE.__eq__, codes))  # too many exclude patterns for a byte each


def out_of_scope(role: RoleConfig, objects: list[ContextObject]) -> dict[int, Exclusion]:
    """The exclusion of each of ``objects`` outside ``role``'s scope, by uid (the patterns
    are matched once per id, however many versions and copies hold it)."""
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
        return R.NOT_IN_SCOPE, NO_INCLUDE
    return None
