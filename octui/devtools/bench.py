"""``python -m octui.devtools.bench``: how resolution scales with the size of an organization.

For each size it writes a synthetic repository (``opencontext synth``) into a temporary
folder and measures, in one run, in **CPU seconds** (user + system: the machine is shared,
so wall time says more about the neighbours than about octui):

- **two floors** — ``floor_csafeloader_s``: walk the tree, read every object file and
  parse its front matter with ``yaml.CSafeLoader``; ``floor_io_s``: walk, ``lstat`` and
  read every file, nothing else. Both in-process;
- **cold** — ``opencontext resolve --format json --no-cache`` as a whole new process
  (interpreter and imports included);
- **first** — the same with an empty persistent cache (it parses and writes the cache);
- **cached** — the same with the persistent cache warm;
- **task / role / as_of** — re-resolution in a loaded :class:`Session` after changing only
  that input, each to a value not resolved before, the bundle digest included (median);
- **edit** — one file edited on disk (a body-only edit, and an edit of a field steps 1–7
  read), then reload + re-resolve + digest (median of each kind; ``edit_ms`` is the worse);
- **session peak** — peak resident memory of the session after 8 roles × 8 instants;
- **explorer** — headless ``run_test()`` with a warm cache (:mod:`octui.devtools.explorer_figures`
  says exactly what is timed): ``first_screen_s``, CPU from process start to the first paint
  of the results (``first_screen_parsed``: files the explorer parsed rather than took from
  the cache — the 6 the edit figures just rewrote, which the cache rightly does not trust);
  ``key_ms``, the worst keystroke of any kind, in wall milliseconds (a latency) from the key
  event reaching the app to the paint that shows what it asked for — re-resolution,
  ``apply_view`` and the detail pane included, the detail pane's background Roles and
  why-not blocks not (they are ``settled``); ``keys``, per kind (``cursor``, ``tab``,
  ``type``, ``as_of``, ``role``) the median and worst of ``shown``, ``echo``, ``settled`` and
  ``cpu``; ``idle_cpu_pct``, the CPU the quiet explorer spends (``watch``: on filesystem
  events or polling).

Every output is also checked (``identical``): the cold, first and cached runs print the same
bundle (up to ``bundle_id`` and ``generated_at``), every memoised answer of the session equals
a resolution of the same repository without the memo, and after the edits the session's
answer equals one from a fresh load without any cache.

A figure that cannot be measured is ``null`` and the reason is printed (``reasons``).
Workers run in child processes so that each CPU and peak-memory figure is its own.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

AS_OF = "2026-06-01"
ROLE = "support"
TASK = "refund invoice"
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
SIZES = "1000,10000,50000"
HUGE = 100_000


# -- the floors -----------------------------------------------------------------------------


def object_files(root: Path) -> list[str]:
    """Every object file under ``root``, in walk order (hidden entries skipped)."""
    found = []
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in reversed(entries):
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif entry.name.endswith((".md", ".yaml", ".yml")) and entry.name != "opencontext.yaml":
                found.append(entry.path)
    return found


def cpu() -> float:
    """CPU seconds (user + system) of this process so far."""
    return time.process_time()


def parsing_floor(root: Path) -> tuple[float, int]:
    """CPU seconds to walk, read and CSafeLoader-parse every object file; how many files."""
    from octui.load.frontmatter import parse_frontmatter_only

    start = cpu()
    count = 0
    for path in object_files(root):
        with open(path, "rb") as handle:
            raw = handle.read()
        with contextlib.suppress(Exception):  # a broken file costs what it costs
            parse_frontmatter_only(raw, os.path.basename(path))
        count += 1
    return cpu() - start, count


def io_floor(root: Path) -> float:
    """CPU seconds to walk, ``lstat`` and read every object file: the least any loader does."""
    start = cpu()
    for path in object_files(root):
        os.lstat(path)
        with open(path, "rb") as handle:
            handle.read()
    return cpu() - start


# -- child processes --------------------------------------------------------------------------


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_child(argv: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a process: its CPU seconds (user + system), wall seconds, exit code, stdout and
    stderr (workers report their own peak memory on stderr)."""
    before, start = _children_cpu(), time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tempfile.gettempdir()
    )
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    return {
        "cpu": _children_cpu() - before,
        "wall": wall,
        "code": proc.returncode,
        "out": out,
        "err": err,
    }


