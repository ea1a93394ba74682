"""Resolution (SPEC §2): eight steps, in order; an object leaves at the first step that
excludes it, with that step's reason.

:func:`resolve` reads top to bottom as the specification: steps 1–2 (:func:`admit`: what
the role may read and what of it is approved), steps 3–7 (:func:`judge`: what stands at
the instant), step 8 (:func:`rank`: the bundle order and trimming). Each step is a pure
function in :mod:`octui.resolve.steps`. Steps 1–2 depend on the role alone and steps 3–7
on the role, ``as_of`` and ``include_historical`` alone, so a
:class:`~octui.resolve.cache.ResolutionCache`, when given, keeps their outcomes and a new
task re-runs only step 8; without one everything is computed. The cache also prepares
repository-wide tables (:class:`~octui.resolve.prepared.Prepared`: the whole repository's
supersession graph, the exclusion order, each object's staleness) from which a new role or
instant derives the same answers sooner; without a cache they are computed directly.

``query.role = None`` is the repository-wide judgement of ``opencontext validate``: no
authorization and no scope, every finding with its file.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from operator import attrgetter
from types import MappingProxyType

from octui.core.enums import ExclusionReason, Lifecycle, WarningCode
from octui.core.model import ContextObject, Exclusion, Finding, uid_of
from octui.load.assemble import Repository
from octui.load.config import RoleConfig
from octui.load.heap import gc_paused
from octui.resolve.cache import ResolutionCache, facts_for
from octui.resolve.findings import (
    BrokenReferences,
    broken_references,
    is_stale,
    load_findings,
    reference_findings,
    stale_finding,
    version_findings,
)
from octui.resolve.graph import build_graph
from octui.resolve.graph_whole import restricted_graph
from octui.resolve.index import RepoIndex
from octui.resolve.memo import Memo, ResolutionMemos
from octui.resolve.order import ordered_exclusions
from octui.resolve.prepared import Prepared
from octui.resolve.result import Query, Resolution, UnknownRole, included_each
from octui.resolve.steps.base import Reader
from octui.resolve.steps.s1_authorization import authorization
from octui.resolve.steps.s2_approval import approval
from octui.resolve.steps.s3_temporal import temporal
from octui.resolve.steps.s4_scope import scope, scope_verdicts
from octui.resolve.steps.s5_supersession import supersession
from octui.resolve.steps.s6_competition import competition
from octui.resolve.steps.s7_conflicts import conflicts
from octui.resolve.steps.s8_relevance import relevance


@dataclass(frozen=True)
class Admitted:
    """What steps 1–2 leave one role: who reads (with its graph), the denied and drafts
    excluded, the approved objects standing, and the findings that depend on what it may
    read (broken references, load findings)."""

    reader: Reader
    exclusions: dict[int, Exclusion]
    standing: list[ContextObject]
    findings: list[Finding]


@dataclass(frozen=True)
class Stage:
    """What steps 1–7 leave one (role, as_of, include_historical): everything but ranking."""

    admitted: Admitted
    exclusions: dict[int, Exclusion]
    """Every exclusion of steps 1–7, by uid, in the order the steps made them."""
    findings: list[Finding]
    """Supersession cycles, repeated versions and declared conflicts."""
    historical: dict[int, Lifecycle]
    current: list[ContextObject]
    past: list[ContextObject]
    """The historical objects standing (``include_historical``)."""
    stale: dict[int, bool]
    """``is_stale`` at the stage's instant of every object standing, by uid."""
    untrimmed: tuple[list[Exclusion], list[Finding]]
    """Sorted exclusions and warnings when step 8 trims nothing (they do not depend on the
    task)."""
    memo: Memo = field(default_factory=Memo, compare=False, repr=False)
    """What step 8 and the digest derive from this stage alone (see their modules)."""


BROKEN = ("broken-references",)
"""The cache's key for the repository's broken references (the same for every role)."""


def role_config(repo: Repository, query: Query) -> RoleConfig | None:
    """The query's role as configured (None for the whole repository)."""
    if query.role is None:
        return None
    role = repo.config.roles.get(query.role)
    if role is None:
        raise UnknownRole(query.role, repo.config.roles)
    return role


def resolve(repo: Repository, query: Query, cache: ResolutionCache | None = None) -> Resolution:
    """Resolve ``repo`` for ``query``. Pure: the same inputs give the same resolution, with
    or without ``cache`` (which must belong to ``repo``)."""
    role = role_config(repo, query)
    facts = facts_for(repo, cache)
    with gc_paused():
        index = facts.index()
        prepared = facts.prepared()
        broken = facts.derived(BROKEN, lambda: broken_references(index))
        admitted = facts.role(query.role, lambda: admit(index, role, query, broken, prepared))
        key = (query.role, query.as_of, query.include_historical)
        stage = facts.stage(key, lambda: judge(index, admitted, query, prepared))
        return rank(index, stage, query, prepared, facts.memo)


