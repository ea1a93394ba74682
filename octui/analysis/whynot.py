"""Why not: for an excluded object, what would include it, where the data can tell.

Pure: :func:`why_not` reads a resolution and answers in sentences. Answers
come from the configuration (which other roles may read it and have it in
scope), from the object's own dates (the first instant it becomes current),
from the decision that excluded it (the winner, the replacement, the
conflict) and, where that is cheap and exact, from re-resolving a what-if
(the draft approved, the instant it starts).

It never says anything about an object the role may not read: a denied object
gets an "ask an owner" sentence, unless the caller is in whole-repository mode,
in which case it may learn which declared roles could read it. Sentences about
other roles name only their verdict (included, or the reason), never their
details, which could name objects this role may not read.

Bounded and cancellable: the what-ifs re-resolve the repository, so one answer
spends at most :data:`WORK_BUDGET` object-resolutions (the candidate instants it
tries and the other roles it asks about are capped by :func:`resolution_budget`),
and a caller may pass ``cancelled``, a check made before every re-resolution
(:class:`WhyNotCancelled` is raised when it answers True).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from octui.analysis.agenda_points import sorted_candidates
from octui.core.enums import ExclusionReason, Status
from octui.core.model import ContextObject, Exclusion
from octui.core.timeutil import BEGINNING_OF_TIME, format_day
from octui.core.tokens import tokenize
from octui.load.assemble import Repository
from octui.load.config import Config
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.ranking import score
from octui.resolve.result import Included, Query, Resolution
from octui.resolve.steps.s1_authorization import read_denial

R = ExclusionReason

MAX_INSTANTS = 200
"""At most this many candidate instants are tried by :func:`first_included`."""

WORK_BUDGET = 100_000
"""Objects resolved, summed over the re-resolutions of one answer: a repository of
6,000 objects gets 16 what-ifs (about a second), the sample all 200."""

Cancelled = Callable[[], bool]
"""A check made before each re-resolution: True stops the work."""


class WhyNotCancelled(Exception):
    """The caller's ``cancelled`` check said stop (a newer question was asked)."""


def _never() -> bool:
    return False