def resolve_argv(repo: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "octui.devtools.bench",
        "--worker",
        "cli",
        str(repo),
        "--",
        "resolve",
        str(repo),
        "--role",
        ROLE,
        "--task",
        TASK,
        "--as-of",
        AS_OF,
        "--format",
        "json",
        *extra,
    ]


_VOLATILE = re.compile(rb'"(bundle_id|generated_at)": "[^"]*"')


def normalised(out: bytes) -> bytes:
    return _VOLATILE.sub(rb'"\1": "-"', out)


def cli_worker(argv: list[str]) -> int:
    """Run the CLI exactly as ``opencontext`` does, then report peak memory on stderr."""
    import resource

    from octui.cli.main import main as cli_main

    code = cli_main(argv)
    sys.stdout.flush()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"OCTUI-BENCH-PEAK-MB {peak:.0f}", file=sys.stderr)
    return code


def peak_of(result: dict[str, Any]) -> float:
    m = re.search(rb"OCTUI-BENCH-PEAK-MB (\d+)", result["err"])
    return float(m.group(1)) if m else float("nan")


# -- warm, in-process ---------------------------------------------------------------------------


def _instant(text: str) -> datetime:
    from octui.core.timeutil import parse_instant

    return parse_instant(text)


def warm_worker(repo: Path) -> dict[str, Any]:
    """Session timings in CPU seconds, in one process holding one loaded session."""
    from octui.bundle.bundle import bundle_dict, digest
    from octui.resolve.engine import resolve
    from octui.resolve.result import Query
    from octui.session import Session

    session = Session(repo)
    start = cpu()
    session.load()
    base = Query(role=ROLE, as_of=_instant(AS_OF), task=TASK)
    digest(session.resolve(base))
    results: dict[str, Any] = {"load_and_first": cpu() - start, "mismatches": []}
    asked: list[Query] = []

    def timed(query: Query) -> float:
        t0 = cpu()
        digest(session.resolve(query))
        elapsed = cpu() - t0
        asked.append(query)
        return elapsed

    results["task"] = [timed(replace(base, task=t)) for t in TASKS]
    results["role"] = [timed(replace(base, role=r)) for r in ROLES]
    results["as_of"] = [timed(replace(base, as_of=_instant(d))) for d in INSTANTS]
    before = session.loader.parsed_count
    files = sorted(p for p in repo.rglob("*.md") if p.name != "README.md")
    results["edit_body"] = [timed_edit(session, base, files, i, body=True) for i in range(3)]
    results["edit_field"] = [timed_edit(session, base, files, i, body=False) for i in range(3)]
    results["reparsed"] = session.loader.parsed_count - before
    for role in sorted(session.repository.config.roles if session.repository else ()):
        for day in PEAK_INSTANTS:
            digest(session.resolve(Query(role=role, as_of=_instant(day), task=TASK)))
    results["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # Checks, after the peak was taken: the memoised answers equal a memo-free resolution,
    # and the session after its edits equals a fresh load without any cache.
    assert session.repository is not None
    for query in [*asked, base]:
        fresh = resolve(session.repository, query)  # no cache: everything computed
        if digest(fresh) != digest(session.resolve(query)):
            results["mismatches"].append(str(query))
    os.environ["OCTUI_NO_CACHE"] = "1"
    fresh_session = Session(repo)
    fresh_session.load()
    if _comparable(bundle_dict(fresh_session.resolve(base))) != _comparable(
        bundle_dict(session.resolve(base))
    ):
        results["mismatches"].append("after edits: " + str(base))
    return results


def _comparable(bundle: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in bundle.items() if k not in ("bundle_id", "generated_at")}


_CREATED = re.compile(r"^created: (\d{4})-", re.MULTILINE)


def timed_edit(session: Any, base: Any, files: list[Path], i: int, *, body: bool) -> float:
    """Edit one file (its body, or its ``created`` year, which step 3 reads); CPU seconds of
    reload + re-resolve + digest."""
    from octui.bundle.bundle import digest

    target = files[(i * 7919 + (0 if body else 3571)) % len(files)]
    text = target.read_text(encoding="utf-8")
    if body:
        text += f"\nEdited by the benchmark ({i}).\n"
    else:
        text = _CREATED.sub(lambda m: f"created: {int(m.group(1)) - 1}-", text, count=1)
    target.write_text(text, encoding="utf-8")
    t0 = cpu()
    session.load()
    digest(session.resolve(base))
    return cpu() - t0


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
    as_of = _instant(AS_OF)
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


# -- the change agenda ----------------------------------------------------------------------------

AGENDA_DAYS = 90


def agenda_worker(repo: Path) -> dict[str, Any]:
    """CPU seconds of one resolution and of the 90-day agenda, each on its own fresh load."""
    from octui.analysis.agenda import change_agenda
    from octui.core.timeutil import add_days
    from octui.load.loader import load_repository
    from octui.resolve.engine import resolve
    from octui.resolve.result import Query

    query = Query(role=ROLE, as_of=_instant(AS_OF))
    fresh = load_repository(repo)
    t0 = time.process_time()
    resolve(fresh, query)
    resolution = time.process_time() - t0
    fresh = load_repository(repo)
    t0 = time.process_time()
    agenda = change_agenda(
        fresh, query, since=query.as_of, until=add_days(query.as_of, AGENDA_DAYS)
    )
    sweep = time.process_time() - t0
    return {"resolution": resolution, "agenda": sweep, "points": len(agenda.points)}


# -- the explorer ---------------------------------------------------------------------------------


def tui_worker(repo: Path) -> dict[str, Any]:
    """Headless explorer: first screen, keystroke latency, idle CPU (see
    :mod:`octui.devtools.explorer_figures`)."""
    from octui.devtools.explorer_figures import tui_worker as explorer

    return explorer(repo, ROLE, _instant(AS_OF))


# -- the driver -----------------------------------------------------------------------------------


def age(root: Path) -> None:
    """Date every file an hour back (the persistent cache ignores files written just now)."""
    past = time.time() - 3600
    for folder, _dirs, names in os.walk(root):
        for name in names:
            os.utime(os.path.join(folder, name), (past, past))


def tui_available() -> bool:
    try:
        import octui.tui.app  # noqa: F401
    except Exception:
        return False
    return True


def _ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 1)