def admitted_for(repo: Repository, query: Query, cache: ResolutionCache | None) -> Admitted:
    """What steps 1–2 leave the query's role (kept in ``cache`` when given)."""
    role = role_config(repo, query)
    facts = facts_for(repo, cache)
    index = facts.index()
    prepared = facts.prepared()
    broken = facts.derived(BROKEN, lambda: broken_references(index))
    return facts.role(query.role, lambda: admit(index, role, query, broken, prepared))


def admit(
    index: RepoIndex,
    role: RoleConfig | None,
    query: Query,
    broken: BrokenReferences,
    prepared: Prepared | None = None,
) -> Admitted:
    """Steps 1–2, and the supersession graph among what the role may read (``broken``: the
    repository's :func:`~octui.resolve.findings.broken_references`; ``prepared``: the
    cache's repository-wide tables, which give the same answers sooner)."""
    reader = Reader(query.role, role)
    s1 = authorization(index, reader, query, index.objects, prepared)
    s2 = approval(index, reader, query, s1.standing, prepared, s1.mask)
    if prepared is None:
        graph = build_graph(index, s1.standing, set(map(uid_of, s2.standing)))
    else:  # the same graph, derived from the whole repository's (its own approved covers)
        graph = restricted_graph(prepared.graph, s1.standing, s1.exclusions.keys())
    verdicts = None if role is None or prepared is None else scope_verdicts(role, prepared, s2.mask)
    reader = replace(reader, readable=s1.standing, graph=graph, out_of_scope=verdicts)
    denied = set(map(_ID, s1.exclusions.values()))  # step 1 only denies
    findings = reference_findings(broken, s1.standing, denied)
    findings += load_findings(index, s1.standing, reader.whole_repository)
    return Admitted(reader, _joined(s1.exclusions, s2.exclusions), s2.standing, findings)


def _joined(*parts: dict[int, Exclusion]) -> dict[int, Exclusion]:
    """The dict ``a | b | c …`` of the steps' exclusions ``parts``, made in one dict: each
    ``|`` copies every entry made so far again, and each copy touches every record (about
    47,000 records per stage at 50,000 objects)."""
    joined: dict[int, Exclusion] = {}
    for part in parts:
        joined.update(part)
    return joined


@dataclass(frozen=True)
class Judged:
    """What steps 3–7 leave of the objects step 2 left standing, at one instant: the
    current objects kept, the historical ones kept by ``include_historical`` (and their
    lifecycle), every exclusion in the order the steps made them, the supersession cycles
    (step 5's findings, which depend on the role alone) and the other findings."""

    current: list[ContextObject]
    past: list[ContextObject]
    historical: dict[int, Lifecycle]
    exclusions: dict[int, Exclusion]
    cycles: list[Finding]
    findings: list[Finding]


def steps_3_to_7(
    index: RepoIndex,
    reader: Reader,
    query: Query,
    standing: list[ContextObject],
    prepared: Prepared | None = None,
) -> Judged:
    """Steps 3–7, in SPEC order, over ``standing`` (what step 2 left): the one sequence
    :func:`judge` and the agenda's sweep (over a few clusters at a time) both run
    (``prepared``: the cache's repository-wide tables, which give the same answers sooner)."""
    s3 = temporal(index, reader, query, standing, prepared)
    s4 = scope(index, reader, query, s3.standing)
    s5 = supersession(index, reader, query, s4.standing, prepared)
    historical = s5.historical | s3.historical  # expired before superseded
    if historical:  # include_historical kept some: split what stands
        current = [o for o in s5.standing if o.uid not in historical]
        past = [o for o in s5.standing if o.uid in historical]
    else:
        current, past = list(s5.standing), []
    repeated = version_findings(
        index, current, None if prepared is None else prepared.competition.shared
    )
    s6 = competition(index, reader, query, current, prepared)
    s7 = conflicts(index, reader, query, s6.standing, prepared)
    exclusions = _joined(s3.exclusions, s4.exclusions, s5.exclusions, s6.exclusions, s7.exclusions)
    findings = repeated + s6.findings + s7.findings
    return Judged(s7.standing, past, historical, exclusions, s5.findings, findings)


def judge(
    index: RepoIndex, admitted: Admitted, query: Query, prepared: Prepared | None = None
) -> Stage:
    """Steps 3–7 at ``query.as_of`` over what steps 1–2 left standing."""
    judged = steps_3_to_7(index, admitted.reader, query, admitted.standing, prepared)
    historical, past = judged.historical, judged.past
    exclusions = _joined(admitted.exclusions, judged.exclusions)
    findings = judged.cycles + judged.findings
    standing = judged.current + past
    if prepared is None:
        stale = {o.uid: is_stale(index.config, o, query.as_of) for o in standing}
    else:
        stale = prepared.freshness.stale(standing, query.as_of)
    stale_objects = list(compress(standing, stale.values()))  # ``stale`` is in their order
    untrimmed = _sorted(index, exclusions, findings + admitted.findings, prepared, stale_objects)
    current = judged.current
    return Stage(admitted, exclusions, findings, historical, current, past, stale, untrimmed)


