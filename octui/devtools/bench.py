"""``python -m octui.devtools.bench``: how resolution scales with the size of an organization.

For each size it writes a synthetic repository (``opencontext synth``) into a temporary
folder and measures, in one run, in **CPU seconds** (user + system: the machine is shared,
so wall time says more about the neighbours than about octui):

- **the floors** — ``floor_csafeloader_s``: walk the tree, read every object file and
  parse its front matter with ``yaml.CSafeLoader``; ``floor_io_s``: walk, ``lstat`` and
  read every file, nothing else, as tightly as Python does it; ``floor_io_pathlib_s``: the
  same the way the issue that set the targets measured it (``pathlib``). All in-process;
- **cold** — ``opencontext resolve --format json --no-cache`` as a whole new process
  (interpreter and imports included);
- **first** — the same with an empty persistent cache (it parses and writes the cache);
- **cached** — the same with the persistent cache warm;
- **task / role / as_of** — re-resolution in a loaded :class:`Session` after changing only
  that input, each to a value not resolved before, the bundle digest included (median;
  the best of ``--repeat`` sessions, each in its own process: ``session_runs`` has each);
- **edit** — one file edited on disk (a body-only edit, and an edit of a field steps 1–7
  read), then reload + re-resolve + digest (median of each kind; ``edit_ms`` is the worse),
  the reload told the edited path as the explorer's watcher tells it; ``edit_scan_*_ms``
  the same reloads without the hint (a full scan of the tree);
- **session peak** — peak resident memory of the session after 8 roles × 8 instants;
- **explorer** — headless ``run_test()`` with a warm cache, ``--repeat`` sessions each in its
  own process, each figure the best session's as above (``key_worst_ms``: the single worst
  key of any session; ``explorer_runs`` has each session's first screen, worst key and idle
  CPU; :mod:`octui.devtools.explorer_figures` says exactly what is timed): ``first_screen_s``,
  CPU from process start to the first paint of the results (``first_screen_parsed``: files
  that session's explorer parsed rather than took from the cache — in the first session the
  12 the edit figures just rewrote, which the cache rightly does not trust);
  ``key_ms``, the worst keystroke of any kind, in wall milliseconds (a latency) from the key
  event reaching the app to the paint that shows what it asked for — re-resolution,
  ``apply_view`` and the detail pane included, the detail pane's background Roles and
  why-not blocks not (they are ``settled``); ``keys``, per kind (``cursor``, ``tab``,
  ``type``, ``as_of``, ``role``) the median and worst of ``shown``, ``echo``, ``settled`` and
  ``cpu``; ``idle_cpu_pct``, the CPU the quiet explorer spends once the last key's background
  work, its prefetch included, is over (``watch``: whether the watcher followed filesystem
  events or polled; ``prefetch_cpu_s``: what the prefetch cost over all the keys).

Every output is also checked (``identical``): the cold, first and cached runs print the same
bundle (up to ``bundle_id`` and ``generated_at``), every memoised answer of the session equals
a resolution of the same repository without the memo, and after the edits the session's
answer equals one from a fresh load without any cache.

A figure that cannot be measured is ``null`` and the reason is printed (``reasons``).
The verdicts judge every target at every size measured, and the growth per doubling of
every figure the growth target covers (:data:`GROWTH`) from each size to the next, with
the floors' own growth beside it. ``--report FILE...`` measures nothing: it prints the
table and the verdicts of the rows earlier ``--json`` runs wrote (say, 1k to 50k in one
file and 100k in another). ``--growth`` measures only what the growth target covers, in
rounds that each measure every size in turn, so that the machine's drift falls on every
size alike (:mod:`~octui.devtools.bench_growth`).
Workers run in child processes so that each CPU and peak-memory figure is its own.

This module is the command line, one size's run, the table, the targets and the ``--json``
rows; the figures are measured in :mod:`~octui.devtools.bench_cold` (the floors and the whole
processes), :mod:`~octui.devtools.bench_session` (the session, the audit and the agenda) and
:mod:`~octui.devtools.explorer_figures` (the explorer), sharing
:mod:`~octui.devtools.bench_common` (the query, the clock, the child processes).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from octui.devtools.bench_cold import FLOOR_KEYS, cli_worker, cold_figures, floor_figures
from octui.devtools.bench_common import (
    AS_OF,
    ROLE,
    TASK,
    child_env,
    compiled,
    instant,
    log,
    run_child,
    run_worker,
    worker_argv,
    written,
)
from octui.devtools.bench_session import (
    AGENDA_DAYS,
    agenda_figures,
    agenda_worker,
    audit_figures,
    audit_worker,
    session_figures,
    warm_worker,
)

GROWTH: list[tuple[str, str]] = [
    ("cold_s", "cold"),
    ("cached_s", "cache warm"),
    ("task_ms", "new task"),
    ("role_ms", "new role"),
    ("as_of_ms", "new as_of"),
    ("edit_body_ms", "edit: body"),
    ("edit_field_ms", "edit: field"),
    ("session_peak_mb", "session peak"),
]
"""The figures whose growth is a target (every one of the table measured at every size),
each with its name in the verdict."""
SIZES = "1000,10000,50000"
HUGE = 100_000
EXPLORER_KEYS = ("first_screen_s", "idle_cpu_pct", "key_ms", "key_worst_ms")


def tui_worker(repo: Path) -> dict[str, Any]:
    """Headless explorer: first screen, keystroke latency, idle CPU (see
    :mod:`octui.devtools.explorer_figures`)."""
    # Imported here, not at the top: every worker process imports this module, and the
    # explorer's imports (asyncio…) would count in the other workers' figures.
    from octui.devtools.explorer_figures import tui_worker as explorer

    return explorer(repo, ROLE, instant(AS_OF))


WORKERS: dict[str, Callable[[Path], dict[str, Any]]] = {
    "warm": warm_worker,
    "audit": audit_worker,
    "tui": tui_worker,
    "agenda": agenda_worker,
}
"""The workers that print one JSON object (``cli`` runs the command line instead)."""


# -- one size -------------------------------------------------------------------------------------


def tui_available() -> bool:
    try:
        import octui.tui.app  # noqa: F401
    except Exception:
        return False
    return True


def measure(size: int, work: Path, seed: int, repeat: int, tui: bool) -> dict[str, Any]:
    """One size: every figure of the table, as CPU seconds / milliseconds (see the module)."""
    repo = written(work, size, seed)
    row: dict[str, Any] = {"objects": size, "reasons": {}}
    log(f"{size}: floors")
    floor_figures(row, repo, repeat)
    env = child_env(work, size)
    row["bytecode"] = compiled(env)
    identical = cold_figures(row, repo, env, repeat)
    log(f"{size}: session")
    session_figures(row, [run_worker("warm", repo, env) for _ in range(repeat)], identical)
    log(f"{size}: audit after load")
    audit_figures(row, run_worker("audit", repo, env))
    log(f"{size}: change agenda, {AGENDA_DAYS} days")
    agenda_figures(row, [run_worker("agenda", repo, env) for _ in range(repeat)])
    explorer_row(row, repo, env, tui, repeat)
    shutil.rmtree(repo, ignore_errors=True)
    return row


def explorer_row(
    row: dict[str, Any], repo: Path, env: dict[str, str], tui: bool, repeat: int
) -> None:
    """The explorer's figures into ``row`` (``repeat`` sessions, each in a process of its own:
    see :func:`~octui.devtools.explorer_figures.row_figures`), or, if it was not measured,
    why each is null."""
    for key in EXPLORER_KEYS:
        row[key] = None
    if not tui:
        for key in EXPLORER_KEYS:
            row["reasons"][key] = "explorer not measured (--no-tui, or octui.tui not importable)"
        return
    answers = []
    for run in range(repeat):
        log(f"{row['objects']}: explorer, session {run + 1} of {repeat}")
        t = run_child(worker_argv("tui", repo), env)
        if t["code"] != 0:
            why = "the explorer worker failed: " + t["err"][-300:].decode(errors="replace")
            for key in EXPLORER_KEYS:
                row["reasons"][key] = why
            return
        answers.append(json.loads(t["out"]))
    from octui.devtools.explorer_figures import row_figures  # here for tui_worker's reason

    row_figures(row, answers)


# -- the table and the targets --------------------------------------------------------------------


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
    ("floor_io_pathlib_s", "I/O floor, as the issue measured it", "s"),
    ("cold_s", "cold (no cache)", "s"),
    ("cached_s", "cold (cache warm)", "s"),
    ("first_s", "first run (fills cache)", "s"),
    ("settle_s", "second run (keeps snapshot)", "s"),
    ("task_ms", "new task", "ms"),
    ("role_ms", "new role", "ms"),
    ("as_of_ms", "new as_of", "ms"),
    ("edit_body_ms", "edit: body", "ms"),
    ("edit_field_ms", "edit: field", "ms"),
    ("session_peak_mb", "session peak", "MB"),
    ("audit_s", "audit, every role", "s"),
    ("agenda_s", "agenda 90 d (CPU)", "s"),
    ("agenda_ratio", "agenda ÷ 1 resolution", "×"),
    ("agenda_explorer_s", "explorer's agenda 90 d (no digests)", "s"),
    ("agenda_explorer_ratio", "explorer's agenda ÷ 1 resolution", "×"),
    ("first_screen_s", "explorer first screen", "s"),
    ("idle_cpu_pct", "explorer idle CPU", "%"),
    ("key_ms", "keystroke", "ms"),
    ("key_worst_ms", "worst key, any session", "ms"),
]


GROWTH_COLUMNS = [c for c in COLUMNS if c[0] in {"objects", *FLOOR_KEYS, *dict(GROWTH)}]
"""The columns of ``--growth``: the floors and the figures the growth target covers."""


def table(rows: list[dict[str, Any]], columns: list[tuple[str, str, str]] = COLUMNS) -> str:
    head = [title for _, title, _ in columns] + ["cold ÷ floors", "cached ÷ floor", "identical"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [f"{r['objects']:,}"] + [_cell(r.get(key), unit) for key, _, unit in columns[1:]]
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
    ("cold ≤ 4× I/O floor as the issue measured it (pathlib)",
     {10_000: 4.0, 50_000: 4.0, HUGE: 4.0},
     lambda r: r["cold_s"] / r["floor_io_pathlib_s"]),
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
    ("agenda 90 d ÷ 1 resolution (changes: every point's digests)", {10_000: 3.0},
     lambda r: r["agenda_ratio"]),
    ("agenda 90 d ÷ 1 resolution (the explorer's: no digests)", {10_000: 3.0},
     lambda r: r["agenda_explorer_ratio"]),
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
            except (TypeError, KeyError):  # not measured, or a row from an older benchmark
                value = None
            if value is None:
                out.append(f"- {name} at {size:,}: not measured")
            else:
                holds = "holds" if value <= limit else "DOES NOT HOLD"
                out.append(f"- {name} at {size:,}: {value:.2f} (target ≤ {limit:g}) {holds}")
    return out + growth_lines(rows)


def growth_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The growth verdict of each step from one size to the next."""
    by_size = {r["objects"]: r for r in rows}
    return [growth_verdict(by_size[a], by_size[b]) for a, b in itertools.pairwise(sorted(by_size))]


