"""The points of the change agenda: the candidate instants (every date of a readable
object at which its bundle might change, with the :class:`Cause` that put it there) and
the :class:`ChangePoint` made of one that really changes the bundle.

Staleness is strict (``stale`` once ``as_of`` is *past* base + window), so a staleness
change holds from just *after* its instant; every other change holds *from* its instant.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from octui.analysis.diff_result import Diff
from octui.core.enums import CauseKind
from octui.core.model import ContextObject, Exclusion
from octui.core.timeutil import BEGINNING_OF_TIME, format_instant
from octui.resolve.findings import fresh_for
from octui.resolve.result import Resolution

EPSILON = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class Cause:
    """Why an instant is a candidate: one date on one object."""

    kind: CauseKind
    key: str
    ids: tuple[str, ...]
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "object": self.key, "detail": self.detail}


@dataclass(frozen=True)
class ChangePoint:
    """One instant at which the bundle changes."""

    at: datetime
    after: bool
    """True when the change holds only strictly after ``at`` (staleness)."""
    causes: tuple[Cause, ...]
    diff: Diff
    """What changes, without the objects that only moved in rank (counted in
    :attr:`rank_moves`): an agenda says what enters, leaves or changes."""
    rank_moves: int = 0
    """How many included objects only moved in rank."""

    @property
    def first_instant(self) -> datetime:
        return self.at + EPSILON if self.after else self.at

    def upcoming(self, as_of: datetime) -> bool:
        return self.first_instant > as_of

    @property
    def receives(self) -> bool:
        """Whether what the role receives changes here: an object enters, leaves or changes
        in the bundle, or a finding is added or removed. Otherwise only exclusion entries
        change (an out-of-scope object starting, a loser's reason)."""
        d = self.diff
        if d.warnings_added or d.warnings_removed:
            return True
        return any(
            (c.before is not None and c.before.included)
            or (c.after is not None and c.after.included)
            for c in d.objects
        )

    def to_json(self, as_of: datetime, everything: bool = True) -> dict[str, Any]:
        """The change; objects that only moved in rank are counted, not listed. Without
        ``everything``, only changes to objects the role could receive are listed."""
        diff = self.diff if everything else self.diff.receivable_only()
        d = diff.to_json()
        return {
            "at": format_instant(self.at),
            "holds": "after" if self.after else "from",
            "first_instant": format_instant(self.first_instant),
            "upcoming": self.upcoming(as_of),
            "causes": [c.to_json() for c in self.causes],
            "digest_before": self.diff.a.digest,
            "digest_after": self.diff.b.digest,
            "summary": d["summary"],
            "versions": d["versions"],
            "objects": d["objects"],
            "rank_moves": self.rank_moves,
            "hidden": d["hidden"],
            "receives": self.receives,
            "warnings": d["warnings"],
        }


@dataclass(frozen=True)
class Candidate:
    """An instant at which the bundle might change, and the dates that put it there."""

    at: datetime
    after: bool
    causes: tuple[Cause, ...]

    @property
    def first_instant(self) -> datetime:
        return self.at + EPSILON if self.after else self.at


def sorted_candidates(resolution: Resolution) -> list[Candidate]:
    """Candidate instants in order, without those at the edge of representable time."""
    out = []
    for (at, after), causes in sorted(candidates(resolution).items(), key=lambda kv: kv[0]):
        try:
            at + EPSILON
            at - EPSILON
        except OverflowError:
            continue
        unique = tuple(sorted(set(causes), key=lambda c: (c.kind, c.key, c.detail)))
        out.append(Candidate(at, after, unique))
    return out


def readable_objects(resolution: Resolution) -> list[ContextObject]:
    """Objects the resolution's role may read (denial does not depend on the instant)."""
    out = []
    for obj in resolution.repository.objects:
        fate = resolution.fates.get(obj.uid)
        if isinstance(fate, Exclusion) and fate.reason.is_denial:
            continue
        out.append(obj)
    return out


def candidates(resolution: Resolution) -> dict[tuple[datetime, bool], list[Cause]]:
    """Every instant at which the bundle might change, with the dates that put it there."""
    config = resolution.repository.config
    found: dict[tuple[datetime, bool], list[Cause]] = defaultdict(list)
    for obj in readable_objects(resolution):
        start = obj.effective_start
        if start != BEGINNING_OF_TIME:
            kind = CauseKind.VALID_FROM if obj.valid_from else CauseKind.CREATED
            found[(start, False)].append(Cause(kind, obj.key, (obj.id,), f"{obj.key} takes effect"))
        if obj.valid_until is not None:
            found[(obj.valid_until, False)].append(
                Cause(CauseKind.VALID_UNTIL, obj.key, (obj.id,), f"{obj.key} expires")
            )
        fresh = fresh_for(config, obj)
        if fresh is not None:
            found[(fresh.until, True)].append(
                Cause(
                    CauseKind.STALE,
                    obj.key,
                    (obj.id,),
                    f"{obj.key} goes stale ({fresh.days}d window)",
                )
            )
    for edge in resolution.edges:
        start = edge.replacement.effective_start
        if start == BEGINNING_OF_TIME:
            continue
        if (edge.replacement.uid, edge.replaced.uid) in resolution.cycle_edges:
            continue
        found[(start, False)].append(
            Cause(
                CauseKind.SUPERSESSION,
                edge.replacement.key,
                (edge.replacement.id, edge.replaced.id),
                f"{edge.replacement.key} supersedes {edge.replaced.key}",
            )
        )
    return found


def _touched_ids(diff: Diff) -> set[str]:
    ids = {c.id for c in diff.objects}
    for w in (*diff.warnings_added, *diff.warnings_removed):
        ids.update(w.ids)
    return ids


def without_rank_moves(diff: Diff) -> tuple[Diff, int]:
    """The diff without the objects that only moved in rank, and how many there were."""
    kept = tuple(c for c in diff.objects if not c.rank_only)
    return replace(diff, objects=kept), len(diff.objects) - len(kept)


def change_point(candidate: Candidate, diff: Diff, rank_moves: int) -> ChangePoint:
    """A change point; its causes are those naming an id that changed (all, if none does)."""
    touched = _touched_ids(diff)
    relevant = tuple(c for c in candidate.causes if touched.intersection(c.ids))
    return ChangePoint(
        candidate.at, candidate.after, relevant or candidate.causes, diff, rank_moves
    )
