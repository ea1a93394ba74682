"""Comparing two resolutions: what moved in, out, or changed between two bundles.

Pure: :func:`diff_resolutions` reads two :class:`~octui.resolve.engine.Resolution`
values and returns a :class:`Diff`. It sees only what each bundle shows — an
object denied to a side is, on that side, an id and a reason and nothing more.

Identity. Bundle entries are matched by ``(id, version)``: an object that stays
in the repository keeps its place in both bundles, included or excluded, so
``policies.refunds@1`` going from included to ``superseded`` is one change,
not an add and a remove. Entries left unmatched within one id are paired
across versions (an object edited in place from ``@1`` to ``@2`` between two
revisions is a *version* change); only what is still unpaired is added or
removed. A denied entry carries no version, so it is matched by id alone.
Separately, every id included on both sides whose included versions differ
is listed in :attr:`Diff.versions` ("the bundle now carries @2 instead of @1").

Warnings are matched by ``(code, ids)``, counting repeats.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from octui.bundle.bundle import digest, object_fields
from octui.core.enums import DENIAL_REASONS, ExclusionReason, Lifecycle
from octui.core.model import ContextObject, Exclusion, Finding
from octui.core.textsafe import inert
from octui.core.timeutil import format_instant
from octui.resolve.result import Included, Resolution

#: Every kind of change one object can show, in the order they are reported.
ASPECTS: tuple[str, ...] = (
    "added",
    "removed",
    "now-included",
    "now-excluded",
    "version",
    "reason",
    "related",
    "lifecycle",
    "stale",
    "authority",
    "fields",
    "rank",
)


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
    aspects: tuple[str, ...]
    changed_fields: tuple[str, ...] = ()
    receivable: bool = True
    """Whether the role may read the object and has its id in scope on either side: the
    change is about something the role could receive, not a never-visible exclusion."""

    @property
    def primary(self) -> str:
        return self.aspects[0]

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
            "changes": list(self.aspects),
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


def describe_side(role: str | None, task: str, as_of: str, rev: str | None) -> str:
    """One line naming what produced a side of a comparison."""
    parts = [f"role {role}" if role else "whole repository"]
    if task:
        parts.append(f"task {task!r}")
    parts.append(f"as of {as_of}")
    parts.append(f"revision {rev}" if rev else "working tree")
    return ", ".join(parts)


@dataclass(frozen=True)
class SideInfo:
    """What produced one side: the query, the revision (None = the files on disk), the digest."""

    role: str | None
    task: str
    as_of: str
    digest: str
    rev: str | None = None
    include_historical: bool = False
    limit: int | None = None
    min_relevance: float | None = None

    def describe(self) -> str:
        return describe_side(self.role, self.task, self.as_of, self.rev)

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
        """True when both sides select the same context (equal digests)."""
        return self.a.digest == self.b.digest

    def by_aspect(self, aspect: str) -> list[ObjectChange]:
        return [c for c in self.objects if aspect in c.aspects]

    def summary(self) -> dict[str, int]:
        counts = {aspect: len(self.by_aspect(aspect)) for aspect in ASPECTS}
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


# -- views ----------------------------------------------------------------------------------------


def _included_view(inc: Included, rank: int) -> EntryView:
    return EntryView(
        id=inc.obj.id,
        version=inc.obj.version,
        included=True,
        authority=inc.obj.authority,
        lifecycle=_LIFECYCLE_TEXT[inc.lifecycle],
        stale=inc.stale,
        rank=rank,
        score=inc.score,
        path=inc.obj.path,
        obj=inc.obj,
    )


def _changed_fields(a: ContextObject | None, b: ContextObject | None) -> tuple[str, ...]:
    """Names of the §1.3 fields (other than version) that differ between two objects."""
    if a is None or b is None or a is b:
        return ()
    fa, fb = object_fields(a), object_fields(b)
    return tuple(k for k in sorted(set(fa) | set(fb)) if k != "version" and fa.get(k) != fb.get(k))


_REASON_TEXT = {r: r.value for r in ExclusionReason}
_LIFECYCLE_TEXT = {c: c.value for c in Lifecycle}


@lru_cache(maxsize=1 << 16)
def _excluded_view(ex: Exclusion) -> EntryView:
    if ex.reason in DENIAL_REASONS:
        return EntryView(id=ex.id, version=None, included=False, reason=_REASON_TEXT[ex.reason])
    return EntryView(
        id=ex.id,
        version=ex.version,
        included=False,
        reason=_REASON_TEXT[ex.reason],
        related=ex.related,
        detail=ex.detail,
    )


def entries(resolution: Resolution) -> list[EntryView]:
    """Every entry of a bundle: included objects (with their 1-based rank), then exclusions."""
    out = [_included_view(inc, i) for i, inc in enumerate(resolution.included, start=1)]
    out.extend(_excluded_view(ex) for ex in resolution.exclusions)
    return out


def side_info(
    resolution: Resolution, rev: str | None = None, known_digest: str | None = None
) -> SideInfo:
    q = resolution.query
    return SideInfo(
        role=q.role,
        task=q.task,
        as_of=format_instant(q.as_of),
        digest=known_digest or digest(resolution),
        rev=rev,
        include_historical=q.include_historical,
        limit=q.limit,
        min_relevance=q.min_relevance,
    )


# -- matching -------------------------------------------------------------------------------------


def _entry_order(e: EntryView) -> tuple[int, int, str, str, str]:
    return (0 if e.included else 1, e.version or 0, e.reason or "", e.path or "", e.detail or "")


def _pair_group(
    a: list[EntryView], b: list[EntryView]
) -> list[tuple[EntryView | None, EntryView | None]]:
    """Pair the entries of one id: same version first, then across versions, then unpaired."""
    pairs: list[tuple[EntryView | None, EntryView | None]] = []
    left = sorted(a, key=_entry_order)
    right = sorted(b, key=_entry_order)

    # 1. Same version (several files may hold one version: pair in a stable order).
    by_version_r: dict[int | None, list[EntryView]] = defaultdict(list)
    for e in right:
        by_version_r[e.version].append(e)
    rest_left: list[EntryView] = []
    for e in left:
        bucket = by_version_r.get(e.version)
        if bucket:
            pairs.append((e, bucket.pop(0)))
        else:
            rest_left.append(e)
    rest_right = [e for bucket in by_version_r.values() for e in bucket]
    rest_right.sort(key=_entry_order)

    # 2. Denied entries carry no version: pair them with whatever is left of that id.
    # 3. Then across versions: included with included, excluded with excluded, then the rest.
    def take(pred_l: Any, pred_r: Any) -> None:
        nonlocal rest_left, rest_right
        keep_left: list[EntryView] = []
        for e in rest_left:
            match = next((r for r in rest_right if pred_l(e) and pred_r(r)), None)
            if match is None:
                keep_left.append(e)
            else:
                rest_right.remove(match)
                pairs.append((e, match))
        rest_left = keep_left

    # A denied id is one entry however many objects hold it: it stands for each of them.
    denied_left = [e for e in rest_left if e.version is None]
    denied_right = [r for r in rest_right if r.version is None]
    if denied_left and rest_right:
        pairs.extend((denied_left[0], r) for r in rest_right)
        rest_left = [e for e in rest_left if e is not denied_left[0]]
        rest_right = []
    elif denied_right and rest_left:
        pairs.extend((e, denied_right[0]) for e in rest_left)
        rest_right = [r for r in rest_right if r is not denied_right[0]]
        rest_left = []
    take(lambda e: e.included, lambda r: r.included)
    take(lambda e: not e.included, lambda r: not r.included)
    take(lambda e: True, lambda r: True)
    pairs.extend((e, None) for e in rest_left)
    pairs.extend((None, r) for r in rest_right)
    return pairs


def _compare(
    object_id: str, before: EntryView | None, after: EntryView | None, receivable: bool = True
) -> ObjectChange | None:
    if before is None and after is not None:
        return ObjectChange(object_id, None, after, ("added",), receivable=receivable)
    if after is None and before is not None:
        return ObjectChange(object_id, before, None, ("removed",), receivable=receivable)
    assert before is not None and after is not None
    aspects: list[str] = []
    changed: tuple[str, ...] = ()
    if before.included and not after.included:
        aspects.append("now-excluded")
    elif after.included and not before.included:
        aspects.append("now-included")
    if before.version is not None and after.version is not None and before.version != after.version:
        aspects.append("version")
    if not before.included and not after.included:
        if before.reason != after.reason:
            aspects.append("reason")
        elif before.related != after.related:
            aspects.append("related")
    if before.included and after.included:
        if before.lifecycle != after.lifecycle:
            aspects.append("lifecycle")
        if before.stale != after.stale:
            aspects.append("stale")
        if before.authority != after.authority:
            aspects.append("authority")
        changed = _changed_fields(before.obj, after.obj)
        if changed:
            aspects.append("fields")
        if before.rank != after.rank:
            aspects.append("rank")
    if not aspects:
        return None
    order = {name: i for i, name in enumerate(ASPECTS)}
    aspects.sort(key=order.__getitem__)
    return ObjectChange(object_id, before, after, tuple(aspects), changed, receivable)


def _warning_view(w: Finding) -> WarningView:
    return WarningView(w.code.value, w.severity.value, w.ids, w.message, w.hint)


def _surplus(mine: list[Finding], theirs: list[Finding], count: int) -> list[WarningView]:
    """``count`` of ``mine`` not matched in ``theirs``, preferring messages ``theirs`` lacks."""
    messages = Counter(w.message for w in theirs)
    unmatched: list[Finding] = []
    matched: list[Finding] = []
    for w in mine:
        if messages[w.message] > 0:
            messages[w.message] -= 1
            matched.append(w)
        else:
            unmatched.append(w)
    return [_warning_view(w) for w in (unmatched + matched)[:count]]


def _warning_changes(
    a: list[Finding], b: list[Finding]
) -> tuple[tuple[WarningView, ...], tuple[WarningView, ...]]:
    group_a: dict[tuple[str, tuple[str, ...]], list[Finding]] = defaultdict(list)
    group_b: dict[tuple[str, tuple[str, ...]], list[Finding]] = defaultdict(list)
    for w in a:
        group_a[(w.code.value, w.ids)].append(w)
    for w in b:
        group_b[(w.code.value, w.ids)].append(w)
    added: list[WarningView] = []
    removed: list[WarningView] = []
    for key in sorted(set(group_a) | set(group_b)):
        wa, wb = group_a.get(key, []), group_b.get(key, [])
        if len(wb) > len(wa):
            added.extend(_surplus(wb, wa, len(wb) - len(wa)))
        elif len(wa) > len(wb):
            removed.extend(_surplus(wa, wb, len(wa) - len(wb)))
    return tuple(added), tuple(removed)


Receivable = Callable[[str], bool]
"""Whether an id is one the role could receive (readable and in scope) on either side."""


def receivable_ids(a: Resolution, b: Resolution) -> Receivable:
    """The test of :class:`Receivable` for two resolutions: on side A with A's role, or on
    side B with B's role, the id is not denied and the role's scope takes it in."""
    sides = [(_scope_test(r), _denied_ids(r)) for r in (a, b)]
    known: dict[str, bool] = {}

    def test(object_id: str) -> bool:
        found = known.get(object_id)
        if found is None:
            found = known[object_id] = any(
                object_id not in denied and in_scope(object_id) for in_scope, denied in sides
            )
        return found

    return test


def _denied_ids(resolution: Resolution) -> set[str]:
    return {e.id for e in resolution.exclusions if e.reason in DENIAL_REASONS}


def _scope_test(resolution: Resolution) -> Callable[[str], bool]:
    role_name = resolution.query.role
    if role_name is None:
        return lambda _id: True
    role = resolution.repository.config.roles.get(role_name)
    if role is None:  # pragma: no cover - resolve refuses undeclared roles
        return lambda _id: True
    return lambda object_id: role.excluded_by(object_id) is None and role.includes(object_id)


def diff_entries(
    a_entries: list[EntryView],
    b_entries: list[EntryView],
    receivable: Receivable | None = None,
) -> tuple[list[ObjectChange], list[VersionChange]]:
    """Object changes and version changes between two lists of bundle entries."""
    group_a: dict[str, list[EntryView]] = defaultdict(list)
    group_b: dict[str, list[EntryView]] = defaultdict(list)
    for e in a_entries:
        group_a[e.id].append(e)
    for e in b_entries:
        group_b[e.id].append(e)
    changes: list[ObjectChange] = []
    versions: list[VersionChange] = []
    for object_id in sorted(set(group_a) | set(group_b)):
        ea, eb = group_a.get(object_id, []), group_b.get(object_id, [])
        if ea == eb and all(x.obj is y.obj for x, y in zip(ea, eb, strict=True)):
            continue  # the same entries in the same order: nothing changed for this id
        can = receivable(object_id) if receivable is not None else True
        for before, after in _pair_group(ea, eb):
            change = _compare(object_id, before, after, can)
            if change is not None:
                changes.append(change)
        va = tuple(sorted({e.version for e in ea if e.included and e.version is not None}))
        vb = tuple(sorted({e.version for e in eb if e.included and e.version is not None}))
        if va and vb and va != vb:
            versions.append(VersionChange(object_id, va, vb))
    changes.sort(key=ObjectChange.sort_key)
    return changes, versions


def diff_resolutions(
    a: Resolution,
    b: Resolution,
    *,
    rev_a: str | None = None,
    rev_b: str | None = None,
    digest_a: str | None = None,
    digest_b: str | None = None,
) -> Diff:
    """Compare two resolutions (side A = before, side B = after).

    ``digest_a`` / ``digest_b`` may pass digests already computed for ``a`` / ``b``.
    """
    changes, versions = diff_entries(entries(a), entries(b), receivable_ids(a, b))
    added, removed = _warning_changes(a.warnings, b.warnings)
    return Diff(
        a=side_info(a, rev_a, digest_a),
        b=side_info(b, rev_b, digest_b),
        objects=tuple(changes),
        versions=tuple(versions),
        warnings_added=added,
        warnings_removed=removed,
    )


# -- text -----------------------------------------------------------------------------------------

SECTIONS: tuple[tuple[str, str, str], ...] = (
    ("added", "Added (only in B)", "+"),
    ("removed", "Removed (only in A)", "-"),
    ("now-included", "Now included", "+"),
    ("now-excluded", "Now excluded", "-"),
    ("reason", "Exclusion reason changed", "*"),
    ("changed", "Changed", "~"),
    ("rank", "Rank moved", "↕"),
)


def section_of(change: ObjectChange) -> str:
    """The section of :data:`SECTIONS` a change is listed under."""
    first = change.primary
    if first in ("added", "removed", "now-included", "now-excluded", "reason"):
        return first
    if change.aspects == ("rank",):
        return "rank"
    return "changed"


def describe_change(change: ObjectChange) -> str:
    """One line saying what happened to one object."""
    b, a = change.before, change.after
    if b is None and a is not None:
        return f"{a.label}: {_state_text(a)}"
    if a is None and b is not None:
        return f"{b.label}: was {_state_text(b)}"
    assert a is not None and b is not None
    label = b.label if b.version == a.version else f"{change.id}@{b.version}→@{a.version}"
    if b.version is None or a.version is None:
        label = a.label if a.version is not None else b.label
    parts: list[str] = []
    for aspect in change.aspects:
        if aspect in ("now-included", "now-excluded", "reason"):
            parts.append(f"{_state_text(b)} → {_state_text(a)}")
        elif aspect == "version" and not parts:
            parts.append(f"version {b.version} → {a.version}")
        elif aspect == "related":
            parts.append(
                f"{a.reason} {', '.join(b.related) or '-'} → {', '.join(a.related) or '-'}"
            )
        elif aspect == "lifecycle":
            parts.append(f"lifecycle {b.lifecycle} → {a.lifecycle}")
        elif aspect == "stale":
            parts.append("now stale" if a.stale else "no longer stale")
        elif aspect == "authority":
            parts.append(f"authority {b.authority or 'none'} → {a.authority or 'none'}")
        elif aspect == "fields":
            parts.append("changed " + ", ".join(change.changed_fields))
        elif aspect == "rank":
            parts.append(f"rank {b.rank} → {a.rank}")
    return f"{label}: " + "; ".join(parts)


def _state_text(e: EntryView) -> str:
    if e.included:
        text = e.state
        if e.stale:
            text += ", stale"
        return text
    if e.detail:
        return f"{e.reason} ({e.detail})"
    return e.reason or "excluded"


def value_text(value: Any) -> str:
    """A field value as the bundle writes it: strings quoted, lists as lists, null."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def field_lines(change: ObjectChange, body: bool = False) -> list[str]:
    """One line per changed field, old → new; the body's unified diff when ``body``."""
    lines: list[str] = []
    for name, (old, new) in change.field_values().items():
        if name == "content":
            a, b = (len(str(v or "").splitlines()) for v in (old, new))
            hint = "" if body else "; --body shows the diff"
            lines.append(f"content: body changed ({a} → {b} lines{hint})")
        else:
            lines.append(f"{name}: {value_text(old)} → {value_text(new)}")
    if body:
        text = change.body_diff()
        if text:
            lines.extend(text.rstrip("\n").split("\n"))
    return lines