def resolution_budget(repository: Repository) -> int:
    """How many re-resolutions one answer may make: ``WORK_BUDGET`` objects' worth,
    between 1 and ``MAX_INSTANTS``."""
    return max(1, min(MAX_INSTANTS, WORK_BUDGET // max(len(repository.objects), 1)))


def _check(cancelled: Cancelled) -> None:
    if cancelled():
        raise WhyNotCancelled


ASK_AN_OWNER = (
    "This role may not read it, so nothing more about it is shown here. "
    "If it should be shared with this role, ask a repository owner."
)


def may_read(config: Config, role_name: str, obj: ContextObject) -> bool:
    """Step 1 of the pipeline for ``role_name``: access list and clearance."""
    role = config.roles.get(role_name)
    if role is None:
        return False
    return read_denial(config, role_name, config.clearance_rank(role), obj) is None


def in_scope(config: Config, role_name: str, object_id: str) -> bool:
    role = config.roles.get(role_name)
    return role is not None and role.excluded_by(object_id) is None and role.includes(object_id)


def _fate_text(fate: Included | Exclusion | None, *, with_detail: bool) -> str:
    if isinstance(fate, Included):
        return "included" if fate.lifecycle.value == "active" else f"included ({fate.lifecycle})"
    if isinstance(fate, Exclusion):
        if with_detail and fate.detail:
            return f"excluded: {fate.reason.value} ({fate.detail})"
        return f"excluded: {fate.reason.value}"
    return "not in the bundle"


def _what_if(
    repository: Repository,
    query: Query,
    obj: ContextObject,
    changed: ContextObject | None = None,
    cancelled: Cancelled = _never,
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
    return resolve(repository, query, cache).fates.get(obj.uid if uid is None else uid)


def first_included(
    repository: Repository,
    query: Query,
    obj: ContextObject,
    after: datetime,
    budget: int = MAX_INSTANTS,
    *,
    base: Resolution | None = None,
    cancelled: Cancelled = _never,
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
        fate = resolve(repository, replace(query, as_of=instant), cache).fates.get(obj.uid)
        if isinstance(fate, Included):
            return instant, False
    return None, False


def visible_to(
    repository: Repository, role_name: str, cache: ResolutionCache | None = None
) -> tuple[Repository, dict[int, int]]:
    """The repository without the objects ``role_name`` may not read, and each remaining
    object's uid there (by its uid in ``repository``); kept in ``cache`` (``repository``'s)
    when given, so asking again gives the same repository."""
    judged, uids, _ = _visible(repository, role_name, cache)
    return judged, uids


def known_visible_to(
    cache: ResolutionCache | None, role_name: str
) -> tuple[Repository, dict[int, int]] | None:
    """What :func:`visible_to` keeps in ``cache`` for ``role_name``, if it was asked."""
    found = cache.known(("visible-to", role_name)) if cache is not None else None
    return (found[0], found[1]) if found is not None else None


def _visible(
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


def _other_roles(
    resolution: Resolution,
    obj: ContextObject,
    cancelled: Cancelled = _never,
    cache: ResolutionCache | None = None,
) -> list[str]:
    """What other declared roles that may read ``obj`` and have it in scope get (verdict
    only), for as many of them as the budget allows, judged over what this role may read:
    an object it may not read never changes the answer."""
    repository = resolution.repository
    config = repository.config
    current = resolution.query.role
    seen_uid = obj.uid
    if cache is None or cache.repository is not repository:
        cache = ResolutionCache(repository)  # one for every role asked
    if current is not None:
        repository, uids, cache = _visible(repository, current, cache)
        seen_uid = uids[obj.uid]
    out: list[str] = []
    names = [
        name
        for name in sorted(config.roles)
        if name != current and may_read(config, name, obj) and in_scope(config, name, obj.id)
    ]
    budget = resolution_budget(resolution.repository)
    verdicts: list[str] = []
    for name in names[:budget]:
        query = replace(resolution.query, role=name)
        fate = _what_if(repository, query, obj, cancelled=cancelled, uid=seen_uid, cache=cache)
        verdicts.append(f"{name}: {_fate_text(fate, with_detail=False)}")
    if len(names) > budget:
        verdicts.append(f"{len(names) - budget} more not asked (each one re-resolves)")
    if verdicts:
        out.append(
            "Roles that may read it and have it in scope (judged on what this role may read): "
            + "; ".join(verdicts)
            + "."
        )
    else:
        out.append("No other declared role both may read it and has it in scope.")
    return out


def _forced_authority(obj: ContextObject) -> list[str]:
    if obj.declared_authority is not None and obj.declared_authority != obj.authority:
        return [
            f"Its source {obj.source!r} forces authority {obj.authority} "
            f"(the file claims {obj.declared_authority}); no declaration in the file changes that."
        ]
    return []


@dataclass(frozen=True)
class _Ask:
    """One question: why is ``obj`` (excluded with ``fate``) not in ``resolution``'s bundle."""

    resolution: Resolution
    repository: Repository
    obj: ContextObject
    fate: Exclusion
    cancelled: Cancelled
    cache: ResolutionCache
    """``repository``'s resolution cache, shared by every re-resolution of the question."""

    @property
    def query(self) -> Query:
        return self.resolution.query


def why_not(
    resolution: Resolution,
    repository: Repository,
    uid: int,
    *,
    whole_repository: bool = False,
    cancelled: Cancelled = _never,
    cache: ResolutionCache | None = None,
) -> list[str]:
    """Sentences saying why the object ``uid`` is not in the bundle and what would include it.

    Raises :class:`WhyNotCancelled` as soon as ``cancelled()`` is True (it is checked
    before each re-resolution). ``cache`` is ``repository``'s resolution cache (without
    one, the re-resolutions share one made for the question).
    """
    fate = resolution.fates.get(uid)
    if fate is None:
        return ["It is not part of this resolution."]
    if isinstance(fate, Included):
        return ["It is in the bundle."]
    obj = next((o for o in repository.objects if o.uid == uid), None)
    if fate.reason.is_denial:
        if not whole_repository or obj is None:
            return [ASK_AN_OWNER]
        config = repository.config
        readers = [name for name in sorted(config.roles) if may_read(config, name, obj)]
        if readers:
            return [f"Declared roles that may read it: {', '.join(readers)}."]
        return ["No declared role may read it (its access list and classification exclude all)."]
    if obj is None:
        return [fate.detail or fate.reason.value]
    explain = _BY_REASON.get(fate.reason)
    if explain is None:  # pragma: no cover - source-unavailable has no object
        return [fate.detail or fate.reason.value]
    if cache is None or cache.repository is not repository:
        cache = ResolutionCache(repository)
    return explain(_Ask(resolution, repository, obj, fate, cancelled, cache))


def _unapproved(ask: _Ask) -> list[str]:
    query, obj = ask.query, ask.obj
    approved = replace(obj, status=Status.ACTIVE)
    verdict = _what_if(ask.repository, query, obj, approved, ask.cancelled)
    return [
        "It is a draft (status: draft): drafts are never included and never supersede.",
        "Approved (status: active), it would be "
        f"{_fate_text(verdict, with_detail=True)} at {format_day(query.as_of)}.",
    ]


def _not_yet_valid(ask: _Ask) -> list[str]:
    query, obj, repository = ask.query, ask.obj, ask.repository
    start = obj.effective_start
    field = "valid_from" if obj.valid_from else "created"
    verdict = _what_if(
        repository, replace(query, as_of=start), obj, cancelled=ask.cancelled, cache=ask.cache
    )
    out = [
        f"It becomes valid on {format_day(start)} (its {field}).",
        f"At that instant it would be {_fate_text(verdict, with_detail=True)}.",
    ]
    if isinstance(verdict, Included):
        return out
    budget = resolution_budget(repository)
    own = ask.resolution if ask.resolution.repository is repository else None
    later, exhausted = first_included(
        repository, query, obj, start, budget, base=own, cancelled=ask.cancelled, cache=ask.cache
    )
    if later is not None:
        out.append(f"It would first be in the bundle on {format_day(later)}.")
    elif exhausted:
        out.append(
            f"It is not in the bundle at any of the next {budget} instants at which "
            "the bundle may change (no more are tried: each one re-resolves)."
        )
    else:
        out.append("At no later instant is it in the bundle, as the repository stands.")
    return out


def _expired(ask: _Ask) -> list[str]:
    obj = ask.obj
    start = obj.effective_start
    began = "the beginning" if start == BEGINNING_OF_TIME else format_day(start)
    until = format_day(obj.valid_until) if obj.valid_until else "?"
    return [
        f"It was in effect from {began} until {until} (valid_until is exclusive).",
        f"Nothing brings it back; a new object declaring supersedes: [{obj.key}] "
        "carries it forward. --include-historical shows it, marked expired.",
    ]


def _superseded(ask: _Ask) -> list[str]:
    resolution, uid = ask.resolution, ask.obj.uid
    out: list[str] = []
    for edge in resolution.edges:
        if edge.replaced.uid != uid:
            continue
        if (edge.replacement.uid, edge.replaced.uid) in resolution.cycle_edges:
            continue
        where = (
            f"`supersedes` on {edge.replacement.key}"
            if edge.field == "supersedes"
            else f"`superseded_by` on {edge.declared_on.key}"
        )
        start = edge.replacement.effective_start
        since = "always" if start == BEGINNING_OF_TIME else f"since {format_day(start)}"
        if start <= ask.query.as_of:
            out.append(f"Replaced by {edge.replacement.key} ({where}), in effect {since}.")
    out.append(
        "A supersession stays in effect even after the replacement expires; only removing "
        "the declaration would bring it back. --include-historical shows it, marked superseded."
    )
    return out


def _outranked(ask: _Ask) -> list[str]:
    winner = ", ".join(ask.fate.related) or "another object"
    return [
        f"{winner} wins the competition for {ask.obj.id}: {ask.fate.detail}.",
        f"To make this one current, retire {winner} (valid_until) or declare "
        f"supersedes: [{winner}] on this object.",
        *_forced_authority(ask.obj),
    ]


def _conflict(ask: _Ask) -> list[str]:
    winners = ", ".join(ask.fate.related) or "another object"
    return [
        f"It is in a declared conflict that authority settled for {winners}.",
        f"To include it instead, {winners} must be retired or superseded, or the "
        "conflicts_with declaration removed once their content is reconciled.",
        *_forced_authority(ask.obj),
    ]


def _out_of_scope(ask: _Ask) -> list[str]:
    role = ask.query.role or "this role"
    if ask.fate.reason is R.SCOPE_EXCLUSION:
        first = f"The scope of {role} excludes it ({ask.fate.detail})."
    else:
        first = f"No include pattern in the scope of {role} matches {ask.obj.id}."
    return [first, *_other_roles(ask.resolution, ask.obj, ask.cancelled, ask.cache)]


def _not_relevant(ask: _Ask) -> list[str]:
    query, resolution, fate = ask.query, ask.resolution, ask.fate
    floor = ask.repository.config.ranking.floor
    mine = score(ask.obj, tokenize(query.task), floor).score
    if query.min_relevance is not None and mine < query.min_relevance:
        return [
            f"It scored {mine} for the task; --min-relevance {query.min_relevance:g} "
            f"needs at least {query.min_relevance:g}."
        ]
    kept = [
        inc.score
        for inc in resolution.included
        if not inc.obj.is_floor_layer and inc.lifecycle.value == "active"
    ]
    lowest = min(kept) if kept else None
    match = re.search(r"ranked (\d+)", fate.detail or "")
    text = f"It scored {mine} for the task"
    if lowest is not None:
        text += f"; the lowest-ranked object kept scored {lowest}"
    out = [text + "."]
    if match and query.limit is not None:
        position = int(match.group(1))
        floors = sum(1 for inc in resolution.included if inc.obj.is_floor_layer)
        out.append(f"--limit {max(position - floors, query.limit + 1)} would keep it.")
    return out


_BY_REASON: dict[ExclusionReason, Callable[[_Ask], list[str]]] = {
    R.UNAPPROVED: _unapproved,
    R.NOT_YET_VALID: _not_yet_valid,
    R.EXPIRED: _expired,
    R.SUPERSEDED: _superseded,
    R.OUTRANKED: _outranked,
    R.CONFLICT: _conflict,
    R.SCOPE_EXCLUSION: _out_of_scope,
    R.NOT_IN_SCOPE: _out_of_scope,
    R.NOT_RELEVANT: _not_relevant,
}
"""What explains each reason an object the role may read is left out."""


__all__ = [
    "ASK_AN_OWNER",
    "MAX_INSTANTS",
    "WORK_BUDGET",
    "WhyNotCancelled",
    "first_included",
    "in_scope",
    "known_visible_to",
    "may_read",
    "resolution_budget",
    "visible_to",
    "why_not",
]
