"""The whole repository at once: every finding with the roles it affects, every object with
what each declared role gets.

An audit judges the repository at ``as_of`` as ``validate`` does (no role, no scope), and
resolves every declared role once (empty task, no trimming, not historical). It is the
owner's view: it names every object and file, including those a role may not read. Pure:
no text is written here (see :mod:`octui.render.audit`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from octui.bundle.bundle import source_json
from octui.core.enums import ExclusionReason, FateState, Severity
from octui.core.model import ContextObject, Finding, RepositorySource, count_errors
from octui.core.timeutil import format_instant
from octui.load.assemble import Repository
from octui.load.locate import Reader, locate
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Included, Query, Resolution

FindingKey = tuple[str, tuple[str, ...]]
"""How a finding is matched across bundles: its code and ids."""


@dataclass(frozen=True, slots=True)
class Fate:
    """Where one object ends for one role: included at ``rank`` (1-based position in the
    role's bundle), or excluded for ``reason``."""

    state: FateState
    rank: int | None = None
    reason: ExclusionReason | None = None

    def to_json(self) -> dict[str, Any]:
        if self.state is FateState.INCLUDED:
            return {"state": self.state.value, "rank": self.rank}
        return {"state": self.state.value, "reason": self.reason.value if self.reason else None}

    @property
    def cell(self) -> str:
        """``included#N`` or the exclusion reason (the CSV cell)."""
        if self.state is FateState.INCLUDED:
            return f"included#{self.rank}"
        return self.reason.value if self.reason else ""


@dataclass(frozen=True, slots=True)
class AuditFinding:
    """A finding of the repository and the declared roles whose bundle carries it."""

    finding: Finding
    roles: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        f = self.finding
        return {
            "code": f.code.value,
            "severity": f.severity.value,
            "ids": list(f.ids),
            "paths": list(f.paths),
            "line": f.line,
            "message": f.message,
            "hint": f.hint,
            "roles": list(self.roles),
        }


@dataclass(frozen=True, slots=True)
class AuditObject:
    """One object of the repository and its fate for each role (in ``Audit.roles`` order)."""

    obj: ContextObject
    fates: tuple[Fate, ...]

    @property
    def differs(self) -> bool:
        """True when two roles do not get this object the same way (ranks aside)."""
        return len({(f.state, f.reason) for f in self.fates}) > 1

    @property
    def receivers(self) -> int:
        """How many roles include it."""
        return sum(1 for f in self.fates if f.state is FateState.INCLUDED)


@dataclass(frozen=True, slots=True)
class RoleSummary:
    """One role's bundle in counts: objects included, objects excluded by reason, and the
    error and warning findings its bundle carries."""

    role: str
    included: int
    excluded: tuple[tuple[str, int], ...]
    errors: int
    warnings: int

    def to_json(self) -> dict[str, Any]:
        return {
            "included": self.included,
            "excluded": dict(self.excluded),
            "errors": self.errors,
            "warnings": self.warnings,
        }


@dataclass(frozen=True)
class Audit:
    as_of: datetime
    source: RepositorySource
    roles: tuple[str, ...]
    findings: tuple[AuditFinding, ...]
    objects: tuple[AuditObject, ...]
    summary: tuple[RoleSummary, ...]

    @property
    def errors(self) -> int:
        return count_errors(f.finding for f in self.findings)

    @property
    def warnings(self) -> int:
        return len(self.findings) - self.errors

    def to_json(self) -> dict[str, Any]:
        """The document ``opencontext audit --format json`` prints."""
        return {
            "as_of": format_instant(self.as_of),
            "revision": source_json(self.source),
            "roles": list(self.roles),
            "findings": [f.to_json() for f in self.findings],
            "objects": [
                {
                    "id": o.obj.id,
                    "version": o.obj.version,
                    "path": o.obj.path,
                    "source": o.obj.source,
                    "authority": o.obj.authority,
                    "fates": {
                        role: fate.to_json() for role, fate in zip(self.roles, o.fates, strict=True)
                    },
                }
                for o in self.objects
            ],
            "summary": {s.role: s.to_json() for s in self.summary},
        }


def finding_key(f: Finding) -> FindingKey:
    return (f.code.value, f.ids)


def finding_order(f: Finding) -> tuple[int, str, tuple[str, ...], str, tuple[str, ...]]:
    """Errors first, then by code, ids, message and files."""
    return (0 if f.severity is Severity.ERROR else 1, *f.sort_key())


def role_resolutions(
    repo: Repository, as_of: datetime, cache: ResolutionCache | None = None
) -> dict[str, Resolution]:
    """Every declared role resolved once at ``as_of`` (empty task, no trimming, not
    historical), by role name, sorted; ``cache`` is ``repo``'s resolution cache."""
    cache = cache if cache is not None else ResolutionCache(repo)  # the index, once
    return {
        role: resolve(repo, Query(role=role, as_of=as_of), cache)
        for role in sorted(repo.config.roles)
    }


def audit(
    repo: Repository,
    as_of: datetime,
    *,
    read: Reader | None = None,
    resolutions: dict[str, Resolution] | None = None,
    cache: ResolutionCache | None = None,
) -> Audit:
    """Audit ``repo`` at ``as_of``. ``read`` reads the repository's files again to find the
    line of each finding (lines stay None without it); ``resolutions`` may hand in the roles
    already resolved at ``as_of``; ``cache`` is ``repo``'s resolution cache."""
    cache = cache if cache is not None else ResolutionCache(repo)  # the index, once
    whole = resolve(repo, Query(role=None, as_of=as_of), cache)
    by_role = resolutions if resolutions is not None else role_resolutions(repo, as_of, cache)
    roles = tuple(sorted(by_role))
    findings = _findings(whole.warnings, by_role, roles)
    located = locate((f.finding for f in findings), read)
    findings = [AuditFinding(f, a.roles) for f, a in zip(located, findings, strict=True)]
    ranks = {role: _ranks(res.included) for role, res in by_role.items()}
    objects = tuple(
        AuditObject(obj, tuple(_fate(by_role[r], ranks[r], obj) for r in roles))
        for obj in repo.objects
    )
    summary = tuple(_summary(role, by_role[role], objects, i) for i, role in enumerate(roles))
    return Audit(as_of, repo.source, roles, tuple(findings), objects, summary)


def _findings(
    whole: Iterable[Finding], by_role: dict[str, Resolution], roles: tuple[str, ...]
) -> list[AuditFinding]:
    """Every finding of the whole repository, then those only a role's bundle carries (a
    role that cannot read an object's competitor can see a finding the whole repository
    does not have), each with the roles whose bundle carries its code and ids."""
    carried: dict[FindingKey, list[str]] = {}
    role_only: dict[Finding, None] = {}
    whole = list(whole)
    whole_keys = {finding_key(f) for f in whole}
    for role in roles:
        for f in by_role[role].warnings:
            key = finding_key(f)
            holders = carried.setdefault(key, [])
            if not holders or holders[-1] != role:
                holders.append(role)
            if key not in whole_keys:
                role_only.setdefault(f, None)
    everything = sorted([*whole, *role_only], key=finding_order)
    return [AuditFinding(f, tuple(carried.get(finding_key(f), ()))) for f in everything]


def _ranks(included: list[Included]) -> dict[int, int]:
    return {inc.obj.uid: n for n, inc in enumerate(included, start=1)}


def _fate(resolution: Resolution, ranks: dict[int, int], obj: ContextObject) -> Fate:
    rank = ranks.get(obj.uid)
    if rank is not None:
        return Fate(FateState.INCLUDED, rank=rank)
    fate = resolution.fate(obj.uid)
    if fate is None or isinstance(fate, Included):  # pragma: no cover - every object has one
        raise ValueError(f"{obj.key} ({obj.path}) has no fate for role {resolution.query.role}")
    return _EXCLUDED[fate.reason]


_EXCLUDED = {r: Fate(FateState.EXCLUDED, reason=r) for r in ExclusionReason}
"""One excluded fate per reason, shared by every object and role that has it."""


def _summary(
    role: str, resolution: Resolution, objects: tuple[AuditObject, ...], column: int
) -> RoleSummary:
    reasons = Counter(
        reason.value for o in objects if (reason := o.fates[column].reason) is not None
    )
    errors = resolution.error_count
    return RoleSummary(
        role,
        sum(1 for o in objects if o.fates[column].state is FateState.INCLUDED),
        tuple(sorted(reasons.items())),
        errors,
        len(resolution.warnings) - errors,
    )
