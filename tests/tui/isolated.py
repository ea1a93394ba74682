"""Explorer scenarios run in a child process, so that a hang fails the test (the child is
killed at the deadline) instead of hanging the suite, and so that quitting is measured up
to the end of the process (an event loop that waits for its threads, the interpreter
joining them at exit).

A test module registers ``async def name(tmp: Path)`` scenarios with :func:`scenario` and
ends with ``if __name__ == "__main__": main(SCENARIOS)``; its tests call
:func:`run_scenario`. The scenario prints what the parent should check.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parents[1]
PASSED = "scenario passed"

Scenario = Callable[[Path], Coroutine[Any, Any, None]]


def registry() -> tuple[dict[str, Scenario], Callable[[Scenario], Scenario]]:
    found: dict[str, Scenario] = {}

    def scenario(fn: Scenario) -> Scenario:
        found[fn.__name__] = fn
        return fn

    return found, scenario


def run_scenario(module: str | Path, name: str, tmp_path: Path, deadline: float = 30) -> str:
    """Run scenario ``name`` of the test file ``module``; its output, once it passed."""
    paths = [str(TESTS), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    try:
        done = subprocess.run(
            [sys.executable, str(module), name, str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=deadline,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the explorer hung: {name} did not finish in {deadline} s")
    assert done.returncode == 0, done.stdout + done.stderr
    assert PASSED in done.stdout, done.stdout + done.stderr
    return done.stdout


def main(scenarios: dict[str, Scenario]) -> None:
    asyncio.run(scenarios[sys.argv[1]](Path(sys.argv[2])))
    # asyncio.run has closed the loop: it joined the threads of its default executor
    print(f"loop closed at {time.monotonic()}", flush=True)
    print(PASSED, flush=True)


def instant(out: str, label: str) -> float:
    """The ``time.monotonic()`` a scenario printed as ``label at <t>``."""
    prefix = f"{label} at "
    return float(next(x for x in out.splitlines() if x.startswith(prefix))[len(prefix) :])


def spy_notifications(app: Any) -> list[str]:
    """Every message the app notifies, from now on."""
    messages: list[str] = []
    notify = app.notify

    def spy(message: str, *args: Any, **kwargs: Any) -> None:
        messages.append(str(message))
        notify(message, *args, **kwargs)

    app.notify = spy
    return messages


async def settle(pilot: Any) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.wait_settled()
    await pilot.pause()


async def until(pilot: Any, condition: Callable[[], bool], timeout: float = 20) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await pilot.pause(0.05)