GROWTH_LIMIT = 2.2
"""The most any figure may grow per doubling of the objects (issue #13: linear)."""


def per_doubling(small: dict[str, Any], big: dict[str, Any], key: str) -> float | None:
    """How many times ``key`` grew per doubling of the objects from ``small`` to ``big``
    (``None`` when either row lacks it)."""
    before, after = small.get(key), big.get(key)
    if not before or after is None:
        return None
    return float((after / before) ** (1 / math.log2(big["objects"] / small["objects"])))


def growth_verdict(small: dict[str, Any], big: dict[str, Any]) -> str:
    """One line for a step between two sizes: every target figure's growth per doubling,
    whether the worst holds, and how the floors grew meanwhile (not a target: a step
    measured minutes apart carries the machine's drift, which the floors show)."""
    grew = {name: per_doubling(small, big, key) for key, name in GROWTH}
    known = {name: g for name, g in grew.items() if g is not None}
    floors = [g for g in (per_doubling(small, big, key) for key in FLOOR_KEYS) if g is not None]
    step = f"- growth {small['objects']:,} → {big['objects']:,}"
    if not known:
        return f"{step}: not measured"
    worst = max(known, key=lambda name: known[name])
    holds = "holds" if known[worst] <= GROWTH_LIMIT else "DOES NOT HOLD"
    each = ", ".join(f"{name} {g:.3f}" for name, g in known.items())
    floor = f"; the floors {min(floors):.2f}–{max(floors):.2f}×" if floors else ""
    return (
        f"{step}: worst {worst} {known[worst]:.3f}× per doubling (target ≤ {GROWTH_LIMIT:g}) "
        f"{holds} ({each}{floor})"
    )


def machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return (
        f"{os.cpu_count()} CPUs, load average {load[0]:.1f}, Python "
        f"{sys.version.split()[0]}, {sys.platform}"
    )


# -- the command line -----------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m octui.devtools.bench",
        description="Build synthetic repositories and measure resolution at each size "
        "(CPU seconds).",
    )
    parser.add_argument("--sizes", default=SIZES, help=f"comma-separated sizes ({SIZES})")
    parser.add_argument("--huge", action="store_true", help=f"also measure {HUGE:,} objects")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--repeat",
        type=int,
        help="runs per timing, the best kept (default 1); with --growth, rounds (default 3)",
    )
    parser.add_argument("--no-tui", action="store_true", help="skip the explorer figures")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per size instead of the table"
    )
    parser.add_argument(
        "--growth",
        action="store_true",
        help="measure only what the growth target covers, in --repeat rounds that each "
        "measure every size in turn (so the machine's drift falls on every size alike), "
        "and judge the growth from size to size",
    )
    parser.add_argument(
        "--report",
        nargs="+",
        metavar="FILE",
        help="measure nothing: print the table and the targets, the growth from size to size "
        "included, of the rows earlier --json runs wrote to FILE (say, 1k to 50k in one file "
        "and 100k in another)",
    )
    parser.add_argument("--worker", choices=["cli", *WORKERS], help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def worker(kind: str, rest: list[str]) -> int:
    """Be the ``kind`` worker: ``rest`` is the repository (and, for ``cli``, ``--`` and the
    command line to run)."""
    if kind == "cli":
        return cli_worker(rest[2:] if rest[1:2] == ["--"] else rest[1:])
    print(json.dumps(WORKERS[kind](Path(rest[0]))))
    return 0


def print_header(title: str, before: str) -> None:
    """The output's first lines: what ran, when, and the machine at its start and end."""
    print(f"{title} — {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}")
    print(f"machine: {before} (at start); {machine()} (at end)")


def print_table(rows: list[dict[str, Any]], repeat: int, before: str, started: float) -> None:
    """The table, the targets and the machine it ran on (without ``--json``)."""
    print_header("octui benchmark", before)
    print(f"query: --role {ROLE} --task {TASK!r} --as-of {AS_OF}; CPU seconds, best of "
          f"{repeat}")  # fmt: skip
    print_results(rows)
    print(f"- total benchmark time: {time.perf_counter() - started:.0f} s (wall)")


def print_results(rows: list[dict[str, Any]]) -> None:
    print()
    print(table(rows))
    print()
    print("\n".join(verdicts(rows)))


def read_rows(paths: list[str]) -> list[dict[str, Any]]:
    """The rows that earlier ``--json`` runs printed, from each file in ``paths`` (one JSON
    object per line), by size; :class:`ValueError` names the file and line of anything
    else, and a size given twice."""
    found: dict[int, tuple[dict[str, Any], str]] = {}
    for path in paths:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"{path}: cannot be read ({error})") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError:
                row = None
            if not isinstance(row, dict) or not isinstance(row.get("objects"), int):
                raise ValueError(f"{path}:{number}: not a row of the benchmark's --json output")
            where = f"{path}:{number}"
            if row["objects"] in found:
                raise ValueError(
                    f"{where}: {row['objects']:,} objects again (first at "
                    f"{found[row['objects']][1]}): give one run's rows for each size"
                )
            found[row["objects"]] = (row, where)
    if not found:
        raise ValueError(f"{', '.join(paths)}: no rows")
    return [found[size][0] for size in sorted(found)]


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.rest)
    if args.rest:  # only a worker takes positional arguments
        parser.error(
            f"unexpected arguments {' '.join(args.rest)!r} (--sizes takes one comma-separated list)"
        )
    if args.report:
        try:
            rows = read_rows(args.report)
        except ValueError as error:
            parser.error(f"--report: {error}")
        print_results(rows)
        return 0 if all(r.get("identical") for r in rows) else 1
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes: expected comma-separated whole numbers, got {args.sizes!r}")
    if args.huge and HUGE not in sizes:
        sizes.append(HUGE)
    if args.growth:
        rounds = 3 if args.repeat is None else args.repeat
        if len(set(sizes)) < 2:
            parser.error("--growth: give at least two sizes (--sizes, --huge)")
        if rounds < 2:
            parser.error("--growth: give at least two rounds (--repeat): one is the plain run")
        return growth(sorted(set(sizes)), args.seed, rounds, args.json)
    repeat = 1 if args.repeat is None else args.repeat
    tui = not args.no_tui and tui_available()
    work = Path(tempfile.mkdtemp(prefix="octui-bench-"))
    started = time.perf_counter()
    before = machine()
    rows = []
    try:
        for n in sizes:
            row = measure(n, work, args.seed, repeat, tui)
            rows.append(row)
            for key, why in row["reasons"].items():
                log(f"{n}: {key} is null: {why}")
            if args.json:
                print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.json:
        print_table(rows, repeat, before, started)
    return 0 if all(r["identical"] for r in rows) else 1


def growth(sizes: list[int], seed: int, rounds: int, as_json: bool) -> int:
    """``--growth`` (its options checked by :func:`main`): see
    :mod:`octui.devtools.bench_growth`."""
    from octui.devtools.bench_growth import measure_growth

    work = Path(tempfile.mkdtemp(prefix="octui-bench-"))
    before = machine()
    try:
        rows = measure_growth(sizes, work, seed, rounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if as_json:
        for row in rows:
            print(json.dumps(row))
    else:
        print_header("octui benchmark, growth", before)
        print(f"{rounds} rounds, each measuring every size in turn; CPU, best round; peak, highest")
        print()
        print(table(rows, GROWTH_COLUMNS))
        print()
        print("\n".join(growth_lines(rows)))
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
