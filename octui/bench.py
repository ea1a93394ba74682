"""``python -m octui.bench``: how resolution scales with the size of an organization.

For each size it writes a synthetic repository (``opencontext synth``) into a temporary
folder and measures, in one run:

- **floor** — the parsing floor: walk the tree, read every object file and parse its
  front matter with ``yaml.CSafeLoader`` (:func:`octui.loader.parse_frontmatter_only`),
  nothing else; in-process, best of ``--repeat``;
- **cold** — ``opencontext resolve --format json`` as a whole new process with the parse
  cache off (``--no-cache``), best of ``--repeat``;
- **first** — the same with an empty persistent cache (it parses and writes the cache);
- **cached** — the same with the persistent cache warm, best of ``--repeat``;
- **task / role / as_of** — warm in-process re-resolution (a loaded :class:`Session`)
  after changing only that input, each to a value not resolved before (median);
- **edit** — after editing one file on disk: reload (re-parses that file) + re-resolve;
- **audit** — ``opencontext audit``'s work after a load, in a fresh process: the whole
  repository judged once, every declared role resolved once, the findings' lines found;
- **peak** — peak resident memory of the cold process and of the in-process session;
- **agenda** — ``change_agenda`` (what ``opencontext changes --until 90d`` computes) over
  the 90 days after ``AS_OF``, in CPU seconds (``time.process_time``) on a freshly loaded
  repository, beside one resolution of another fresh load of the same repository (CPU
  seconds too, loading not counted in either), and their ratio;
- **tui** — in the explorer (headless ``run_test``), time from the last keystroke of a
  task edit to the updated tables (debounce included), and the longest a keystroke
  waited to be handled while typing.

Every output is also checked: the cold, first and cached runs must print the same bundle
(up to ``bundle_id`` and ``generated_at``), and each warm re-resolution must digest like
a resolution of the same repository without the pipeline memo.

Workers run in child processes so that each peak-memory figure is its own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
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
TYPED_TASK = "refund policy"


# -- the parsing floor ----------------------------------------------------------------------


def parsing_floor(root: Path) -> tuple[float, int]:
    """Seconds to walk, read and CSafeLoader-parse every object file; and how many files."""
    from octui.loader import parse_frontmatter_only

    start = time.perf_counter()
    count = 0
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in reversed(entries):
            if entry.name.startswith("."):
                continue
            if entry.is_dir():
                stack.append(entry.path)
            elif entry.name.endswith((".md", ".yaml", ".yml")) and entry.name != "opencontext.yaml":
                with open(entry.path, "rb") as handle:
                    raw = handle.read()
                with contextlib.suppress(Exception):  # a broken file costs what it costs
                    parse_frontmatter_only(raw, entry.name)
                count += 1
    return time.perf_counter() - start, count


# -- child processes --------------------------------------------------------------------------


def run_child(argv: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a process: wall seconds, exit code, stdout and stderr (workers report their own
    peak memory on stderr)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tempfile.gettempdir()
    )
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    return {"wall": wall, "code": proc.returncode, "out": out, "err": err}


def resolve_argv(repo: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "octui.bench",
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

    from octui.cli import main as cli_main

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
    from octui.timeutil import parse_instant

    return parse_instant(text)


def warm_worker(repo: Path) -> dict[str, Any]:
    """Warm re-resolution timings in one process holding one loaded session."""
    import resource

    from octui.bundle import digest
    from octui.pipeline import Query, resolve
    from octui.session import Session

    session = Session(repo)
    start = time.perf_counter()
    session.load()
    base = Query(role=ROLE, as_of=_instant(AS_OF), task=TASK)
    session.resolve(base)
    load_and_first = time.perf_counter() - start
    results: dict[str, Any] = {"load_and_first": load_and_first, "mismatches": []}

    asked: list[Query] = []

    def timed(query: Query) -> float:
        t0 = time.perf_counter()
        session.resolve(query)
        asked.append(query)
        return time.perf_counter() - t0

    results["task"] = [timed(replace(base, task=t)) for t in TASKS]
    results["role"] = [timed(replace(base, role=r)) for r in ROLES]
    results["as_of"] = [timed(replace(base, as_of=_instant(d))) for d in INSTANTS]
    before = session.loader.parsed_count
    edits = []
    files = sorted(p for p in repo.rglob("*.md") if p.name != "README.md")
    for i in range(3):
        target = files[(i * 7919) % len(files)]
        text = target.read_text(encoding="utf-8")
        target.write_text(text + f"\nEdited by the benchmark ({i}).\n", encoding="utf-8")
        t0 = time.perf_counter()
        session.load()
        session.resolve(base)
        edits.append(time.perf_counter() - t0)
    results["edit"] = edits
    results["reparsed"] = session.loader.parsed_count - before
    results["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # Checks, after the peak was taken: the memoised answers equal a memo-free resolution.
    assert session.repository is not None
    for query in [*asked, base]:
        fresh = resolve(replace(session.repository), query)  # a new repository: no memo
        if digest(fresh) != digest(session.resolve(query)):
            results["mismatches"].append(str(query))
    return results


def audit_worker(repo: Path) -> dict[str, Any]:
    """The audit after a load: the whole repository judged once plus every declared role
    resolved once (no pipeline memo from earlier resolutions), then the lines of the findings
    found by reading their files again; and the same audit rendered as JSON."""
    from octui.audit import audit
    from octui.audit_render import render_json
    from octui.locate import reader_for
    from octui.session import Session

    session = Session(repo)
    loaded = session.load()
    as_of = _instant(AS_OF)
    t0 = time.perf_counter()
    with reader_for(repo, None) as read:
        result = audit(loaded, as_of, read=read)
    seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    render_json(result)
    return {
        "audit": seconds,
        "audit_json": time.perf_counter() - t1,
        "audit_roles": len(result.roles),
        "audit_findings": len(result.findings),
        "audit_lines": sum(1 for f in result.findings if f.finding.line is not None),
    }


# -- the change agenda ----------------------------------------------------------------------------

AGENDA_DAYS = 90


def agenda_worker(repo: Path) -> dict[str, Any]:
    """CPU seconds of one resolution and of the 90-day agenda, each on its own fresh load."""
    from octui.changes import change_agenda
    from octui.loader import load_repository
    from octui.pipeline import Query, resolve
    from octui.timeutil import add_days

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
    """Headless explorer: first screen, keystroke latency, last keystroke → updated tables."""
    start = time.perf_counter()
    return asyncio.run(_tui(repo, start))


async def _tui(repo: Path, start: float) -> dict[str, Any]:
    from octui.tui.app import create_app

    app = create_app(
        repo, role=ROLE, task="", as_of=_instant(AS_OF), watch=False, cursor_blink=False
    )
    out: dict[str, Any] = {}
    async with app.run_test(size=(160, 48)) as pilot:
        await app.wait_settled()
        await pilot.pause()
        out["first_screen"] = time.perf_counter() - start
        out["included_rows"] = len(app.view.included) if app.view else 0
        app.action_focus_task()
        await pilot.pause()
        key_waits = []
        for ch in TYPED_TASK:
            key = "space" if ch == " " else ch
            t0 = time.perf_counter()
            await pilot.press(key)
            key_waits.append(time.perf_counter() - t0)
            await asyncio.sleep(0.03)  # a fast typist: ~33 keys a second
        last_key = time.perf_counter()
        target = app.generation
        while not (app.applied_generation >= target and app.settled.is_set()):
            await asyncio.sleep(0.002)
        await pilot.pause()  # the refresh that paints the new rows
        out["keystroke_to_tables"] = time.perf_counter() - last_key
        out["key_wait_max"] = max(key_waits)
        out["task_shown"] = app.view.query.task if app.view else None
        # the largest table: every role's objects (leadership reads everything)
        t0 = time.perf_counter()
        app.set_role("leadership")
        target = app.generation
        while not (app.applied_generation >= target and app.settled.is_set()):
            await asyncio.sleep(0.002)
        await pilot.pause()
        out["role_switch_to_tables"] = time.perf_counter() - t0
        out["leadership_rows"] = len(app.view.included) if app.view else 0
        out["leadership_exclusions"] = len(app.view.exclusions) if app.view else 0
        t0 = time.perf_counter()
        await pilot.press("end")
        await pilot.pause()
        out["scroll_to_end"] = time.perf_counter() - t0
    return out


def sample_first_screen(work: Path) -> float | None:
    """Seconds from process start (imports included) to the first screen on sample-repo."""
    sample = Path(__file__).resolve().parent.parent / "sample-repo"
    if not sample.is_dir():
        return None
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache-sample"))
    result = run_child([sys.executable, "-m", "octui.bench", "--worker", "tui", str(sample)], env)
    if result["code"] != 0:
        return None
    data = json.loads(result["out"])
    return float(data["first_screen"])


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


def measure(size: int, work: Path, seed: int, repeat: int, tui: bool) -> dict[str, Any]:
    from octui.synth import write_repository

    repo = work / f"org-{size}"
    log(f"{size}: writing the repository")
    write_repository(repo, size, seed)
    age(repo)
    row: dict[str, Any] = {"size": size}
    log(f"{size}: parsing floor")
    floors = [parsing_floor(repo) for _ in range(repeat)]
    row["floor"] = min(f[0] for f in floors)
    row["files"] = floors[0][1]
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
    row["identical"] = len(outputs) == 1 and codes == {0}
    row["cold"] = min(r["wall"] for r in cold)
    row["first"] = first["wall"]
    row["cached"] = min(r["wall"] for r in cached)
    row["cold_peak"] = max(peak_of(r) for r in cold)
    row["cached_peak"] = max(peak_of(r) for r in cached)
    log(f"{size}: warm in-process re-resolution")
    warm = run_child([sys.executable, "-m", "octui.bench", "--worker", "warm", str(repo)], env)
    if warm["code"] != 0:
        raise RuntimeError(warm["err"].decode(errors="replace"))
    w = json.loads(warm["out"])
    for key in ("task", "role", "as_of", "edit"):
        row[key] = statistics.median(w[key])
        row[key + "_max"] = max(w[key])
    row["session_peak"] = w["peak_mb"]
    row["memo_ok"] = not w["mismatches"]
    row["reparsed"] = w["reparsed"]
    log(f"{size}: audit after load")
    a = run_child([sys.executable, "-m", "octui.bench", "--worker", "audit", str(repo)], env)
    if a["code"] != 0:
        raise RuntimeError(a["err"].decode(errors="replace"))
    row.update(json.loads(a["out"]))
    log(f"{size}: change agenda, {AGENDA_DAYS} days")
    a = run_child([sys.executable, "-m", "octui.bench", "--worker", "agenda", str(repo)], env)
    if a["code"] != 0:
        raise RuntimeError(a["err"].decode(errors="replace"))
    row["agenda"] = json.loads(a["out"])
    if tui:
        log(f"{size}: explorer")
        t = run_child([sys.executable, "-m", "octui.bench", "--worker", "tui", str(repo)], env)
        row["tui"] = json.loads(t["out"]) if t["code"] == 0 else {"error": t["err"][-400:]}
    shutil.rmtree(repo, ignore_errors=True)
    return row


def log(text: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def secs(seconds: float) -> str:
    return f"{seconds:.2f} s"


def table(rows: list[dict[str, Any]], sample: float | None, tui: bool) -> str:
    head = [
        "objects",
        "floor",
        "cold (no cache)",
        "cold ÷ floor",
        "cold (cache warm)",
        "cached ÷ floor",
        "first run (fills cache)",
        "task Δ",
        "role Δ",
        "as_of Δ",
        "1 file edited",
        "audit (all roles)",
        "peak: cold / cached / session",
        "agenda 90 d (CPU) ÷ 1 resolution",
        "explorer: last key → tables",
        "identical",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        t = r.get("tui") or {}
        if not tui:
            explorer = "not measured"
        elif "error" in t:
            explorer = "failed"
        else:
            explorer = f"{ms(t['keystroke_to_tables'])} (key wait ≤ {ms(t['key_wait_max'])})"
        cells = [
            f"{r['size']:,}",
            secs(r["floor"]),
            secs(r["cold"]),
            f"{r['cold'] / r['floor']:.2f}×",
            secs(r["cached"]),
            f"{r['cached'] / r['floor']:.2f}×",
            secs(r["first"]),
            ms(r["task"]),
            ms(r["role"]),
            ms(r["as_of"]),
            ms(r["edit"]),
            f"{ms(r['audit'])} ({r['audit_roles']} roles)",
            f"{r['cold_peak']:.0f} / {r['cached_peak']:.0f} / {r['session_peak']:.0f} MB",
            _agenda_cell(r["agenda"]),
            explorer,
            "yes" if r["identical"] and r["memo_ok"] else "NO",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _agenda_cell(a: dict[str, Any]) -> str:
    ratio = a["agenda"] / a["resolution"] if a["resolution"] else float("inf")
    return f"{secs(a['agenda'])} ÷ {secs(a['resolution'])} = {ratio:.1f}× ({a['points']} changes)"


def machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return (
        f"{os.cpu_count()} CPUs, load average {load[0]:.1f}, Python "
        f"{sys.version.split()[0]}, {sys.platform}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m octui.bench",
        description="Build synthetic repositories and measure resolution at each size.",
    )
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated sizes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best is kept)")
    parser.add_argument("--no-tui", action="store_true", help="skip the explorer timings")
    parser.add_argument("--json", metavar="FILE", help="also write the raw results as JSON")
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
    if args.worker == "tui":
        print(json.dumps(tui_worker(Path(args.rest[0]))))
        return 0
    if args.worker == "agenda":
        print(json.dumps(agenda_worker(Path(args.rest[0]))))
        return 0
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes: expected comma-separated whole numbers, got {args.sizes!r}")
    tui = not args.no_tui and tui_available()
    work = Path(tempfile.mkdtemp(prefix="octui-bench-"))
    started = time.perf_counter()
    before = machine()
    try:
        rows = [measure(n, work, args.seed, args.repeat, tui) for n in sizes]
        sample = sample_first_screen(work) if tui else None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"octui benchmark — {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}")
    print(f"machine: {before} (at start); {machine()} (at end)")
    print(f"query: --role {ROLE} --task {TASK!r} --as-of {AS_OF}; best of {args.repeat}")
    print()
    print(table(rows, sample, tui))
    print()
    for r in rows:
        extra = ""
        t = r.get("tui") or {}
        if tui and "error" not in t:
            extra = (
                f"; explorer: leadership ({t['leadership_rows']:,} included, "
                f"{t['leadership_exclusions']:,} excluded) shown in "
                f"{ms(t['role_switch_to_tables'])}, End key {ms(t['scroll_to_end'])}"
            )
        print(
            f"- {r['size']:,} objects ({r['files']:,} files): worst task/role/as_of/edit "
            f"{ms(r['task_max'])}/{ms(r['role_max'])}/{ms(r['as_of_max'])}/{ms(r['edit_max'])}"
            f" (3 edits re-parsed {r['reparsed']} files); audit {ms(r['audit'])} for "
            f"{r['audit_roles']} roles and {r['audit_findings']:,} findings "
            f"({r['audit_lines']:,} with a line), its JSON in {ms(r['audit_json'])}{extra}"
        )
    if sample is not None:
        print(
            f"- explorer first screen on sample-repo (process start → first tables): {secs(sample)}"
        )
    elif not tui:
        print("- explorer: not measured (octui.tui not importable or --no-tui)")
    print(f"- total benchmark time: {secs(time.perf_counter() - started)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2, default=str), encoding="utf-8")
    return 0 if all(r["identical"] and r["memo_ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