def measure(size: int, work: Path, seed: int, repeat: int, tui: bool) -> dict[str, Any]:
    """One size: every figure of the table, as CPU seconds / milliseconds (see the module)."""
    from octui.synth.repository import write_repository

    repo = work / f"org-{size}"
    log(f"{size}: writing the repository")
    write_repository(repo, size, seed)
    age(repo)
    row: dict[str, Any] = {"objects": size, "reasons": {}}
    log(f"{size}: floors")
    floors = [parsing_floor(repo) for _ in range(repeat)]
    row["files"] = floors[0][1]
    row["floor_csafeloader_s"] = round(min(f[0] for f in floors), 3)
    row["floor_io_s"] = round(min(io_floor(repo) for _ in range(repeat)), 3)
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = str(work / f"cache-{size}")  # every child: never the user's cache
    env.pop("OCTUI_NO_CACHE", None)
    log(f"{size}: cold resolve, no cache")
    cold = [run_child(resolve_argv(repo, "--no-cache"), env) for _ in range(repeat)]
    log(f"{size}: cold resolve, cache empty then warm")
    first = run_child(resolve_argv(repo), env)
    cached = [run_child(resolve_argv(repo), env) for _ in range(repeat)]
    outputs = {normalised(r["out"]) for r in [*cold, first, *cached]}
    codes = {r["code"] for r in [*cold, first, *cached]}
    identical = len(outputs) == 1 and codes == {0}
    row["cold_s"] = round(min(r["cpu"] for r in cold), 3)
    row["first_s"] = round(first["cpu"], 3)
    row["cached_s"] = round(min(r["cpu"] for r in cached), 3)
    row["cold_wall_s"] = round(min(r["wall"] for r in cold), 3)
    row["cold_peak_mb"] = max(peak_of(r) for r in cold)
    row["cached_peak_mb"] = max(peak_of(r) for r in cached)
    log(f"{size}: session")
    warm = run_child(
        [sys.executable, "-m", "octui.devtools.bench", "--worker", "warm", str(repo)], env
    )
    if warm["code"] != 0:
        raise RuntimeError(warm["err"].decode(errors="replace"))
    w = json.loads(warm["out"])
    for key in ("task", "role", "as_of", "edit_body", "edit_field"):
        row[key + "_ms"] = _ms(w[key])
        row[key + "_max_ms"] = round(max(w[key]) * 1000, 1)
    row["edit_ms"] = max(row["edit_body_ms"], row["edit_field_ms"])
    row["session_peak_mb"] = round(w["peak_mb"])
    row["reparsed"] = w["reparsed"]
    row["mismatches"] = w["mismatches"]
    row["identical"] = identical and not w["mismatches"]
    log(f"{size}: audit after load")
    a = run_child(
        [sys.executable, "-m", "octui.devtools.bench", "--worker", "audit", str(repo)], env
    )
    if a["code"] != 0:
        raise RuntimeError(a["err"].decode(errors="replace"))
    audit = json.loads(a["out"])
    row["audit_s"] = round(audit["audit"], 3)
    row["audit_roles"] = audit["audit_roles"]
    log(f"{size}: change agenda, {AGENDA_DAYS} days")
    g = run_child(
        [sys.executable, "-m", "octui.devtools.bench", "--worker", "agenda", str(repo)], env
    )
    if g["code"] != 0:
        raise RuntimeError(g["err"].decode(errors="replace"))
    agenda = json.loads(g["out"])
    row["agenda_s"] = round(agenda["agenda"], 3)
    row["agenda_ratio"] = round(agenda["agenda"] / max(agenda["resolution"], 1e-9), 1)
    for key in ("first_screen_s", "idle_cpu_pct", "key_ms"):
        row[key] = None
    if not tui:
        for key in ("first_screen_s", "idle_cpu_pct", "key_ms"):
            row["reasons"][key] = "explorer not measured (--no-tui, or octui.tui not importable)"
    else:
        log(f"{size}: explorer")
        t = run_child(
            [sys.executable, "-m", "octui.devtools.bench", "--worker", "tui", str(repo)], env
        )
        if t["code"] != 0:
            why = "the explorer worker failed: " + t["err"][-300:].decode(errors="replace")
            for key in ("first_screen_s", "idle_cpu_pct", "key_ms"):
                row["reasons"][key] = why
        else:
            explorer_figures(row, json.loads(t["out"]))
    shutil.rmtree(repo, ignore_errors=True)
    return row