def grouped(
    diff: Diff,
) -> tuple[dict[str, list[ObjectChange]], list[tuple[str, list[ObjectChange]]]]:
    """Each object under exactly one heading: the object changes of every id whose included
    version changed (by id, listed under "Version changed"), then the rest by section."""
    versioned = {v.id for v in diff.versions}
    by_version: dict[str, list[ObjectChange]] = {v.id: [] for v in diff.versions}
    rest: list[ObjectChange] = []
    for change in diff.objects:
        if change.id in versioned:
            by_version[change.id].append(change)
        else:
            rest.append(change)
    sections = [(key, [c for c in rest if section_of(c) == key]) for key, _t, _m in SECTIONS]
    return by_version, [(key, rows) for key, rows in sections if rows]


def render_text(diff: Diff, *, body: bool = False) -> str:
    """The human layout of ``opencontext diff``: each object under one heading, each changed
    field old → new (the body's unified diff with ``body``)."""
    lines = [
        f"A: {diff.a.describe()}",
        f"B: {diff.b.describe()}",
    ]
    if diff.same:
        lines.append("Same context: the two bundles digest identically.")
    by_version, sections = grouped(diff)
    if diff.versions:
        lines.append("Version changed:")
        for v in diff.versions:
            before = ", ".join(f"@{n}" for n in v.before)
            after = ", ".join(f"@{n}" for n in v.after)
            lines.append(f"  ~ {v.id} {before} → {after}")
            for change in by_version[v.id]:
                lines.append(f"      {describe_change(change)}")
                lines.extend(f"        {line}" for line in field_lines(change, body))
    titles = {key: (title, mark) for key, title, mark in SECTIONS}
    for key, rows in sections:
        title, mark = titles[key]
        lines.append(f"{title}:")
        for c in rows:
            lines.append(f"  {mark} {describe_change(c)}")
            lines.extend(f"      {line}" for line in field_lines(c, body))
    if diff.warnings_added:
        lines.append("Warnings added:")
        lines.extend(f"  + {_warning_text(w)}" for w in diff.warnings_added)
    if diff.warnings_removed:
        lines.append("Warnings removed:")
        lines.extend(f"  - {_warning_text(w)}" for w in diff.warnings_removed)
    if not diff.objects and not diff.warnings_added and not diff.warnings_removed:
        lines.append("No differences." if not diff.hidden else "No differences the role sees.")
    if diff.hidden:
        n = diff.hidden
        lines.append(
            f"({n} change{'s' if n != 1 else ''} to objects the role cannot receive not shown; "
            "--all shows every exclusion change)"
        )
    lines.append(f"Digest A: {diff.a.digest}")
    lines.append(f"Digest B: {diff.b.digest}")
    return "\n".join(inert(line, keep_newlines=False) for line in lines) + "\n"


def _warning_text(w: WarningView) -> str:
    mark = "✗" if w.severity == "error" else "⚠"
    ids = " ".join(w.ids)
    return f"{mark} {w.code} {ids}: {w.message}" if ids else f"{mark} {w.code}: {w.message}"


included_view = _included_view
excluded_view = _excluded_view
warning_changes = _warning_changes

__all__ = [
    "ASPECTS",
    "SECTIONS",
    "Diff",
    "EntryView",
    "ObjectChange",
    "SideInfo",
    "VersionChange",
    "WarningView",
    "describe_change",
    "diff_entries",
    "diff_resolutions",
    "entries",
    "excluded_view",
    "field_lines",
    "grouped",
    "included_view",
    "receivable_ids",
    "render_text",
    "section_of",
    "warning_changes",
]
