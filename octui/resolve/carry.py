"""Carrying what a :class:`~octui.resolve.cache.ResolutionCache` knows across a reload that
replaced a few objects in place.

When a reload keeps every object but a few, each with the same id, version and path (so
the same place, ``uid``), most of what resolution derived still holds, only with the new
objects in it:

- the :class:`~octui.resolve.index.RepoIndex`, always (its lists name the new objects; the
  fixed order is recomputed when a layer or an authority changed);
- the broken references, when no reference changed;
- what steps 1–2 leave each role, when no field they read changed (:data:`ADMIT_READS`);
  the supersession graph keeps its shape and re-sorts its replacements by their start;
- what steps 3–7 leave, when only the body changed (:data:`STAGE_FREE`);
- the repository-wide tables already prepared that still hold
  (:meth:`~octui.resolve.prepared.Prepared.carried`: the exclusion order, the fixed order
  with its task-token matches, the freshness, the exclusion records), and the digest's
  pieces of every object not replaced.

Everything else starts empty and is computed when asked. Every answer equals a fresh
load's (the session tests compare them after edits of every kind). What is carried is
rebuilt around the new objects — nothing cached is changed — so a thread still resolving
the old repository is never disturbed. When the structures here no longer have the fields
this module knows, nothing is carried (never a stale object in a new cache).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from collections.abc import Set as AbstractSet
from dataclasses import fields, replace
from typing import Any

from octui.core.model import ContextObject, uid_of
from octui.load.assemble import Repository, object_findings
from octui.resolve.cache import NOT_CARRIED, ResolutionCache, Table
from octui.resolve.engine import BROKEN, Admitted, Stage
from octui.resolve.fixed import FixedOrder
from octui.resolve.graph import SupersessionGraph, Timeline, Timelines, _Cover, split_ref
from octui.resolve.index import RepoIndex, _fixed_order
from octui.resolve.memo import Carries, Memo
from octui.resolve.prepared import Freshness
from octui.resolve.steps.base import Reader
from octui.resolve.steps.tables import Contenders, Records, Spans

ADMIT_READS = frozenset(
    {
        "id",
        "version",
        "path",
        "source",
        "access_roles",
        "classification",
        "status",
        "supersedes",
        "superseded_by",
        "conflicts_with",
        "unknown_fields",
        "authority",
        "declared_authority",
    }
)
"""Fields steps 1–2, the role's scope verdicts, the graph's shape and the role's findings
read (a change to any other keeps what steps 1–2 leave)."""
STAGE_FREE = frozenset({"content"})
"""Fields steps 3–7 never read (a change to only these keeps what they leave)."""
REFERENCES = frozenset({"id", "version", "path", "supersedes", "superseded_by", "conflicts_with"})
"""Fields the broken references depend on."""
_FIELDS = [f.name for f in fields(ContextObject) if f.name != "uid"]
_KNOWN = {
    Admitted: {"reader", "exclusions", "standing", "findings"},
    Stage: {
        "admitted",
        "exclusions",
        "findings",
        "historical",
        "current",
        "past",
        "stale",
        "untrimmed",
        "memo",
    },
    Reader: {"name", "role", "readable", "graph", "out_of_scope"},
    SupersessionGraph: {
        "index",
        "readable",
        "component",
        "cyclic",
        "cycle_findings",
        "by_target",
        "by_version",
        "members",
        "copies",
        "shared",
        "remade",
        "_edges",
        "_cycle_edges",
        "_timelines",
        "_own",
    },
}
_FIXED_SLOTS = {
    "_joined",
    "_memo",
    "_tables",
    "_token_tables",
    "floor",
    "groups",
    "objects",
    "uids",
}
"""What :meth:`FixedOrder.carried` copies (and :class:`Freshness`, :class:`Records`,
:class:`Spans` and :class:`Contenders` below, what their own ``carried`` does): a new slot
in any must be carried there before this module carries prepared tables again."""
_INDEX_SLOTS = {
    "by_id",
    "by_version",
    "copies",
    "groups",
    "objects",
    "own_findings",
    "places",
    "repo",
    "shared_ids",
}


def understood() -> bool:
    """Whether the cached structures are the ones this module knows how to carry."""
    return (
        all({f.name for f in fields(cls)} == names for cls, names in _KNOWN.items())
        and set(RepoIndex.__slots__) == _INDEX_SLOTS
        and set(_Cover.__slots__) == {"groups"}
        and set(FixedOrder.__slots__) == _FIXED_SLOTS
        and set(Freshness.__slots__) == {"_after", "_findings", "_keys", "_ranks", "config"}
        and set(Records.__slots__) == {"_superseded", "_tables"}
        and set(Spans.__slots__) == {"_ends", "_ends_at", "_n", "_starts", "_starts_at"}
        and set(Contenders.__slots__) == {"_config", "_key", "_keys", "shared"}
    )


def replaced_uids(old: Repository, new: Repository) -> list[int] | None:
    """The places whose object ``new`` replaced, when it is ``old`` with a few objects
    replaced in place (same configuration object, findings, id, version and path); else
    None."""
    if (
        old.config is not new.config
        or len(old.objects) != len(new.objects)
        or old.invalid_files != new.invalid_files
        or old.unavailable_sources != new.unavailable_sources
        or old.source != new.source
        or old.findings != new.findings
    ):
        return None
    pairs = enumerate(zip(old.objects, new.objects, strict=True))
    changed = [u for u, (a, b) in pairs if a is not b]
    for uid in changed:
        a, b = old.objects[uid], new.objects[uid]
        if (a.id, a.version, a.path, a.uid) != (b.id, b.version, b.path, b.uid):
            return None
    return changed


def changed_fields(old: Repository, new: Repository, uids: list[int]) -> set[str]:
    """The fields that differ between the old and new objects at ``uids``."""
    found: set[str] = set()
    for uid in uids:
        a, b = old.objects[uid], new.objects[uid]
        found.update(n for n in _FIELDS if getattr(a, n) != getattr(b, n))
    return found


def carried(old: ResolutionCache, new: Repository, uids: list[int]) -> ResolutionCache:
    """A cache of ``new`` holding what ``old`` knew that still holds (see the module): the
    index at once, the roles' and stages' entries when first asked for."""
    cache = ResolutionCache(new)
    index = old.known_index()
    if index is None or not understood():
        return cache
    what = changed_fields(old.repository, new, uids)
    fresh = _index(index, new, uids, what)
    replaced = frozenset(uids)
    pending = {
        "roles": _pending(old.roles, what, lambda w: not w & ADMIT_READS),
        "stages": _pending(old.stages, what, lambda w: not w - STAGE_FREE),
    }

    def carry(
        cache: ResolutionCache, table: Table, key: Hashable, entry: tuple[Any, frozenset[str]]
    ) -> Any:
        # The cache is an argument, not a name this closure keeps: the cache keeps the
        # closure, and a cycle between them would outlive the reload (the held heap is
        # exempt from the collector until the next load).
        value = entry[0]
        if table is cache.roles and isinstance(value, Admitted):
            return _admitted(value, fresh, replaced)
        if table is cache.stages and isinstance(value, Stage):
            earlier = value.admitted
            admitted = cache.role(earlier.reader.name, lambda: _admitted(earlier, fresh, replaced))
            return _stage(value, admitted, fresh, uids)
        return NOT_CARRIED  # pragma: no cover - only those two tables are carried

    derived: dict[Hashable, Any] = {}
    broken = old.known(BROKEN)
    if broken is not None and not what & REFERENCES:
        derived[BROKEN] = broken  # uids and findings only: no object in it
    prepared = old.known_prepared()
    if prepared is not None:
        prepared = prepared.carried(fresh, uids, what)
    cache.seed(fresh, derived, pending, carry, prepared)
    _carry_memo(old, cache, uids)
    return cache


def _carry_memo(old: ResolutionCache, new: ResolutionCache, uids: list[int]) -> None:
    """What the old repository's memo keeps that knows how to serve the new one (the digest's
    pieces of every object not replaced); the rest is computed again when asked for."""
    if old.memo is not None and new.memo is not None:
        _carry_into(old.memo, new.memo, new.repository.objects, uids)


def _carry_into(old: Memo, new: Memo, objects: list[ContextObject], uids: list[int]) -> None:
    """Into ``new``, what ``old`` keeps that knows how to serve the repository of
    ``objects`` (its objects at ``uids`` replaced)."""
    replaced = set(uids)
    for key, value in old.items():
        if isinstance(value, Carries):
            new.put(key, value.carried(objects, replaced))


def _pending(
    table: Table, what: set[str], keeps: Callable[[frozenset[str]], bool]
) -> dict[Hashable, tuple[Any, frozenset[str]]]:
    """The entries of ``table`` that still hold after a change of the fields ``what``.
    Only the entries it holds: what it carried and was never asked for is dropped, so a
    carried value only ever names the repository just before (never a chain of them)."""
    changed = frozenset(what)
    if not keeps(changed):
        return {}
    return {key: (value, changed) for key, value in table.items()}


def _index(old: RepoIndex, repo: Repository, uids: list[int], what: set[str]) -> RepoIndex:
    """``old`` with the objects at ``uids`` replaced by ``repo``'s."""
    objects = repo.objects
    index = RepoIndex.__new__(RepoIndex)
    index.repo, index.objects = repo, objects
    ids = {objects[u].id for u in uids}
    keys = {(objects[u].id, objects[u].version) for u in uids}
    index.by_id = dict(old.by_id)
    for i in ids:
        index.by_id[i] = [objects[o.uid] for o in old.by_id[i]]
    index.by_version = dict(old.by_version)
    for k in keys:
        index.by_version[k] = [objects[o.uid] for o in old.by_version[k]]
    index.shared_ids = old.shared_ids
    index.copies = [(k, index.by_version[k] if k in keys else g) for k, g in old.copies]
    own = dict(old.own_findings)
    for uid in uids:
        if what & {"unknown_fields", "authority"} or uid not in own:
            found = object_findings(objects[uid])
            if found:
                own[uid] = found
            else:
                own.pop(uid, None)
    index.own_findings = own
    if what & {"layer", "authority"}:
        index.groups, index.places = _fixed_order(repo)
    else:
        index.groups, index.places = old.groups, old.places
    return index


