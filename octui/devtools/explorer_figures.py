"""The explorer's figures for the benchmark: first screen, keystroke latency, idle CPU.

The explorer runs headless (Textual's ``run_test()``) in a process of its own, with the
persistent cache warm. Every time is taken **inside the app**, on Textual's own clock (the
clock that stamps each event's ``time`` when the driver creates it):

- a **paint** is one compositor update handed to ``App._display`` (headless, the last step
  — turning the update into escape codes and writing them to a terminal — is skipped; it is
  the same small cost for every key and is not counted);
- **first screen** — CPU seconds (user + system, every thread) from the start of the process
  (interpreter and imports included) to the first paint made once the first resolution is
  applied: the tables the user sees;
- **a keystroke** — times from the key event's own ``time`` (stamped when the driver hands
  it to the app's queue, so waiting behind a busy app counts), each in wall milliseconds:

  - ``echo``: the first paint after it (the character in the field, the moved cursor);
  - ``shown``: the first paint after the last foreground step the key caused — a new
    resolution shown by ``apply_view`` (typing in the task field, a new role, a day on) and
    the detail pane filled by ``_select`` (a cursor move, a tab, after every new view). This
    is **the key handled**: the key's handler, the messages it posted (``Input.Changed``,
    ``Select.Changed``, ``RowTable.Highlighted``…), the re-resolution on the resolver thread
    and the paint of its tables;
  - ``settled``: the last paint before the app went quiet — ``shown`` plus the detail
    pane's background blocks (the Roles block, why-not), which say "resolving…" until their
    thread is done;
  - ``cpu``: CPU of the whole process from sending the key to quiet (every thread).

  The app is quiet when no worker but the repository watcher runs or waits to start, no
  one-off thread it started runs, the newest resolution is applied, the prefetch of the
  likely next views and the idle garbage collection the key scheduled are over (both start
  on timers after the key's own work, so no paint or worker says they are coming) and
  nothing was painted for :data:`QUIET` s; only then is the next key sent, so each figure is
  one key on an otherwise idle explorer (keys never overlap), and ``cpu`` includes the
  prefetch the key caused. The explorer's typing debounce (a deliberate wait for the
  typist to pause, 150 ms by default) is set to 0 here: the figure is the work a key costs;
  a user who stops typing waits the debounce and then that;
- the keys, by kind (:data:`KINDS`, pressed in :func:`_steps`' order): ``cursor`` (↓ and
  PgDn in the Included and Excluded tables), ``tab`` (``1``/``2``/``3``), ``type`` (one
  character of the task field), ``as_of`` (``]``/``[``: a day on or back), ``role`` (Enter
  picking the next role in the opened role list); the keys that only get there (``r``
  opening the list, ↓ inside it, ``t``, Esc) are not counted. Each kind reports the median
  and the worst of each time; the benchmark's ``key_ms`` is the worst ``shown`` of all (with
  ``--repeat``, per kind the best session's: see :func:`row_figures`);
- **idle CPU** — CPU of the whole process (Textual's timers, the repository watcher and its
  thread) over :data:`IDLE_SECONDS` of wall time once everything is quiet (the last key's
  prefetch included, as above), in % of one core. What the prefetch cost is reported apart:
  ``prefetch_cpu_s``, the CPU its thread spent over all the keys, and ``prefetch_views``, the
  views it made (a user who pauses after a key sees that CPU once, then the idle figure);
  ``watch`` says whether the watcher followed filesystem events (``watchfiles``) or polled
  (no inotify watches to be had, say) at the end of the window, and
  ``idle_whole_checks`` how many of the watcher's periodic whole-tree checks (one per
  ``FULL_CHECK_S`` without events, a safety net for what events miss) fell in the window.
"""

from __future__ import annotations

import asyncio
import math
import os
import statistics
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from unittest import mock

from octui.tui.appclock import AppClock, Key

QUIET = 0.3
"""Seconds without a paint (and without a running worker) that end a keystroke."""
KEY_TIMEOUT = 300.0
"""Seconds after which a keystroke that has not gone quiet fails the worker (its figures
would be unknown, not slow)."""
IDLE_SECONDS = 8.0
TYPED_TASK = "refund policy"
KINDS = ("cursor", "tab", "type", "as_of", "role")


