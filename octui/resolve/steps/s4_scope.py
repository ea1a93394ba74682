"""Step 4, explicit scope (SPEC §2).

"An id matching an ``exclude`` pattern → ``scope-exclusion`` (detail names the
pattern); with ``include`` patterns and none matching → ``not-in-scope``. Patterns are
shell-style globs over the whole id (``*`` also crosses dots)."
"""

from __future__ import annotations

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject
from octui.resolve.index import RepoIndex
from octui.resolve.result import Query
from octui.resolve.steps.base import Outcome, Reader, excluded

R = ExclusionReason


def scope(index: RepoIndex, reader: Reader, query: Query, standing: list[ContextObject]) -> Outcome:
    """What of ``standing`` is in the role's scope (everything for the whole repository)."""
    role = reader.role
    if role is None:
        return Outcome(standing)
    out = Outcome([])
    for obj in standing:
        pattern = role.excluded_by(obj.id)
        if pattern is not None:
            out.exclusions[obj.uid] = excluded(obj, R.SCOPE_EXCLUSION, f'excluded by "{pattern}"')
        elif not role.includes(obj.id):
            out.exclusions[obj.uid] = excluded(obj, R.NOT_IN_SCOPE, "no include pattern matches")
        else:
            out.standing.append(obj)
    return out
