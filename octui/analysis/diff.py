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

from collections import Counter, defaultdict
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from octui.analysis.diff_result import (
    Diff,
    EntryView,
    ObjectChange,
    SideInfo,
    VersionChange,
    WarningView,
)
from octui.bundle.bundle import digest, object_fields
from octui.core.enums import DENIAL_REASONS, DiffAspect, ExclusionReason, Lifecycle
from octui.core.model import ContextObject, Exclusion, Finding
from octui.core.timeutil import format_instant
from octui.resolve.result import Included, Resolution

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
        return ObjectChange(object_id, None, after, (DiffAspect.ADDED,), receivable=receivable)
    if after is None and before is not None:
        return ObjectChange(object_id, before, None, (DiffAspect.REMOVED,), receivable=receivable)
    assert before is not None and after is not None
    aspects: list[DiffAspect] = []
    changed: tuple[str, ...] = ()
    if before.included and not after.included:
        aspects.append(DiffAspect.NOW_EXCLUDED)
    elif after.included and not before.included:
        aspects.append(DiffAspect.NOW_INCLUDED)
    if before.version is not None and after.version is not None and before.version != after.version:
        aspects.append(DiffAspect.VERSION)
    if not before.included and not after.included:
        if before.reason != after.reason:
            aspects.append(DiffAspect.REASON)
        elif before.related != after.related:
            aspects.append(DiffAspect.RELATED)
    if before.included and after.included:
        if before.lifecycle != after.lifecycle:
            aspects.append(DiffAspect.LIFECYCLE)
        if before.stale != after.stale:
            aspects.append(DiffAspect.STALE)
        if before.authority != after.authority:
            aspects.append(DiffAspect.AUTHORITY)
        changed = _changed_fields(before.obj, after.obj)
        if changed:
            aspects.append(DiffAspect.FIELDS)
        if before.rank != after.rank:
            aspects.append(DiffAspect.RANK)
    if not aspects:
        return None
    aspects.sort(key=_ASPECT_ORDER.__getitem__)
    return ObjectChange(object_id, before, after, tuple(aspects), changed, receivable)


_ASPECT_ORDER = {aspect: i for i, aspect in enumerate(DiffAspect)}


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


included_view = _included_view
excluded_view = _excluded_view
warning_changes = _warning_changes

__all__ = [
    "diff_entries",
    "diff_resolutions",
    "entries",
    "excluded_view",
    "included_view",
    "receivable_ids",
    "warning_changes",
]