def _steps(roles: int) -> list[tuple[str | None, str]]:
    """``(kind or None when not counted, key)`` in the order they are pressed."""
    cursor = [("cursor", "down")] * 6 + [("cursor", "pagedown")] * 2
    steps: list[tuple[str | None, str]] = [(None, "escape"), *cursor]
    steps += [("tab", "2"), *cursor, ("tab", "3"), ("tab", "1")]
    steps += [(None, "t")]  # into the task field
    steps += [("type", "space" if ch == " " else ch) for ch in TYPED_TASK]
    steps += [(None, "escape"), ("as_of", "right_square_bracket")]
    steps += [("as_of", "right_square_bracket"), ("as_of", "left_square_bracket")]
    for _ in range(min(3, roles - 1)):
        steps += [(None, "r"), (None, "down"), ("role", "enter")]
    return steps


def _busy(app: Any, threads: set[int]) -> bool:
    """True while a resolution is owed, a worker but the repository watcher runs (or is
    about to), the prefetch or the idle collection is scheduled or running, or a thread
    started since ``threads`` (a one-off job such as the Roles block's; the explorer's
    long-lived ``octui-…`` threads excepted) has not finished."""
    if app.applied_generation != app.generation or not app.settled.is_set():
        return True
    if any(not w.is_finished and w.group != "watch" for w in app.workers):
        return True
    features = app.feature_set
    if features.prefetch.pending or features.collector.pending:
        return True
    return any(
        t.ident not in threads and not t.name.startswith("octui-") for t in threading.enumerate()
    )


async def quiet(app: Any, clock: AppClock, threads: set[int]) -> None:
    """Wait until the app is quiet: not busy and nothing painted for :data:`QUIET` s."""
    started = clock.now()
    while clock.now() - started < KEY_TIMEOUT:
        await asyncio.sleep(0.01)
        last = max(clock.paints[-1] if clock.paints else started, started)
        if not _busy(app, threads) and clock.now() - last >= QUIET:
            return
    raise TimeoutError(f"the explorer did not go quiet within {KEY_TIMEOUT:g} s")


async def _press(pilot: Any, app: Any, clock: AppClock, key: str, threads: set[int]) -> Key:
    """Send one key and wait for quiet; its times."""
    since = (len(clock.keys), len(clock.paints), len(clock.steps))
    c0 = time.process_time()
    await pilot.press(key)
    await quiet(app, clock, threads)
    return clock.key(since, 1000 * (time.process_time() - c0))


def summary(times: dict[str, list[Key]]) -> dict[str, dict[str, float]]:
    """Per kind: how many keys, and the median and worst of each time (milliseconds)."""
    out: dict[str, dict[str, float]] = {}
    for kind, keys in times.items():
        if not keys:
            continue
        out[kind] = {"n": len(keys)}
        for name in ("shown", "echo", "settled", "cpu"):
            values = [getattr(k, name) for k in keys]
            out[kind][name + "_median_ms"] = round(statistics.median(values), 1)
            out[kind][name + "_max_ms"] = round(max(values), 1)
    return out


def tui_worker(repo: Path, role: str, as_of: datetime) -> dict[str, Any]:
    """One explorer session's figures. The explorer reads and writes its settings (the theme,
    the role remembered per repository) in a folder of its own for the session: the user's
    saved theme does not change what is measured, and the benchmark's repositories are not
    remembered in the user's file."""
    from octui.tui.settings import ENV_DIR

    with (
        tempfile.TemporaryDirectory(prefix="octui-bench-settings-") as folder,
        mock.patch.dict(os.environ, {ENV_DIR: folder}),
    ):
        return asyncio.run(_tui(repo, role, as_of))


