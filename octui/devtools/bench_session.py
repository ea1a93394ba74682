"""The benchmark's in-process figures, each measured by a worker in a process of its own:

- ``warm`` — re-resolution in a loaded :class:`Session`, prepared as the explorer prepares
  it once its first screen is up (:meth:`Session.prepare`, ``prepare_ms``), after changing
  only the task, the role or ``as_of``, each to a value not resolved before, the bundle
  digest included (``task_ms``, ``role_ms``, ``as_of_ms``: median; ``*_max_ms``: worst;
  the best of ``--repeat`` runs of the whole session, see :func:`session_figures`);
  one file edited on disk (a body-only edit, and an edit of a field steps 1–7 read), then
  reload + re-resolve + digest (``edit_body_ms``, ``edit_field_ms``; ``edit_ms`` is the
  worse), the reload told the edited path as the explorer's filesystem watcher tells it;
  the same without the hint, a full scan of the tree (``edit_scan_body_ms``,
  ``edit_scan_field_ms``); the session's peak resident memory after 8 roles × 8 instants
  (``session_peak_mb``). It also checks that every memoised answer equals a resolution of
  the same repository without the memo, and that after the edits the session's answer
  equals one from a fresh load without any cache (``mismatches``);
- ``audit`` — the audit after a load: every declared role resolved once and the findings'
  lines found (``audit_s``, ``audit_roles``);
- ``agenda`` — the 90-day change agenda on a fresh load, as the ``changes`` command makes
  it (every point's digests: ``agenda_s``) and as the explorer makes it (no digest:
  ``agenda_explorer_s``), and each one's ratio to one resolution of a fresh load
  (``agenda_ratio``, ``agenda_explorer_ratio``).

Each ``*_worker`` returns what its process prints as JSON; each ``*_figures`` turns that
answer into the row's figures.
"""

from __future__ import annotations

import os
import re
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from octui.devtools.bench_common import AS_OF, ROLE, TASK, cpu, instant, peak_mb

TASKS = ["password reset", "outage credit", "enterprise pricing", "billing escalation", "api"]
ROLES = ["sales", "engineering", "finance", "legal", "leadership"]
INSTANTS = ["2025-01-15", "2025-07-01", "2024-03-01", "2026-02-01", "2023-10-10"]
PEAK_INSTANTS = [
    "2022-06-01",
    "2023-03-01",
    "2024-01-01",
    "2024-09-01",
    "2025-05-01",
    "2026-01-01",
    "2026-06-01",
    "2027-06-01",
]
AGENDA_DAYS = 90


# -- the session: new inputs, edits, peak memory --------------------------------------------------


def warm_worker(repo: Path) -> dict[str, Any]:
    """Session timings in CPU seconds, in one process holding one loaded session, run as
    the explorer runs it: what each resolution makes joins the held heap (the explorer
    holds each view it makes), see :func:`octui.load.heap.holding_made`."""
    from octui.load.heap import holding_made

    with holding_made():
        return _warm_session(repo)


def _warm_session(repo: Path) -> dict[str, Any]:
    """:func:`warm_worker`'s measurements."""
    from octui.bundle.bundle import digest
    from octui.resolve.result import Query
    from octui.session import Session

    session = Session(repo)
    start = cpu()
    session.load()
    base = Query(role=ROLE, as_of=instant(AS_OF), task=TASK)
    digest(session.resolve(base))
    results: dict[str, Any] = {"load_and_first": cpu() - start, "mismatches": []}
    start = cpu()
    session.prepare(task=TASK)  # as the explorer's prefetch does once its first screen is up
    results["prepare"] = cpu() - start
    asked: list[Query] = []

    def timed(query: Query) -> float:
        t0 = cpu()
        digest(session.resolve(query))
        elapsed = cpu() - t0
        asked.append(query)
        return elapsed

    results["task"] = [timed(replace(base, task=t)) for t in TASKS]
    results["role"] = [timed(replace(base, role=r)) for r in ROLES]
    results["as_of"] = [timed(replace(base, as_of=instant(d))) for d in INSTANTS]
    before = session.loader.parsed_count
    files = sorted(p for p in repo.rglob("*.md") if p.name != "README.md")
    results["edit_body"] = [timed_edit(session, base, files, i, body=True) for i in range(3)]
    results["edit_field"] = [timed_edit(session, base, files, i, body=False) for i in range(3)]
    results["edit_scan_body"] = [
        timed_edit(session, base, files, i, body=True, hint=False) for i in range(3, 6)
    ]
    results["edit_scan_field"] = [
        timed_edit(session, base, files, i, body=False, hint=False) for i in range(3, 6)
    ]
    results["reparsed"] = session.loader.parsed_count - before
    for role in sorted(session.repository.config.roles if session.repository else ()):
        for day in PEAK_INSTANTS:
            digest(session.resolve(Query(role=role, as_of=instant(day), task=TASK)))
    results["peak_mb"] = peak_mb()
    # Checked after the peak was taken, so that the checks do not count in it.
    results["mismatches"] = mismatches(session, repo, [*asked, base], base)
    return results


