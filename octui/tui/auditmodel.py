"""What the explorer's audit view shows, computed without Textual.

- :class:`AuditCache` keeps one :class:`~octui.analysis.audit.Audit` per loaded repository
  and instant (it resolves every declared role once; the explorer calls it in a thread);
- :class:`FindingsIndex` filters the findings as the user types (code, id, path, role)
  and by severity, over text lowered once;
- :func:`also_on` lists the other findings on the objects a finding names — listed,
  never guessed as a cause;
- :func:`matrix_rows` filters the objects × roles matrix by id glob and "differs between
  roles", sorted by id or by how many roles receive each object;
- :func:`fate_cell` is one matrix cell: a glyph and a short reason.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from fnmatch import fnmatchcase
from pathlib import Path

from octui.analysis.audit import Audit, AuditFinding, AuditObject, Fate, audit
from octui.analysis.whatif import known_visible_to, visible_to
from octui.core.enums import ExclusionReason, FateState, Severity
from octui.load.assemble import Repository
from octui.load.locate import reader_for
from octui.resolve.cache import ResolutionCache

Judged = tuple[Repository, dict[int, int]]
"""What a role may read of a repository, and each object's uid there."""

SEVERITIES = ("all", "error", "warning")
"""The severity filter's values, in the order the key cycles through them."""

SHORT_REASON: dict[ExclusionReason, str] = {
    ExclusionReason.PERMISSION_DENIED: "denied",
    ExclusionReason.CLASSIFICATION_DENIED: "classif",
    ExclusionReason.SCOPE_EXCLUSION: "scope-ex",
    ExclusionReason.NOT_IN_SCOPE: "no-scope",
    ExclusionReason.SUPERSEDED: "supersed",
    ExclusionReason.EXPIRED: "expired",
    ExclusionReason.NOT_YET_VALID: "not-yet",
    ExclusionReason.OUTRANKED: "outrankd",
    ExclusionReason.UNAPPROVED: "unapprvd",
    ExclusionReason.NOT_RELEVANT: "irrelev",
    ExclusionReason.CONFLICT: "conflict",
    ExclusionReason.SOURCE_UNAVAILABLE: "no-src",
}
"""Each exclusion reason in at most 8 cells (the matrix cell; the legend spells them out)."""

INCLUDED_GLYPH = "✓"
DENIED_GLYPH = "⊘"
EXCLUDED_GLYPH = "✗"

LEGEND = (
    f"{INCLUDED_GLYPH} #N included at rank N   "
    f"{DENIED_GLYPH} denied (permission / classification)   "
    f"{EXCLUDED_GLYPH} excluded: "
    + ", ".join(
        f"{SHORT_REASON[r]}={r.value}" for r in ExclusionReason if SHORT_REASON[r] != r.value
    )
)
"""What the matrix glyphs and short reasons mean."""


def fate_cell(fate: Fate) -> tuple[str, str]:
    """``("✓ #3", "green")``, ``("⊘ denied", "red")``, ``("✗ superseded", "yellow")``."""
    if fate.state is FateState.INCLUDED:
        return f"{INCLUDED_GLYPH} #{fate.rank}", "green"
    reason = fate.reason
    if reason is None:  # pragma: no cover - an excluded fate always has a reason
        return EXCLUDED_GLYPH, ""
    if reason.is_denial:
        return f"{DENIED_GLYPH} {SHORT_REASON[reason]}", "red"
    return f"{EXCLUDED_GLYPH} {SHORT_REASON[reason]}", "yellow" if reason in _NEAR else "dim"


_NEAR = {ExclusionReason.SUPERSEDED, ExclusionReason.CONFLICT, ExclusionReason.OUTRANKED}


def fate_sentence(fate: Fate) -> str:
    """One role's fate spelled out (the detail pane's Roles block)."""
    if fate.state is FateState.INCLUDED:
        return f"{INCLUDED_GLYPH} included #{fate.rank}"
    reason = fate.reason.value if fate.reason is not None else "excluded"
    glyph = DENIED_GLYPH if fate.reason is not None and fate.reason.is_denial else EXCLUDED_GLYPH
    return f"{glyph} {reason}"


# -- the audit cache ------------------------------------------------------------------------

INSTANTS = 4
"""Audits kept per repository (following "now" moves the instant every minute)."""


class AuditCache:
    """The audits computed in one run of the explorer; the app owns it.

    One :class:`~octui.analysis.audit.Audit` per loaded repository and instant (it
    resolves every declared role once). Entries hold their repository weakly: a reload
    replaces the repository, and its audits go with it. The repository each role view
    judges the other roles on (:func:`~octui.analysis.whatif.visible_to`) is kept where
    why-not keeps it, in the repository's resolution cache (``cache_for``), so the two
    share one copy.

    Thread-safety: audits are computed in worker threads; every read and write of the
    tables holds the one lock, the computing never does (two threads computing the same
    audit store equal results).
    """

    def __init__(
        self, cache_for: Callable[[Repository], ResolutionCache | None] = lambda repo: None
    ) -> None:
        self._lock = threading.Lock()
        self._audits: dict[int, tuple[weakref.ref[Repository], dict[datetime, Audit]]] = {}
        self._cache_for = cache_for

    def get(self, repo: Repository, as_of: datetime) -> Audit | None:
        """The audit of ``repo`` at ``as_of`` when already computed (None otherwise)."""
        with self._lock:
            entry = self._audits.get(id(repo))
            if entry is None or entry[0]() is not repo:
                return None
            return entry[1].get(as_of)

    def audit(self, repo: Repository, as_of: datetime, root: str | Path | None = None) -> Audit:
        """The audit of ``repo`` at ``as_of``, computed once per repository and instant.
        ``root`` is the repository's folder, read again for the findings' lines (at the
        repository's git commit, if any)."""
        found = self.get(repo, as_of)
        if found is not None:
            return found
        if root is None:
            result = audit(repo, as_of)
        else:
            with reader_for(root, repo.source.commit) as read:
                result = audit(repo, as_of, read=read)
        with self._lock:
            self._prune()
            entry = self._audits.get(id(repo))
            if entry is None or entry[0]() is not repo:
                entry = self._audits[id(repo)] = (weakref.ref(repo), {})
            if len(entry[1]) >= INSTANTS:
                entry[1].clear()
            entry[1][as_of] = result
        return result

    def judged(self, repo: Repository, role: str, *, compute: bool = True) -> Judged | None:
        """What ``role`` may read of ``repo`` and each object's uid there (computed when
        ``compute``, else None until it was); kept in ``repo``'s resolution cache."""
        cache = self._cache_for(repo)
        if not compute:
            return known_visible_to(cache, role)
        return visible_to(repo, role, cache)

    def _prune(self) -> None:
        """Forget the entries of repositories that are gone (the lock is held)."""
        for repo_id in [k for k, (ref, _) in self._audits.items() if ref() is None]:
            del self._audits[repo_id]