async def _tui(repo: Path, role: str, as_of: datetime) -> dict[str, Any]:
    from octui.tui.app import create_app

    app = create_app(repo, role=role, task="", as_of=as_of, watch=True, cursor_blink=False)
    app.debounce = 0.0  # see the module: the work of a key, not the typing pause
    clock = AppClock(app)
    out: dict[str, Any] = {"effects": {}}
    async with app.run_test(size=(160, 48)) as pilot:
        await app.wait_settled()
        threads = {t.ident for t in threading.enumerate() if t.ident is not None}
        await quiet(app, clock, threads)
        out["first_screen"] = clock.first_screen_cpu
        out["first_screen_parsed"] = clock.first_screen_parsed
        out["included_rows"] = len(app.view.included) if app.view else 0
        roles = list(app.session.repository.config.roles) if app.session.repository else []
        times: dict[str, list[Key]] = {kind: [] for kind in KINDS}
        for kind, key in _steps(len(roles)):
            before = _inputs_of(app)
            elapsed = await _press(pilot, app, clock, key, threads)
            if kind is not None:
                times[kind].append(elapsed)
                if _inputs_of(app) != before:
                    out["effects"][kind] = out["effects"].get(kind, 0) + 1
        out["keys"] = summary(times)
        out["task_shown"] = app.view.query.task if app.view else None
        out["role_shown"] = app.view.query.role if app.view else None
        prefetch = app.feature_set.prefetch
        out["prefetch_cpu_s"], out["prefetch_views"] = prefetch.cpu, prefetch.made
        checks = _whole_checks(app)
        c0, w0 = time.process_time(), time.perf_counter()
        await asyncio.sleep(IDLE_SECONDS)  # idle: only the watcher and Textual's timers run
        out["idle_cpu_pct"] = 100 * (time.process_time() - c0) / (time.perf_counter() - w0)
        out["idle_whole_checks"] = _whole_checks(app) - checks
        out["watch"] = _watch_mode(app)
    return out


def _whole_checks(app: Any) -> int:
    """How often the watcher has checked the whole tree (its periodic safety net) so far."""
    watch = app.resolving.watcher
    return watch.whole_checks if watch is not None else 0


def _inputs_of(app: Any) -> tuple[object, ...]:
    """What a key may change that the results show: the applied query and the selection."""
    query = app.view.query if app.view else None
    return (query, app.selected, app.main.query_one("#results").active)


def _watch_mode(app: Any) -> str | None:
    """How the watcher watched at the end of the idle window (None: it was not running)."""
    watch = app.resolving.watcher
    return watch.mode if watch is not None else None


def row_figures(row: dict[str, Any], answers: list[dict[str, Any]]) -> None:
    """The explorer workers' answers (one per ``--repeat`` session, each in a process of its
    own) as the benchmark row's figures. As the session's timings, each is the best
    session's, since a shared machine only ever adds time: the first screen and the idle
    CPU the lowest of the sessions'; per kind of key (``keys``), each median and each worst
    the lowest of the sessions'. ``key_ms`` is the worst kind's worst key so taken;
    ``key_worst_ms`` the single worst key of any session, and ``explorer_runs`` each
    session's first screen, worst key and idle CPU, so the spread is in the answer. A kind
    whose keys changed nothing the results show in some session has a reason: its figure
    would not be the work it stands for."""
    best = min(answers, key=lambda a: math.inf if a["first_screen"] is None else a["first_screen"])
    row["first_screen_s"] = _seconds(best["first_screen"])
    row["first_screen_parsed"] = best["first_screen_parsed"]
    row["idle_cpu_pct"] = round(min(a["idle_cpu_pct"] for a in answers), 2)
    row["idle_whole_checks"] = max(a["idle_whole_checks"] for a in answers)
    least = min(answers, key=lambda a: a["prefetch_cpu_s"])
    row["prefetch_cpu_s"] = round(least["prefetch_cpu_s"], 3)
    row["prefetch_views"] = least["prefetch_views"]
    modes = {a["watch"] for a in answers}
    row["watch"] = modes.pop() if len(modes) == 1 else "mixed"
    kinds = [kind for kind in answers[0]["keys"] if all(kind in a["keys"] for a in answers)]
    row["keys"] = {
        kind: {
            name: min(a["keys"][kind][name] for a in answers) for name in answers[0]["keys"][kind]
        }
        for kind in kinds
    }
    row["key_ms"] = _worst_key(row["keys"])
    row["explorer_runs"] = [
        {
            "first_screen_s": _seconds(a["first_screen"]),
            "key_ms": _worst_key(a["keys"]),
            "idle_cpu_pct": round(a["idle_cpu_pct"], 2),
        }
        for a in answers
    ]
    row["key_worst_ms"] = max(
        (run["key_ms"] for run in row["explorer_runs"] if run["key_ms"] is not None), default=None
    )
    for kind in kinds:
        if not all(a["effects"].get(kind) for a in answers):
            row["reasons"]["keys." + kind] = "these keys changed nothing the results show"


def _worst_key(keys: dict[str, dict[str, float]]) -> float | None:
    """The worst ``shown`` of any kind of key (None: no key was timed)."""
    return max((k["shown_max_ms"] for k in keys.values()), default=None)


def _seconds(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
