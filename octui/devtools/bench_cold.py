"""The benchmark's whole-process figures: the two floors, and ``opencontext resolve`` run as a
new process with no cache, with an empty persistent cache and with a warm one.

- ``floor_csafeloader_s``: walk the tree, read every object file and parse its front matter
  with ``yaml.CSafeLoader``; ``floor_io_s``: walk, ``lstat`` and read every file, nothing
  else, as tightly as Python does it (``os.scandir``, bytes); ``floor_io_pathlib_s``: the
  same as the issue that set the targets measured it (about 0.33 s at 10k and 1.5 s at
  50k there): ``pathlib``'s walk, sorted, ``lstat`` and ``read_text``. All in-process,
  best of ``--repeat``;
- ``cold_s`` / ``first_s`` / ``settle_s`` / ``cached_s``: CPU of the whole ``resolve --format
  json`` process (interpreter and imports included), which runs as the ``cli`` worker and
  reports its peak memory (``cold_peak_mb``, ``cached_peak_mb``) on stderr: with no cache;
  with an empty one (it fills the parse cache); the next run (served by the parse cache
  whole, it keeps the repository snapshot); and the runs after it. All must print the same
  bundle (up to ``bundle_id`` and ``generated_at``) and exit 0.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, NoReturn

from octui.devtools.bench_common import (
    AS_OF,
    ROLE,
    TASK,
    cpu,
    log,
    peak_mb,
    run_child,
    worker_argv,
)
from octui.load.names import is_object_path


def object_files(root: Path) -> list[str]:
    """Every object file under ``root``, in walk order (hidden entries skipped)."""
    found = []
    stack = [(str(root), "")]  # each folder with its path relative to ``root``
    while stack:
        folder, prefix = stack.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in reversed(entries):
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, prefix + entry.name + "/"))
            elif is_object_path(prefix + entry.name):
                found.append(entry.path)
    return found


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


def pathlib_object_files(root: Path) -> list[Path]:
    """:func:`object_files` found the ``pathlib`` way: ``rglob``, sorted, hidden entries and
    folders skipped (a folder is told by the ``lstat`` the floor makes anyway)."""
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not is_object_path(rel.as_posix()):
            continue
        if any(part.startswith(".") for part in rel.parts):
            continue
        found.append(path)
    return found


def io_floor_pathlib(root: Path) -> float:
    """CPU seconds to walk (sorted), ``lstat`` and read as text every object file the way the
    issue that set the I/O target measured its floor: with ``pathlib``."""
    start = cpu()
    for path in pathlib_object_files(root):
        if not stat.S_ISDIR(path.lstat().st_mode):
            path.read_text(encoding="utf-8", errors="replace")
    return cpu() - start


FLOOR_KEYS = ("floor_csafeloader_s", "floor_io_s", "floor_io_pathlib_s")
"""The floors' figures (:func:`floor_figures`)."""


def floor_figures(row: dict[str, Any], repo: Path, repeat: int) -> None:
    """``files``, ``floor_csafeloader_s``, ``floor_io_s`` and ``floor_io_pathlib_s`` into
    ``row`` (best of ``repeat``)."""
    floors = [parsing_floor(repo) for _ in range(repeat)]
    row["files"] = floors[0][1]
    row["floor_csafeloader_s"] = round(min(f[0] for f in floors), 3)
    row["floor_io_s"] = round(min(io_floor(repo) for _ in range(repeat)), 3)
    row["floor_io_pathlib_s"] = round(min(io_floor_pathlib(repo) for _ in range(repeat)), 3)


def resolve_argv(repo: Path, *extra: str) -> list[str]:
    return [
        *worker_argv("cli", repo),
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


def cli_worker(argv: list[str]) -> NoReturn:
    """Run the CLI exactly as ``opencontext`` does, reporting peak memory on stderr just
    before the process ends."""
    from octui.cli.main import entry

    def report_peak() -> None:
        print(f"OCTUI-BENCH-PEAK-MB {peak_mb():.0f}", file=sys.stderr)

    entry(argv, then=report_peak)


def peak_of(result: dict[str, Any]) -> float:
    m = re.search(rb"OCTUI-BENCH-PEAK-MB (\d+)", result["err"])
    return float(m.group(1)) if m else float("nan")


def cold_figures(row: dict[str, Any], repo: Path, env: dict[str, str], repeat: int) -> bool:
    """The cold, first and cached figures into ``row``; whether the runs printed the same
    bundle and all succeeded."""
    size = row["objects"]
    log(f"{size}: cold resolve, no cache")
    cold = [run_child(resolve_argv(repo, "--no-cache"), env) for _ in range(repeat)]
    log(f"{size}: cold resolve, cache empty then warm")
    first = run_child(resolve_argv(repo), env)
    settle = run_child(resolve_argv(repo), env)
    cached = [run_child(resolve_argv(repo), env) for _ in range(repeat)]
    outputs = {normalised(r["out"]) for r in [*cold, first, settle, *cached]}
    codes = {r["code"] for r in [*cold, first, settle, *cached]}
    row["cold_s"] = round(min(r["cpu"] for r in cold), 3)
    row["first_s"] = round(first["cpu"], 3)
    row["settle_s"] = round(settle["cpu"], 3)
    row["cached_s"] = round(min(r["cpu"] for r in cached), 3)
    row["cold_wall_s"] = round(min(r["wall"] for r in cold), 3)
    row["cold_peak_mb"] = max(peak_of(r) for r in cold)
    row["cached_peak_mb"] = max(peak_of(r) for r in cached)
    return len(outputs) == 1 and codes == {0}
