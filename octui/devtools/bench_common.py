"""What the benchmark's parts share: the one query it asks, the CPU clock, the log line, the
repositories' age, and the child processes (their environment, the bytecode they read) in
which every CPU and peak-memory figure is measured on its own.

Only the standard library (and :mod:`octui.load.names`, which imports nothing) is imported
at the top of the benchmark's modules: a worker is a
new ``python -m octui.devtools.bench`` process, and whatever the benchmark imports before the
work starts would be counted in the worker's figures.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

AS_OF = "2026-06-01"
ROLE = "support"
TASK = "refund invoice"
BENCH = "octui.devtools.bench"
"""The module every worker process runs (``python -m`` it, ``--worker KIND``)."""


def cpu() -> float:
    """CPU seconds (user + system) of this process so far."""
    return time.process_time()


def peak_mb() -> float:
    """This process's own peak resident memory so far, in MB: the kernel's high-water mark
    of its memory (``VmHWM``) where there is one. Not ``ru_maxrss`` there: Linux carries the
    parent's peak into a child across ``fork`` and keeps it across ``exec``, so a worker
    started by a benchmark holding the repositories it wrote reported the benchmark's
    memory whenever its own was less (a 1,000-object session 52 MB where its own peak is
    37 MB; with ``--growth``, which writes every repository first, 523 MB). Where
    ``ru_maxrss`` is the figure, macOS gives it in bytes, Linux in kilobytes."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def instant(text: str) -> datetime:
    """``text`` as the resolver's instant (``--as-of`` syntax)."""
    from octui.core.timeutil import parse_instant

    return parse_instant(text)


def log(text: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


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


def worker_argv(kind: str, repo: Path) -> list[str]:
    """The command line of the ``kind`` worker on ``repo``."""
    return [sys.executable, "-m", BENCH, "--worker", kind, str(repo)]


def run_worker(kind: str, repo: Path, env: dict[str, str]) -> dict[str, Any]:
    """Run the ``kind`` worker on ``repo`` and return the JSON object it printed; a worker
    that fails stops the benchmark with its stderr."""
    result = run_child(worker_argv(kind, repo), env)
    if result["code"] != 0:
        raise RuntimeError(result["err"].decode(errors="replace"))
    answer: dict[str, Any] = json.loads(result["out"])
    return answer


def written(work: Path, size: int, seed: int) -> Path:
    """The synthetic repository of ``size`` objects (``opencontext synth``), written into
    ``work`` and aged (see :func:`age`)."""
    from octui.synth.repository import write_repository

    repo = work / f"org-{size}"
    log(f"{size}: writing the repository")
    write_repository(repo, size, seed)
    age(repo)
    return repo


def age(root: Path) -> None:
    """Date every file an hour back (the persistent cache ignores files written just now)."""
    past = time.time() - 3600
    for folder, _dirs, names in os.walk(root):
        for name in names:
            os.utime(os.path.join(folder, name), (past, past))


def child_env(work: Path, size: int) -> dict[str, str]:
    """The environment of every child: its own persistent cache, never the user's; and
    Python's bytecode read and written as usual (see :func:`compiled`)."""
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = str(work / f"cache-{size}")
    env.pop("OCTUI_NO_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compiled(env: dict[str, str], package: str | None = None) -> bool:
    """Compile octui's modules to bytecode where Python keeps it (``__pycache__`` beside
    each module), once, before anything is measured: every process measured then reads
    bytecode as an installed octui does — pip compiles a wheel when it installs it, and an
    editable install's first run writes it — instead of compiling octui's source again in
    every run, as it would where ``PYTHONDONTWRITEBYTECODE`` is set (it is on the machines
    this project is measured on: about 60 ms of every run). Reported as ``bytecode``
    (False: the folder could not be written, and the figures include compiling).
    ``package``: another folder to compile instead (the tests')."""
    if package is None:
        import octui

        package = os.path.dirname(octui.__file__)
    argv = [sys.executable, "-m", "compileall", "-q", "-j", "0", package]
    return subprocess.run(argv, env=env, capture_output=True, check=False).returncode == 0
