"""The values a diff is made of: one bundle entry as a diff sees it (:class:`EntryView`),
what changed for one object (:class:`ObjectChange`), what produced each side
(:class:`SideInfo`) and the whole comparison (:class:`Diff`); their JSON is what
``opencontext diff --format json`` prints. Computed by :mod:`octui.analysis.diff`."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from typing import Any

from octui.bundle.bundle import object_fields
from octui.core.enums import DENIAL_REASONS, DiffAspect
from octui.core.model import ContextObject


@dataclass(frozen=True, slots=True)
class EntryView:
    """One bundle entry as a diff sees it: an included object or an exclusion."""

    id: str
    version: int | None
    included: bool
    reason: str | None = None
    related: tuple[str, ...] = ()
    detail: str | None = None
    authority: str | None = None
    lifecycle: str | None = None
    stale: bool = False
    rank: int | None = None
    score: int | None = None
    path: str | None = None
    obj: ContextObject | None = field(default=None, compare=False, repr=False)
    """The included object (never set for exclusions); its fields are compared lazily."""

    @property
    def label(self) -> str:
        return self.id if self.version is None else f"{self.id}@{self.version}"

    @property
    def denied(self) -> bool:
        return self.reason in DENIAL_REASONS

    @property
    def state(self) -> str:
        """``included`` (with its lifecycle when not active) or the exclusion reason."""
        if self.included:
            return (
                "included" if self.lifecycle in (None, "active") else f"included ({self.lifecycle})"
            )
        return self.reason or "excluded"

    def to_json(self) -> dict[str, Any]:
        if self.included:
            return {
                "state": "included",
                "version": self.version,
                "authority": self.authority,
                "lifecycle": self.lifecycle,
                "stale": self.stale,
                "rank": self.rank,
                "score": self.score,
                "path": self.path,
            }
        if self.denied:
            return {"state": "excluded", "version": None, "reason": self.reason}
        return {
            "state": "excluded",
            "version": self.version,
            "reason": self.reason,
            "related": list(self.related),
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class ObjectChange:
    """What changed for one object between side A (``before``) and side B (``after``)."""

    id: str
    before: EntryView | None
    after: EntryView | None
    aspects: tuple[DiffAspect, ...]
    changed_fields: tuple[str, ...] = ()
    receivable: bool = True
    """Whether the role may read the object and has its id in scope on either side: the
    change is about something the role could receive, not a never-visible exclusion."""

    @property
    def primary(self) -> DiffAspect:
        return self.aspects[0]

    @property
    def moved_in(self) -> bool:
        """The object moved into the bundle (added, or now included)."""
        return self.primary.moves_in

    @property
    def moved_out(self) -> bool:
        """The object moved out of the bundle (removed, or now excluded)."""
        return self.primary.moves_out

    @property
    def rank_only(self) -> bool:
        """Only the object's rank moved: it is in both bundles, otherwise unchanged."""
        return self.aspects == (DiffAspect.RANK,)

    def field_values(self) -> dict[str, tuple[Any, Any]]:
        """Each changed field as (old, new), normalised as in the bundle (RFC 3339 instants,
        durations in days, lists as lists)."""
        a = self.before.obj if self.before else None
        b = self.after.obj if self.after else None
        if a is None or b is None or not self.changed_fields:
            return {}
        fa, fb = object_fields(a), object_fields(b)
        return {name: (fa.get(name), fb.get(name)) for name in self.changed_fields}

    def body_diff(self) -> str | None:
        """The unified diff of the body (``content``) when it changed, else None."""
        values = self.field_values()
        if "content" not in values:
            return None
        old, new = (v or "" for v in values["content"])
        label_a = self.before.label if self.before else self.id
        label_b = self.after.label if self.after else self.id
        lines = difflib.unified_diff(
            str(old).splitlines(),
            str(new).splitlines(),
            f"a/{label_a}",
            f"b/{label_b}",
            lineterm="",
        )
        return "\n".join(lines) + "\n"

    def sort_key(self) -> tuple[str, int, int, str]:
        vb = self.before.version if self.before and self.before.version is not None else 0
        va = self.after.version if self.after and self.after.version is not None else 0
        return (self.id, vb, va, ",".join(self.aspects))

    def to_json(self, body: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "version_before": self.before.version if self.before else None,
            "version_after": self.after.version if self.after else None,
            "changes": [aspect.value for aspect in self.aspects],
            "changed_fields": list(self.changed_fields),
            "receivable": self.receivable,
            "before": self.before.to_json() if self.before else None,
            "after": self.after.to_json() if self.after else None,
        }
        if self.changed_fields:
            out["fields"] = {k: [old, new] for k, (old, new) in self.field_values().items()}
            if body:
                out["body_diff"] = self.body_diff()
        return out


