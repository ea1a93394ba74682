"""``python -m octui.bench --growth``: the growth target measured without the machine's drift.

The benchmark measures one size after another, the largest minutes after the smallest; on
a shared machine whose speed drifts, a step's growth then carries the drift as well as
octui's own (the floors measured beside each size show how much). ``--growth`` writes every
size's repository first and then measures in rounds (``--repeat`` of them, 3 unless it
says otherwise): each round
measures, for every size in turn, what the growth target covers — the floors, one cold and
one cache-warm run of the command line, and one session (a new task, role and as_of, both
edits, the peak), each as the benchmark measures it — so every size's samples are spread
over the same minutes. As in the plain benchmark's ``--repeat``, each timing is the best
round's and the session peak the highest round's; the verdict is the benchmark's own
growth line for each step. No explorer, audit or agenda: no growth target covers them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from octui.devtools.bench_cold import FLOOR_KEYS, cold_figures, floor_figures
from octui.devtools.bench_common import child_env, compiled, log, run_worker, written
from octui.devtools.bench_session import session_figures

WHOLE = ("cold_s", "cached_s")
"""The command line's figures the growth target covers."""


def measure_growth(sizes: list[int], work: Path, seed: int, rounds: int) -> list[dict[str, Any]]:
    """One row per size of ``sizes`` (in their order), measured in ``rounds`` interleaved
    rounds over repositories written first into ``work``."""
    repos = {size: written(work, size, seed) for size in sizes}
    envs = {size: child_env(work, size) for size in sizes}
    bytecode = compiled(envs[sizes[0]])
    samples: dict[int, list[dict[str, Any]]] = {size: [] for size in sizes}
    answers: dict[int, list[dict[str, Any]]] = {size: [] for size in sizes}
    identical = dict.fromkeys(sizes, True)
    for number in range(1, rounds + 1):
        for size in sizes:
            log(f"{size}: round {number} of {rounds}")
            measured: dict[str, Any] = {"objects": size}
            floor_figures(measured, repos[size], 1)
            identical[size] = cold_figures(measured, repos[size], envs[size], 1) and identical[size]
            samples[size].append(measured)
            log(f"{size}: session")
            answers[size].append(run_worker("warm", repos[size], envs[size]))
    rows = []
    for size in sizes:
        row: dict[str, Any] = {"objects": size, "reasons": {}, "bytecode": bytecode}
        row["files"] = samples[size][0]["files"]
        row["rounds"] = rounds
        for key in (*FLOOR_KEYS, *WHOLE):
            row[key] = min(s[key] for s in samples[size])
        row["whole_runs"] = [{key: s[key] for key in WHOLE} for s in samples[size]]
        session_figures(row, answers[size], identical[size])
        rows.append(row)
    return rows