def rank(
    index: RepoIndex,
    stage: Stage,
    query: Query,
    prepared: Prepared | None = None,
    memo: Memo | None = None,
) -> Resolution:
    """Step 8 over what steps 1–7 left standing, and the resolution it gives (``prepared``:
    the cache's repository-wide tables; ``memo``: the resolution cache's, where the bundle
    keeps what it derives from the repository)."""
    reader = stage.admitted.reader
    standing, historical = stage.current + stage.past, stage.historical
    fixed = None if prepared is None else prepared.fixed
    s8 = relevance(
        index, reader, query, standing, historical, stage.memo, fixed, len(stage.current)
    )
    at_stage = stage.memo.get(("columns",), lambda: _columns(stage, s8.standing.objects))
    objects, uids = s8.column(s8.standing.objects), s8.column(at_stage[0])
    states, fresh = s8.column(at_stage[1]), s8.column(at_stage[2])
    ranks = map(_SCORE, s8.scores), map(_MATCHED, s8.scores)
    included = included_each(objects, states, fresh, *ranks)
    if not s8.exclusions:
        exclusions, warnings = list(stage.untrimmed[0]), list(stage.untrimmed[1])
    else:
        stale_objects = [i.obj for i in included if i.stale]
        findings = stage.findings + stage.admitted.findings
        trimmed = stage.exclusions | s8.exclusions
        exclusions, warnings = _sorted(index, trimmed, findings, prepared, stale_objects)
    if reader.graph is None:  # pragma: no cover - admit() always builds it
        raise ValueError("supersession graph missing")
    resolution = Resolution(
        query,
        index.repo,
        included,
        exclusions,
        warnings,
        MappingProxyType(stage.exclusions),
        MappingProxyType(s8.exclusions),
        tuple(uids),
        reader.graph,
        index.by_id,
    )
    resolution.memos = ResolutionMemos(memo, stage.memo)
    return resolution


def _columns(
    stage: Stage, standing: list[ContextObject]
) -> tuple[list[int], list[Lifecycle], list[bool]]:
    """The uid, lifecycle and staleness of each of the stage's ``standing`` objects (in
    step 8's standing order): what an entry of the bundle reads of the stage."""
    uids = list(map(uid_of, standing))
    states = list(map(stage.historical.get, uids, repeat(Lifecycle.ACTIVE)))
    return uids, states, list(map(stage.stale.__getitem__, uids))


_ID = attrgetter("id")
_SCORE = attrgetter("score")
_MATCHED = attrgetter("matched")


def _sorted(
    index: RepoIndex,
    exclusions: dict[int, Exclusion],
    findings: list[Finding],
    prepared: Prepared | None = None,
    stale: Sequence[ContextObject] = (),
) -> tuple[list[Exclusion], list[Finding]]:
    """The bundle's exclusions (a denied id once, unavailable sources added) and warnings
    (each once, with a ``stale`` finding for each of ``stale``), in SPEC §5 order (by the
    prepared :attr:`Prepared.order` when there is one: the same list, without sorting every
    record by its full key)."""
    if prepared is None:
        stale_findings = [stale_finding(index.config, o) for o in stale]
        warnings = sorted(set(findings + stale_findings), key=Finding.sort_key)
    else:
        warnings = _warnings(findings, stale, prepared)
    if prepared is not None:
        unavailable = index.repo.unavailable_sources
        return ordered_exclusions(prepared.order, exclusions, unavailable), warnings
    # Records equal by value are one record (a denied id's entry is shared by its copies;
    # any other record names its own file), so identity dedupes without hashing records.
    listed = list({id(e): e for e in exclusions.values()}.values())
    for name, problem in index.repo.unavailable_sources:
        listed.append(Exclusion(name, None, ExclusionReason.SOURCE_UNAVAILABLE, (), problem))
    listed.sort(key=Exclusion.sort_key)
    return listed, warnings


_STALE = WarningCode.STALE.value


def _warnings(
    findings: list[Finding], stale: Sequence[ContextObject], prepared: Prepared
) -> list[Finding]:
    """``findings`` and the ``stale`` findings of ``stale``, each once, in SPEC §5 order.
    Every stale finding names its own file (none equals another) and they all share one
    code, so they are one run of the order, sorted by their prepared keys, between the
    findings whose code sorts before and after theirs."""
    others = sorted(set(findings), key=Finding.sort_key)
    if not stale:
        return others
    cut = bisect_left(others, _STALE, key=_code_value)
    end = bisect_right(others, _STALE, key=_code_value)
    return [*others[:cut], *prepared.freshness.ordered(list(stale)), *others[end:]]


def _code_value(finding: Finding) -> str:
    return finding.code.value