# -- findings -------------------------------------------------------------------------------


def where(f: AuditFinding) -> str:
    """``path:line`` of the first file, or the first path, or ""."""
    paths = f.finding.paths
    if not paths:
        return ""
    return f"{paths[0]}:{f.finding.line}" if f.finding.line is not None else paths[0]


def _haystack(f: AuditFinding) -> str:
    w = f.finding
    return "\n".join([w.code.value, *w.ids, *w.paths, *f.roles]).lower()


class FindingsIndex:
    """The audit's findings (already severity-first) with their searchable text."""

    def __init__(self, findings: Sequence[AuditFinding]) -> None:
        self.findings = list(findings)
        self._text = [_haystack(f) for f in self.findings]
        self._errors = [f.finding.severity is Severity.ERROR for f in self.findings]

    def filter(self, text: str = "", severity: str = "all") -> list[AuditFinding]:
        """The findings whose code, an id, a path or a role contains every word of ``text``
        (case-insensitive), of ``severity`` ("all", "error" or "warning")."""
        words = text.lower().split()
        want = None if severity == "all" else severity == "error"
        out = []
        for f, hay, err in zip(self.findings, self._text, self._errors, strict=True):
            if want is not None and err != want:
                continue
            if all(word in hay for word in words):
                out.append(f)
        return out

    def code_counts(self) -> list[tuple[str, int]]:
        """Findings per code, errors' codes first, then by code."""
        counts = Counter(f.finding.code.value for f in self.findings)
        first: dict[str, bool] = {}
        for f in self.findings:
            first.setdefault(f.finding.code.value, f.finding.severity is not Severity.ERROR)
        return sorted(counts.items(), key=lambda kv: (first[kv[0]], kv[0]))


def also_on(a: Audit, f: AuditFinding) -> list[str]:
    """The other findings on the objects ``f`` names, one sentence each, e.g.
    ``also on pricing.team@1: unknown-field 'superseeded_by' at pricing/team.v1.md:17``."""
    ids = set(f.finding.ids)
    if not ids:
        return []
    by_path = {o.obj.path: o.obj for o in a.objects if o.obj.id in ids}
    out = []
    for g in a.findings:
        if g is f or not ids.intersection(g.finding.ids):
            continue
        w = g.finding
        shared = [i for i in w.ids if i in ids]
        labels = [by_path[p].key for p in w.paths if p in by_path and by_path[p].id in ids]
        target = ", ".join(dict.fromkeys(labels or shared))
        what = f"{w.code.value} `{w.key}`" if w.key else w.code.value
        at = f" at {where(g)}" if w.paths else ""
        out.append(f"also on {target}: {what}{at}")
    return out


# -- the matrix -----------------------------------------------------------------------------


SORTS = ("id", "receivers")
"""Matrix orders: by id (then version), or by how many roles receive it (most first)."""


@dataclass(frozen=True)
class MatrixFilter:
    glob: str = ""
    """An id glob (``pricing.*``); "" or ``*`` keeps every object."""
    differs: bool = False
    """Only objects that two roles do not get the same way."""
    sort: str = "id"


def matrix_rows(objects: Sequence[AuditObject], how: MatrixFilter) -> list[AuditObject]:
    """The matrix rows ``how`` keeps, in its order."""
    glob = how.glob.strip()
    rows = [
        o
        for o in objects
        if (not how.differs or o.differs)
        and (
            not glob or glob == "*" or fnmatchcase(o.obj.id, glob if _magic(glob) else f"*{glob}*")
        )
    ]
    if how.sort == "receivers":
        rows.sort(key=lambda o: (-o.receivers, o.obj.id, o.obj.version, o.obj.path))
    else:
        rows.sort(key=lambda o: (o.obj.id, o.obj.version, o.obj.path))
    return rows


def _magic(glob: str) -> bool:
    return any(c in glob for c in "*?[")


def object_fates(a: Audit, uid: int) -> list[tuple[str, Fate]] | None:
    """Each role's fate for the object ``uid`` of the audited repository (None when the
    audit does not hold it)."""
    if not 0 <= uid < len(a.objects):
        return None
    row = a.objects[uid]
    if row.obj.uid != uid:  # pragma: no cover - objects are audited in repository order
        return None
    return list(zip(a.roles, row.fates, strict=True))


def object_line(a: Audit, path: str) -> int | None:
    """The first known finding line in the file ``path`` (where the editor should open)."""
    lines = [
        f.finding.line
        for f in a.findings
        if f.finding.line is not None and f.finding.paths and f.finding.paths[0] == path
    ]
    return min(lines) if lines else None
