"""What if: re-resolving a repository under a changed question, bounded and cancellable.

The machinery behind the why-not answers (:mod:`octui.analysis.whynot`) and the
audit view: the fate of one object when the query or the object itself changes
(:func:`what_if`), the first instant at which an object is in the bundle
(:func:`first_included`), the repository as one role may read it
(:func:`visible_to`) and whether a role may read or has in scope an object
(:func:`may_read`, :func:`in_scope`).

Bounded: one answer spends at most :data:`WORK_BUDGET` object-resolutions (the
candidate instants tried and the other roles asked about are capped by
:func:`resolution_budget`). Cancellable: a caller may pass ``cancelled``, a check
made before every re-resolution (:class:`WhyNotCancelled` is raised when it
answers True).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from octui.analysis.agenda_points import sorted_candidates
from octui.core.model import ContextObject, Exclusion
from octui.load.assemble import Repository
from octui.load.config import Config
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Included, Query, Resolution
from octui.resolve.steps.s1_authorization import read_denial

MAX_INSTANTS = 200
"""At most this many candidate instants are tried by :func:`first_included`."""

WORK_BUDGET = 100_000
"""Objects resolved, summed over the re-resolutions of one answer: a repository of
6,000 objects gets 16 what-ifs (about a second), the sample all 200."""

Cancelled = Callable[[], bool]
"""A check made before each re-resolution: True stops the work."""


class WhyNotCancelled(Exception):
    """The caller's ``cancelled`` check said stop (a newer question was asked)."""


def never() -> bool:
    return False


def resolution_budget(repository: Repository) -> int:
    """How many re-resolutions one answer may make: ``WORK_BUDGET`` objects' worth,
    between 1 and ``MAX_INSTANTS``."""
    return max(1, min(MAX_INSTANTS, WORK_BUDGET // max(len(repository.objects), 1)))


def _check(cancelled: Cancelled) -> None:
    if cancelled():
        raise WhyNotCancelled


def may_read(config: Config, role_name: str, obj: ContextObject) -> bool:
    """Step 1 of the pipeline for ``role_name``: access list and clearance."""
    role = config.roles.get(role_name)
    if role is None:
        return False
    return read_denial(config, role_name, config.clearance_rank(role), obj) is None


def in_scope(config: Config, role_name: str, object_id: str) -> bool:
    """Step 4 of the pipeline for ``role_name``: its scope keeps ``object_id``."""
    role = config.roles.get(role_name)
    return role is not None and role.excluded_by(object_id) is None and role.includes(object_id)


def what_if(
    repository: Repository,
    query: Query,
    obj: ContextObject,
    changed: ContextObject | None = None,
    cancelled: Cancelled = never,
    uid: int | None = None,
    cache: ResolutionCache | None = None,
) -> Included | Exclusion | None:
    """The fate of ``obj`` (known as ``uid`` in ``repository`` when that differs from its
    own) when resolving ``query`` (with ``obj`` replaced by ``changed``); ``cache`` is
    ``repository``'s resolution cache (unused for a changed repository)."""
    _check(cancelled)
    if changed is not None:
        objects = [changed if o.uid == obj.uid else o for o in repository.objects]
        repository, cache = replace(repository, objects=objects), None
    return resolve(repository, query, cache).fate(obj.uid if uid is None else uid)


def first_included(
    repository: Repository,
    query: Query,
    obj: ContextObject,
    after: datetime,
    budget: int = MAX_INSTANTS,
    *,
    base: Resolution | None = None,
    cancelled: Cancelled = never,
    cache: ResolutionCache | None = None,
) -> tuple[datetime | None, bool]:
    """The first instant from ``after`` on at which ``obj`` is in the bundle (or None), and
    whether the search gave up after ``budget`` instants.

    The bundle changes only at the dates of the objects the role may read, so those are
    the only instants to try. ``base`` is ``query``'s resolution when the caller has it;
    ``cancelled`` is checked before each instant; ``cache`` is ``repository``'s resolution
    cache (without one, the search makes its own).
    """
    cache = cache if cache is not None else ResolutionCache(repository)
    if base is None:
        _check(cancelled)
        base = resolve(repository, query, cache)
    instants = sorted({c.first_instant for c in sorted_candidates(base)} | {after})
    tried = 0
    for instant in instants:
        if instant < after:
            continue
        if tried >= budget:
            return None, True
        tried += 1
        _check(cancelled)
        fate = resolve(repository, replace(query, as_of=instant), cache).fate(obj.uid)
        if isinstance(fate, Included):
            return instant, False
    return None, False


def visible_to(
    repository: Repository, role_name: str, cache: ResolutionCache | None = None
) -> tuple[Repository, dict[int, int]]:
    """The repository without the objects ``role_name`` may not read, and each remaining
    object's uid there (by its uid in ``repository``); kept in ``cache`` (``repository``'s)
    when given, so asking again gives the same repository."""
    judged, uids, _ = visible_with_cache(repository, role_name, cache)
    return judged, uids


def known_visible_to(
    cache: ResolutionCache | None, role_name: str
) -> tuple[Repository, dict[int, int]] | None:
    """What :func:`visible_to` keeps in ``cache`` for ``role_name``, if it was asked."""
    found = cache.known(("visible-to", role_name)) if cache is not None else None
    return (found[0], found[1]) if found is not None else None


def visible_with_cache(
    repository: Repository, role_name: str, cache: ResolutionCache | None
) -> tuple[Repository, dict[int, int], ResolutionCache]:
    """:func:`visible_to`, with the resolution cache of the repository it gives."""

    def compute() -> tuple[Repository, dict[int, int], ResolutionCache]:
        kept = [o for o in repository.objects if may_read(repository.config, role_name, o)]
        objects = []
        uids = {}
        for new_uid, o in enumerate(kept):
            objects.append(replace(o, uid=new_uid))
            uids[o.uid] = new_uid
        judged = replace(repository, objects=objects)
        return judged, uids, ResolutionCache(judged)

    if cache is None:
        return compute()
    return cache.derived(("visible-to", role_name), compute)


__all__ = [
    "MAX_INSTANTS",
    "WORK_BUDGET",
    "Cancelled",
    "WhyNotCancelled",
    "first_included",
    "in_scope",
    "known_visible_to",
    "may_read",
    "never",
    "resolution_budget",
    "visible_to",
    "visible_with_cache",
    "what_if",
]