def explorer_figures(row: dict[str, Any], data: dict[str, Any]) -> None:
    """The explorer worker's answer as the row's figures: ``key_ms`` is the worst key of any
    kind, ``keys`` the median and worst per kind (a kind whose keys changed nothing the
    results show has a reason: its figure would not be the work it stands for)."""
    row["first_screen_s"] = None if data["first_screen"] is None else round(data["first_screen"], 3)
    row["first_screen_parsed"] = data["first_screen_parsed"]
    row["idle_cpu_pct"] = round(data["idle_cpu_pct"], 2)
    row["watch"] = data["watch"]
    row["keys"] = data["keys"]
    row["key_ms"] = max((k["shown_max_ms"] for k in data["keys"].values()), default=None)
    for kind in data["keys"]:
        if not data["effects"].get(kind):
            row["reasons"]["keys." + kind] = "these keys changed nothing the results show"


def log(text: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def _cell(value: Any, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "%":
        return f"{value:.2f} %"
    if unit == "×":
        return f"{value:.1f}×"
    return f"{value:.0f} {unit}"


COLUMNS = [
    ("objects", "objects", ""),
    ("floor_csafeloader_s", "CSafeLoader floor", "s"),
    ("floor_io_s", "I/O floor", "s"),
    ("cold_s", "cold (no cache)", "s"),
    ("cached_s", "cold (cache warm)", "s"),
    ("first_s", "first run (fills cache)", "s"),
    ("task_ms", "new task", "ms"),
    ("role_ms", "new role", "ms"),
    ("as_of_ms", "new as_of", "ms"),
    ("edit_body_ms", "edit: body", "ms"),
    ("edit_field_ms", "edit: field", "ms"),
    ("session_peak_mb", "session peak", "MB"),
    ("audit_s", "audit, every role", "s"),
    ("agenda_s", "agenda 90 d (CPU)", "s"),
    ("agenda_ratio", "agenda ÷ 1 resolution", "×"),
    ("first_screen_s", "explorer first screen", "s"),
    ("idle_cpu_pct", "explorer idle CPU", "%"),
    ("key_ms", "keystroke", "ms"),
]


def table(rows: list[dict[str, Any]]) -> str:
    head = [title for _, title, _ in COLUMNS] + ["cold ÷ floors", "cached ÷ floor", "identical"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [f"{r['objects']:,}"] + [_cell(r[key], unit) for key, _, unit in COLUMNS[1:]]
        cells.append(
            f"{r['cold_s'] / r['floor_csafeloader_s']:.2f}× / {r['cold_s'] / r['floor_io_s']:.1f}×"
        )
        cells.append(f"{r['cached_s'] / r['floor_csafeloader_s']:.2f}×")
        cells.append("yes" if r["identical"] else "NO")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# (figure, size → limit or None, how to read it off a row)
TARGETS: list[tuple[str, dict[int, float], Any]] = [
    ("cold ≤ 1.0× CSafeLoader floor", {10_000: 1.0, 50_000: 1.0, HUGE: 1.0},
     lambda r: r["cold_s"] / r["floor_csafeloader_s"]),
    ("cold ≤ 4× I/O floor", {10_000: 4.0, 50_000: 4.0, HUGE: 4.0},
     lambda r: r["cold_s"] / r["floor_io_s"]),
    ("cached ≤ 0.35× CSafeLoader floor", {10_000: 0.35, 50_000: 0.35},
     lambda r: r["cached_s"] / r["floor_csafeloader_s"]),
    ("new role (ms)", {10_000: 40, 50_000: 150}, lambda r: r["role_ms"]),
    ("new as_of (ms)", {10_000: 30, 50_000: 120}, lambda r: r["as_of_ms"]),
    ("new task (ms)", {10_000: 15, 50_000: 60}, lambda r: r["task_ms"]),
    ("one edited file (ms)", {10_000: 100, 50_000: 300}, lambda r: r["edit_ms"]),
    ("explorer first screen (s)", {10_000: 1.5, 50_000: 4.0}, lambda r: r["first_screen_s"]),
    ("explorer idle CPU (%)", {50_000: 1.0}, lambda r: r["idle_cpu_pct"]),
    ("keystroke (ms)", {50_000: 50}, lambda r: r["key_ms"]),
    ("session peak (MB)", {50_000: 600, HUGE: 1200}, lambda r: r["session_peak_mb"]),
    ("audit, every role (s)", {10_000: 3.0}, lambda r: r["audit_s"]),
    ("agenda 90 d ÷ 1 resolution", {10_000: 3.0}, lambda r: r["agenda_ratio"]),
    ("agenda 90 d (s)", {50_000: 30.0}, lambda r: r["agenda_s"]),
]  # fmt: skip


def verdicts(rows: list[dict[str, Any]]) -> list[str]:
    """One line per target and size measured: the figure and whether it holds."""
    out = []
    by_size = {r["objects"]: r for r in rows}
    for name, limits, figure in TARGETS:
        for size, limit in limits.items():
            row = by_size.get(size)
            if row is None:
                continue
            try:
                value = figure(row)
            except TypeError:
                value = None
            if value is None:
                out.append(f"- {name} at {size:,}: not measured")
            else:
                holds = "holds" if value <= limit else "DOES NOT HOLD"
                out.append(f"- {name} at {size:,}: {value:.2f} (target ≤ {limit:g}) {holds}")
    sizes = sorted(by_size)
    for small, big in itertools.pairwise(sizes):
        ratio = by_size[big]["cold_s"] / by_size[small]["cold_s"]
        per_doubling = ratio ** (1 / math.log2(big / small))
        holds = "holds" if per_doubling <= 2.2 else "DOES NOT HOLD"
        out.append(
            f"- cold growth {small:,} → {big:,}: {per_doubling:.2f}× per doubling "
            f"(target ≤ 2.2) {holds}"
        )
    return out


def machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return (
        f"{os.cpu_count()} CPUs, load average {load[0]:.1f}, Python "
        f"{sys.version.split()[0]}, {sys.platform}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m octui.devtools.bench",
        description="Build synthetic repositories and measure resolution at each size "
        "(CPU seconds).",
    )
    parser.add_argument("--sizes", default=SIZES, help=f"comma-separated sizes ({SIZES})")
    parser.add_argument("--huge", action="store_true", help=f"also measure {HUGE:,} objects")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="runs per timing (best is kept)")
    parser.add_argument("--no-tui", action="store_true", help="skip the explorer figures")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per size instead of the table"
    )
    parser.add_argument(
        "--worker", choices=["cli", "warm", "audit", "tui", "agenda"], help=argparse.SUPPRESS
    )
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker == "cli":
        rest = args.rest[2:] if args.rest[1:2] == ["--"] else args.rest[1:]
        return cli_worker(rest)
    if args.worker == "warm":
        print(json.dumps(warm_worker(Path(args.rest[0]))))
        return 0
    if args.worker == "audit":
        print(json.dumps(audit_worker(Path(args.rest[0]))))
        return 0
    if args.worker == "agenda":
        print(json.dumps(agenda_worker(Path(args.rest[0]))))
        return 0
    if args.worker == "tui":
        print(json.dumps(tui_worker(Path(args.rest[0]))))
        return 0
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes: expected comma-separated whole numbers, got {args.sizes!r}")
    if args.huge and HUGE not in sizes:
        sizes.append(HUGE)
    tui = not args.no_tui and tui_available()
    work = Path(tempfile.mkdtemp(prefix="octui-bench-"))
    started = time.perf_counter()
    before = machine()
    rows = []
    try:
        for n in sizes:
            row = measure(n, work, args.seed, args.repeat, tui)
            rows.append(row)
            for key, why in row["reasons"].items():
                log(f"{n}: {key} is null: {why}")
            if args.json:
                print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.json:
        print(f"octui benchmark — {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}")
        print(f"machine: {before} (at start); {machine()} (at end)")
        print(f"query: --role {ROLE} --task {TASK!r} --as-of {AS_OF}; CPU seconds, best of "
              f"{args.repeat}")  # fmt: skip
        print()
        print(table(rows))
        print()
        print("\n".join(verdicts(rows)))
        print(f"- total benchmark time: {time.perf_counter() - started:.0f} s (wall)")
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