def mismatches(session: Any, repo: Path, asked: list[Any], base: Any) -> list[str]:
    """The queries whose memoised answer differs from a memo-free resolution, and the base
    query if the edited session differs from a fresh load without any cache."""
    from octui.bundle.bundle import bundle_dict, digest
    from octui.resolve.engine import resolve
    from octui.session import Session

    assert session.repository is not None
    found = []
    for query in asked:
        fresh = resolve(session.repository, query)  # no cache: everything computed
        if digest(fresh) != digest(session.resolve(query)):
            found.append(str(query))
    os.environ["OCTUI_NO_CACHE"] = "1"
    fresh_session = Session(repo)
    fresh_session.load()
    if _comparable(bundle_dict(fresh_session.resolve(base))) != _comparable(
        bundle_dict(session.resolve(base))
    ):
        found.append("after edits: " + str(base))
    return found


def _comparable(bundle: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in bundle.items() if k not in ("bundle_id", "generated_at")}


_CREATED = re.compile(r"^created: (\d{4})-", re.MULTILINE)


def timed_edit(
    session: Any, base: Any, files: list[Path], i: int, *, body: bool, hint: bool = True
) -> float:
    """Edit one file (its body, or its ``created`` year, which step 3 reads); CPU seconds of
    reload + re-resolve + digest. With ``hint`` the reload is told the edited path, as the
    explorer's filesystem watcher tells it (``Session.load(changed=[path])``); without, it
    scans the whole tree."""
    from octui.bundle.bundle import digest

    target = files[(i * 7919 + (0 if body else 3571)) % len(files)]
    text = target.read_text(encoding="utf-8")
    if body:
        text += f"\nEdited by the benchmark ({i}).\n"
    else:
        text = _CREATED.sub(lambda m: f"created: {int(m.group(1)) - 1}-", text, count=1)
    target.write_text(text, encoding="utf-8")
    t0 = cpu()
    session.load([str(target)] if hint else None)
    digest(session.resolve(base))
    return cpu() - t0


def _ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 1)


def session_figures(row: dict[str, Any], answers: list[dict[str, Any]], identical: bool) -> None:
    """The ``warm`` workers' answers into ``row`` (one per ``--repeat`` run of the session,
    each in a fresh process on the same repository, which each run edits again: the same
    files, one more line and one more year back each time). Each timing is the best run's: the
    lowest of the runs' medians (``*_ms``) and of their worsts (``*_max_ms``), as the cold
    figures keep the best run, since a shared machine only ever adds time; ``session_runs``
    keeps every run's medians, so the spread is in the answer. The peak is the highest of
    the runs'; ``identical`` (the cold runs agreed) holds only if no run's checks found a
    mismatch."""
    first = answers[0]
    for key in ("task", "role", "as_of", "edit_body", "edit_field", "edit_scan_body"):
        if key not in first:  # pragma: no cover - an older worker's answer
            continue
        row[key + "_ms"] = min(_ms(a[key]) for a in answers)
        row[key + "_max_ms"] = min(round(max(a[key]) * 1000, 1) for a in answers)
    if "edit_scan_field" in first:
        row["edit_scan_field_ms"] = min(_ms(a["edit_scan_field"]) for a in answers)
    row["edit_ms"] = max(row["edit_body_ms"], row["edit_field_ms"])
    row["session_peak_mb"] = round(max(a["peak_mb"] for a in answers))
    if "prepare" in first:
        row["prepare_ms"] = min(round(a["prepare"] * 1000, 1) for a in answers)
    row["reparsed"] = first["reparsed"]
    row["session_runs"] = [
        {key: _ms(a[key]) for key in ("task", "role", "as_of", "edit_body", "edit_field")}
        | {"peak_mb": round(a["peak_mb"])}
        for a in answers
    ]
    row["mismatches"] = sorted({m for a in answers for m in a["mismatches"]})
    row["identical"] = identical and not row["mismatches"]


