"""The explorer's why-not runs on one cancellable worker, and quitting never waits for
background work: a new selection cancels the answer it replaces (so threads never pile
up), and the app quits in under a second whatever is still running.

Quitting is measured in a child process, up to the end of that process: an event loop
that joins its threads on close, or an interpreter that joins them at exit, would show.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from repo_builder import make_repo, obj
from textual.widgets import Static

from octui.core.timeutil import parse_instant
from octui.tui.app import OctuiApp, create_app
from tui.isolated import instant, main, registry, run_scenario, settle, until

SCENARIOS, scenario = registry()
AS_OF = "2026-06-01"
QUIT_WITHIN = 2.0
"""Seconds from pressing q until the app has quit and its loop is closed: well under a
second on an idle machine, 1.2 s seen with the suite in parallel on two busy cores; a quit
that waited for the work it should cancel takes as long as that work."""
EXIT_WITHIN = 5.0
"""Seconds from pressing q to the end of the process: the interpreter's own teardown of a
large heap takes a fraction of a second; joining a thread that still works takes as long
as that work (30 s here)."""


def outranked_repo(root: Path, pairs: int) -> Path:
    """``pairs`` ids, each with a canonical copy in effect and an informal copy starting
    later: every later copy is not yet valid now and outranked at every later instant."""
    files: dict[str, Any] = {}
    for i in range(pairs):
        files[f"w/{i}.md"] = obj(f"o{i:05d}", version=1)
        start = f"{2027 + i // 336}-{1 + (i // 28) % 12:02d}-{1 + i % 28:02d}"
        files[f"l/{i}.md"] = obj(f"o{i:05d}", version=2, authority="informal", valid_from=start)
    return make_repo(root, files)


def make_app(root: Path) -> Any:
    return create_app(
        root,
        role="reader",
        as_of=parse_instant(AS_OF),
        watch=False,
        cursor_blink=False,
        cache=False,
    )


class SlowWhyNot:
    """Stands in for ``why_not``: works until cancelled (or ``release`` is set), counting how
    many answers run at once."""

    def __init__(self, honour_cancel: bool = True) -> None:
        self.honour_cancel = honour_cancel
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.started = 0
        self.stopped = 0

    def __call__(self, resolution: Any, repository: Any, uid: int, **kw: Any) -> list[str]:
        cancelled = kw.get("cancelled") if self.honour_cancel else None
        with self.lock:
            self.running += 1
            self.started += 1
            self.most = max(self.most, self.running)
        try:
            deadline = time.monotonic() + 30
            while not self.release.is_set() and time.monotonic() < deadline:
                if cancelled is not None and cancelled():
                    from octui.analysis.whatif import WhyNotCancelled

                    with self.lock:
                        self.stopped += 1
                    raise WhyNotCancelled
                time.sleep(0.01)
            return [f"answer for {uid}"]
        finally:
            with self.lock:
                self.running -= 1


async def select_exclusions(pilot: Any, moves: int) -> None:
    await pilot.press("2")  # the excluded pane, first row selected
    await settle(pilot)
    for _ in range(moves):
        await pilot.press("down")
        await pilot.pause(0.02)


def whynot_box(app: OctuiApp) -> Static:
    return app.main.query_one("#whynot", Static)


async def test_a_new_selection_cancels_the_old_why_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import octui.tui.features.whynot as whynot

    slow = SlowWhyNot()
    monkeypatch.setattr(whynot, "why_not", slow)
    app = make_app(outranked_repo(tmp_path / "repo", 20))

    async def run() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot)
            await select_exclusions(pilot, 12)
            await until(pilot, lambda: slow.started >= 1 and slow.stopped >= slow.started - 1)
            assert slow.most == 1, f"{slow.most} why-not answers ran at once"
            assert slow.running <= 1
            alive = [t for t in threading.enumerate() if t.name == "octui-whynot"]
            assert len(alive) <= 1
            slow.release.set()
            selected = app.selected
            uid = app.view.exclusion_uid[id(selected)]
            await until(pilot, lambda: f"answer for {uid}" in str(whynot_box(app).render()))
            # the answer on screen is the current selection's, never an older one's
            assert whynot_box(app).display

    await asyncio.wait_for(run(), timeout=60)


@pytest.mark.parametrize(
    "name",
    [
        "quit_while_an_uncancellable_why_not_and_walk_run",
        "quit_while_why_not_runs_on_6000_objects",
    ],
)
def test_quitting_takes_under_a_second_whatever_is_running(name: str, tmp_path: Path) -> None:
    start = time.monotonic()
    out = run_scenario(__file__, name, tmp_path, deadline=90)
    ended = time.monotonic()
    pressed, closed = instant(out, "quit"), instant(out, "loop closed")
    assert start < pressed < closed < ended
    assert closed - pressed < QUIT_WITHIN, f"quitting took {closed - pressed:.2f} s"
    assert ended - pressed < EXIT_WITHIN, f"the process ended {ended - pressed:.2f} s after q"


# -- the scenarios, run in a child process ---------------------------------------------------


async def _quit(pilot: Any) -> None:
    print(f"quit at {time.monotonic()}", flush=True)
    await pilot.press("q")


@scenario
async def quit_while_an_uncancellable_why_not_and_walk_run(tmp: Path) -> None:
    import octui.tui.features.agenda as agenda
    import octui.tui.features.whynot as whynot

    slow = SlowWhyNot(honour_cancel=False)
    patch = pytest.MonkeyPatch()  # undone with the process, which ends with the scenario
    patch.setattr(whynot, "why_not", slow)

    def slow_walk(*args: Any, **kwargs: Any) -> None:
        time.sleep(30)

    patch.setattr(agenda, "find_change", slow_walk)
    app = make_app(outranked_repo(tmp / "repo", 5))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await select_exclusions(pilot, 3)
        await pilot.press("full_stop")
        await until(pilot, lambda: slow.running >= 1)
        await pilot.pause(0.2)
        await _quit(pilot)


@scenario
async def quit_while_why_not_runs_on_6000_objects(tmp: Path) -> None:
    app = make_app(outranked_repo(tmp / "repo", 3000))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await select_exclusions(pilot, 12)
        alive = [t for t in threading.enumerate() if t.name == "octui-whynot"]
        assert len(alive) <= 1, alive
        await pilot.pause(0.1)
        await _quit(pilot)


async def test_moving_to_a_denied_row_drops_the_question_asked_for_the_row_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A denied row asks no question, so nothing newer replaces the one still waiting for
    the row before: it is dropped, and the pane never shows an answer about another object
    under the denied one."""
    import octui.tui.features.whynot as whynot

    asked: list[int] = []

    def quick(resolution: Any, repository: Any, uid: int, **kw: Any) -> list[str]:
        asked.append(uid)
        return [f"answer for {uid}"]

    monkeypatch.setattr(whynot, "why_not", quick)
    monkeypatch.setattr(whynot, "ROLES_DELAY", 0.5)  # the question waits: room for the key
    root = tmp_path / "repo"
    outranked_repo(root, 1)  # o00000@2: not yet valid, the first excluded row
    (root / "p.md").write_text(
        "---\nid: p.secret\naccess:\n  roles: [nobody]\n---\nSecret.\n", encoding="utf-8"
    )
    app = make_app(root)

    async def run() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot)
            await pilot.press("2")  # the not-yet-valid row: its question waits a moment
            await pilot.press("down")  # at once to the denied row
            assert app.selected is not None and app.selected.reason.is_denial
            await pilot.pause(1.0)
            await settle(pilot)
            box = whynot_box(app)
            assert "answer for" not in str(box.render())
            assert not box.display
            assert asked == []

    await asyncio.wait_for(run(), timeout=60)


if __name__ == "__main__":
    main(SCENARIOS)