def _admitted(old: Admitted, index: RepoIndex, replaced: frozenset[int]) -> Admitted:
    reader = old.reader
    readable = _same(reader.readable, index)
    graph = None if reader.graph is None else _graph(reader.graph, index, readable, replaced)
    reader = replace(reader, readable=readable, graph=graph)
    return Admitted(reader, old.exclusions, _same(old.standing, index), old.findings)


def _same(objects: list[ContextObject], index: RepoIndex) -> list[ContextObject]:
    """The objects of ``index`` at the places of ``objects``, in their order (in C loops)."""
    return list(map(index.objects.__getitem__, map(uid_of, objects)))


def _graph(
    old: SupersessionGraph,
    index: RepoIndex,
    readable: list[ContextObject],
    replaced: frozenset[int],
) -> SupersessionGraph:
    """The same graph over the new objects: a cover that holds one of the ``replaced``
    objects is made again around the new ones (whose start an edit may have moved); every
    other cover holds only objects the reload kept, so it is shared, and a table of covers
    none of which is made again is shared whole. Only the covers that can hold a replaced
    object are looked at (those of the ids it supersedes, and of its own id and
    id@version); when none is made again, the timelines made from them are shared too (but
    the replaced objects', which the graph makes again itself), with the whole repository's
    it read."""
    objects, component = index.objects, old.component
    tables: tuple[dict[Any, _Cover], ...] = (old.by_target, old.by_version, old.members, old.copies)
    holding: tuple[set[Any], ...] = (set(), set(), set(), set())
    for uid in replaced:
        obj = old.index.objects[uid]
        for ref in obj.supersedes:
            target, version = split_ref(ref)
            if version is None:
                holding[0].add(target)
            else:
                holding[1].add((target, version))
        holding[2].add(obj.id)
        holding[3].add((obj.id, obj.version))
    made: list[dict[Any, _Cover]] = []
    for table, keys in zip(tables, holding, strict=True):
        remade = {
            key: _Cover((objects[o.uid] for o in held), component)
            for key in keys
            if (cover := table.get(key)) is not None
            and not replaced.isdisjoint(map(uid_of, held := cover.members()))
        }
        made.append({**table, **remade} if remade else table)
    kept: dict[int, Timeline] = {}
    shared: Timelines | None = None  # without it, the graph makes every timeline itself
    own: AbstractSet[int] = frozenset()
    if all(new is old_table for new, old_table in zip(made, tables, strict=True)):
        kept = dict(old._timelines)  # a copy: another thread may be adding to the old one
        for uid in replaced:
            kept.pop(uid, None)
        shared, own = old.shared, old.remade | replaced
    by_target, by_version, members, copies = made
    return SupersessionGraph(
        index,
        readable,
        component,
        old.cyclic,
        old.cycle_findings,
        by_target,
        by_version,
        members,
        copies,
        shared=shared,
        remade=own,
        _timelines=kept,
    )


def _stage(old: Stage, admitted: Admitted, index: RepoIndex, uids: list[int]) -> Stage:
    """The same stage over the new objects, with a new memo holding only what of the old
    one knows how to serve it (:class:`~octui.resolve.memo.Carries`: the hashed exclusions
    and warnings, which read no object): the rest step 8 and the digest kept for it (token
    matches, pieces, digests by task) read the bodies that changed."""
    current, past = _same(old.current, index), _same(old.past, index)
    memo = Memo()
    _carry_into(old.memo, memo, index.objects, uids)
    return replace(old, admitted=admitted, current=current, past=past, memo=memo)