@dataclass(frozen=True, slots=True)
class VersionChange:
    """An id included on both sides whose included version(s) differ."""

    id: str
    before: tuple[int, ...]
    after: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "before": list(self.before), "after": list(self.after)}


@dataclass(frozen=True, slots=True)
class WarningView:
    code: str
    severity: str
    ids: tuple[str, ...]
    message: str
    hint: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "ids": list(self.ids),
            "message": self.message,
            "hint": self.hint,
        }


@dataclass(frozen=True)
class SideInfo:
    """What produced one side: the query, the revision (None = the files on disk), the digest
    (None where it was not computed: the explorer's agenda never shows its points' digests,
    see :func:`~octui.analysis.agenda.change_agenda`)."""

    role: str | None
    task: str
    as_of: str
    digest: str | None
    rev: str | None = None
    include_historical: bool = False
    limit: int | None = None
    min_relevance: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "task": self.task,
            "as_of": self.as_of,
            "rev": self.rev,
            "include_historical": self.include_historical,
            "limit": self.limit,
            "min_relevance": self.min_relevance,
            "digest": self.digest,
        }


@dataclass(frozen=True)
class Diff:
    a: SideInfo
    b: SideInfo
    objects: tuple[ObjectChange, ...]
    versions: tuple[VersionChange, ...]
    warnings_added: tuple[WarningView, ...]
    warnings_removed: tuple[WarningView, ...]
    hidden: int = 0
    """Changes left out by :meth:`receivable_only` (objects the role can never receive)."""

    @property
    def same(self) -> bool:
        """True when both sides select the same context (equal digests). Sides without
        digests are a change point's, whose bundles differ by construction."""
        return self.a.digest is not None and self.a.digest == self.b.digest

    def by_aspect(self, aspect: DiffAspect) -> list[ObjectChange]:
        return [c for c in self.objects if aspect in c.aspects]

    def summary(self) -> dict[str, int]:
        counts = {aspect.value: len(self.by_aspect(aspect)) for aspect in DiffAspect}
        counts["version-changed-ids"] = len(self.versions)
        counts["warnings-added"] = len(self.warnings_added)
        counts["warnings-removed"] = len(self.warnings_removed)
        return counts

    def receivable_only(self) -> Diff:
        """The changes to what the role could receive (objects it may read and has in scope
        on either side) and its findings; :attr:`hidden` counts the rest."""
        kept = tuple(c for c in self.objects if c.receivable)
        ids = {c.id for c in kept}
        return replace(
            self,
            objects=kept,
            versions=tuple(v for v in self.versions if v.id in ids),
            hidden=self.hidden + len(self.objects) - len(kept),
        )

    def to_json(self, body: bool = False) -> dict[str, Any]:
        return {
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "same": self.same,
            "summary": self.summary(),
            "versions": [v.to_json() for v in self.versions],
            "objects": [c.to_json(body) for c in self.objects],
            "hidden": self.hidden,
            "warnings": {
                "added": [w.to_json() for w in self.warnings_added],
                "removed": [w.to_json() for w in self.warnings_removed],
            },
        }
