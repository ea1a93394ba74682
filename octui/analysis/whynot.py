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

Bounded and cancellable: the what-ifs re-resolve the repository through
:mod:`octui.analysis.whatif`, which caps one answer's work and checks the
caller's ``cancelled`` before every re-resolution.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from octui.analysis.whatif import (
    Cancelled,
    first_included,
    in_scope,
    may_read,
    never,
    resolution_budget,
    visible_with_cache,
    what_if,
)
from octui.core.enums import ExclusionReason, Status
from octui.core.model import ContextObject, Exclusion
from octui.core.timeutil import BEGINNING_OF_TIME, format_day
from octui.core.tokens import tokenize
from octui.load.assemble import Repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.ranking import score
from octui.resolve.result import Included, Query, Resolution

R = ExclusionReason

ASK_AN_OWNER = (
    "This role may not read it, so nothing more about it is shown here. "
    "If it should be shared with this role, ask a repository owner."
)


def _fate_text(fate: Included | Exclusion | None, *, with_detail: bool) -> str:
    if isinstance(fate, Included):
        return "included" if fate.lifecycle.value == "active" else f"included ({fate.lifecycle})"
    if isinstance(fate, Exclusion):
        if with_detail and fate.detail:
            return f"excluded: {fate.reason.value} ({fate.detail})"
        return f"excluded: {fate.reason.value}"
    return "not in the bundle"


def _other_roles(
    resolution: Resolution,
    obj: ContextObject,
    cancelled: Cancelled = never,
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
        repository, uids, cache = visible_with_cache(repository, current, cache)
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
        fate = what_if(repository, query, obj, cancelled=cancelled, uid=seen_uid, cache=cache)
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
    cancelled: Cancelled = never,
    cache: ResolutionCache | None = None,
) -> list[str]:
    """Sentences saying why the object ``uid`` is not in the bundle and what would include it.

    Raises :class:`WhyNotCancelled` as soon as ``cancelled()`` is True (it is checked
    before each re-resolution). ``cache`` is ``repository``'s resolution cache (without
    one, the re-resolutions share one made for the question).
    """
    fate = resolution.fate(uid)
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
    verdict = what_if(ask.repository, query, obj, approved, ask.cancelled)
    return [
        "It is a draft (status: draft): drafts are never included and never supersede.",
        "Approved (status: active), it would be "
        f"{_fate_text(verdict, with_detail=True)} at {format_day(query.as_of)}.",
    ]


def _not_yet_valid(ask: _Ask) -> list[str]:
    query, obj, repository = ask.query, ask.obj, ask.repository
    start = obj.effective_start
    field = "valid_from" if obj.valid_from else "created"
    verdict = what_if(
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


__all__ = ["ASK_AN_OWNER", "why_not"]