# -- the audit ----------------------------------------------------------------------------------


def audit_worker(repo: Path) -> dict[str, Any]:
    """The audit after a load: the whole repository judged once plus every declared role
    resolved once (no pipeline memo from earlier resolutions), then the lines of the findings
    found by reading their files again; and the same audit rendered as JSON."""
    from octui.analysis.audit import audit
    from octui.load.locate import reader_for
    from octui.render.audit import render_json
    from octui.session import Session

    session = Session(repo)
    loaded = session.load()
    as_of = instant(AS_OF)
    t0 = time.process_time()
    with reader_for(repo, None) as read:
        result = audit(loaded, as_of, read=read)
    seconds = time.process_time() - t0
    t1 = time.process_time()
    render_json(result)
    return {
        "audit": seconds,
        "audit_json": time.process_time() - t1,
        "audit_roles": len(result.roles),
        "audit_findings": len(result.findings),
        "audit_lines": sum(1 for f in result.findings if f.finding.line is not None),
    }


def audit_figures(row: dict[str, Any], answer: dict[str, Any]) -> None:
    row["audit_s"] = round(answer["audit"], 3)
    row["audit_roles"] = answer["audit_roles"]


# -- the change agenda ----------------------------------------------------------------------------


def agenda_worker(repo: Path) -> dict[str, Any]:
    """CPU seconds of one resolution, of the 90-day agenda as the ``changes`` command makes
    it (every point with the digests of its two bundles) and of the same agenda as the
    explorer makes it (the same points and changes, no digest: it never shows one), each on
    its own fresh load."""
    from octui.analysis.agenda import change_agenda
    from octui.core.timeutil import add_days
    from octui.load.loader import load_repository
    from octui.resolve.engine import resolve
    from octui.resolve.result import Query

    query = Query(role=ROLE, as_of=instant(AS_OF))
    until = add_days(query.as_of, AGENDA_DAYS)
    fresh = load_repository(repo)
    t0 = time.process_time()
    resolve(fresh, query)
    resolution = time.process_time() - t0
    answer: dict[str, Any] = {"resolution": resolution}
    for name, digests in (("agenda", True), ("agenda_explorer", False)):
        fresh = load_repository(repo)
        t0 = time.process_time()
        agenda = change_agenda(fresh, query, since=query.as_of, until=until, digests=digests)
        answer[name] = time.process_time() - t0
        answer["points"] = len(agenda.points)  # the same points either way (tested)
    return answer


def agenda_figures(row: dict[str, Any], answers: list[dict[str, Any]]) -> None:
    """The ``agenda`` workers' answers (one per ``--repeat`` run, each in a process of its
    own) into ``row``, each time the best run's, as for the cold figures: ``agenda_s`` and
    ``agenda_ratio`` (to one resolution) the ``changes`` command's, ``agenda_explorer_s``
    and ``agenda_explorer_ratio`` the explorer's; ``agenda_resolution_s`` the resolution."""
    one = max(min(a["resolution"] for a in answers), 1e-9)
    row["agenda_resolution_s"] = round(one, 3)
    row["agenda_points"] = answers[0]["points"]
    for name in ("agenda", "agenda_explorer"):
        best = min(a[name] for a in answers)
        row[name + "_s"] = round(best, 3)
        row[name + "_ratio"] = round(best / one, 1)
