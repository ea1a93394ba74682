"""The explorer's inputs as one immutable value, and the view computed from a resolution.

Textual-free: the app keeps an :class:`Inputs`, turns it into a
:class:`octui.pipeline.Query` and resolves it off the UI thread into a
:class:`View` (everything the panes need, computed once per resolution).
"""

from __future__ import annotations

import calendar
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from octui.bundle import digest
from octui.enums import ExclusionReason
from octui.model import ContextObject, Exclusion
from octui.pipeline import Included, Query, Resolution
from octui.timeutil import now_utc


@dataclass(frozen=True)
class Inputs:
    """What the user has chosen. ``as_of=None`` follows the clock ("now")."""

    role: str | None = None
    task: str = ""
    as_of: datetime | None = None
    chosen: datetime | None = None
    """The instant last chosen, kept while following "now" so one key toggles back."""
    include_historical: bool = False
    strict: bool = False
    limit: int | None = None
    min_relevance: float | None = None

    def query(self, now: datetime | None = None) -> Query:
        return Query(
            role=self.role,
            as_of=self.as_of if self.as_of is not None else (now or now_utc()),
            task=self.task,
            include_historical=self.include_historical,
            limit=self.limit,
            min_relevance=self.min_relevance,
            strict=self.strict,
        )

    def with_as_of(self, when: datetime | None) -> Inputs:
        return replace(self, as_of=when, chosen=when if when is not None else self.chosen)

    def toggle_now(self, now: datetime | None = None) -> Inputs:
        """Between "now" and the chosen instant (today at midnight when none was chosen)."""
        if self.as_of is not None:
            return replace(self, as_of=None, chosen=self.as_of)
        chosen = self.chosen or midnight(now or now_utc())
        return replace(self, as_of=chosen, chosen=chosen)

    def step(self, *, days: int = 0, months: int = 0, now: datetime | None = None) -> Inputs:
        """Move ``as_of`` by days or calendar months (from today's midnight when following now)."""
        base = self.as_of if self.as_of is not None else midnight(now or now_utc())
        moved = add_months(base, months) + timedelta(days=days)
        return replace(self, as_of=moved, chosen=moved)


def midnight(t: datetime) -> datetime:
    u = t.astimezone(UTC)
    return datetime(u.year, u.month, u.day, tzinfo=UTC)


def add_months(t: datetime, months: int) -> datetime:
    """Calendar months; the day is clamped (31 March - 1 month = 28/29 February)."""
    if not months:
        return t
    index = t.year * 12 + (t.month - 1) + months
    year, month0 = divmod(index, 12)
    year = min(max(year, 1), 9999)
    day = min(t.day, calendar.monthrange(year, month0 + 1)[1])
    return t.replace(year=year, month=month0 + 1, day=day)


@dataclass
class View:
    """One resolution, with what the panes need precomputed."""

    resolution: Resolution
    digest: str
    generation: int
    exclusion_uid: dict[int, int] = field(default_factory=dict)
    """``id(exclusion) -> object uid`` (source-unavailable exclusions have none)."""
    reason_counts: Counter[ExclusionReason] = field(default_factory=Counter)

    @property
    def query(self) -> Query:
        return self.resolution.query

    @property
    def included(self) -> list[Included]:
        return self.resolution.included

    @property
    def exclusions(self) -> list[Exclusion]:
        return self.resolution.exclusions

    def object_of(self, item: Included | Exclusion) -> ContextObject | None:
        """The object behind a row; never for a denied exclusion (only id and reason)."""
        if isinstance(item, Included):
            return item.obj
        if item.reason.is_denial:
            return None
        uid = self.exclusion_uid.get(id(item))
        if uid is None:
            return None
        return self.resolution.repository.objects[uid]

    @property
    def errors(self) -> int:
        return sum(1 for w in self.resolution.warnings if w.severity == "error")


def make_view(resolution: Resolution, generation: int) -> View:
    """Compute the view (runs in a worker thread)."""
    uid_of: dict[int, int] = {}
    for uid, fate in resolution.fates.items():
        if isinstance(fate, Exclusion):
            uid_of[id(fate)] = uid
    counts: Counter[ExclusionReason] = Counter(e.reason for e in resolution.exclusions)
    return View(resolution, digest(resolution), generation, uid_of, counts)


def row_key(item: Included | Exclusion) -> tuple[object, ...]:
    """A stable identity for a row across re-resolutions (so selection survives)."""
    if isinstance(item, Included):
        return ("i", item.obj.path)
    return ("x", item.id, item.version or 0)
