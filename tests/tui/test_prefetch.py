"""The explorer's view cache and prefetch: the likely next keys' views are made while it is
idle, a key that asks for one shows it without resolving, and every key stops the prefetch."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from octui.bundle.pieces import Pieces
from octui.resolve.fixed import UNKNOWN
from octui.tui.features.prefetch import neighbours
from octui.tui.state import Inputs

from .conftest import AS_OF, make_app, settle, wait_for


def test_neighbours_are_a_day_on_and_back_then_the_next_and_previous_role() -> None:
    inputs = Inputs(role="b", as_of=AS_OF, chosen=AS_OF)
    got = neighbours(inputs, ["a", "b", "c"], AS_OF)
    assert [(i.role, i.as_of) for i in got] == [
        ("b", AS_OF + timedelta(days=1)),
        ("b", AS_OF - timedelta(days=1)),
        ("c", AS_OF),
        ("a", AS_OF),
    ]


def test_following_now_prefetches_no_role() -> None:
    got = neighbours(Inputs(role="b"), ["a", "b", "c"], AS_OF)
    assert {i.role for i in got} == {"b"}


def resolutions_of(app: Any) -> list[Any]:
    """The queries the app's session resolves from now on (the list grows as it does)."""
    resolved: list[Any] = []
    original = app.session.resolve

    def counted(query: Any) -> Any:
        resolved.append(query)
        return original(query)

    app.session.resolve = counted
    return resolved


async def _prefetched_day_on(pilot: Any, app: Any) -> tuple[Any, Any]:
    """Settle the explorer and wait until its prefetch has made the next day's view:
    the repository and that query."""
    await settle(pilot)
    repo = app.session.repository
    assert repo is not None
    day_on = app.inputs.step(days=1, now=app.clock())
    assert day_on is not None
    wanted = day_on.query(app.clock())
    await wait_for(pilot, lambda: app.views.known(repo, wanted))
    await app.workers.wait_for_complete()
    return repo, wanted


async def test_idle_explorer_prefetches_the_neighbours_and_the_key_uses_them() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        repo, wanted = await _prefetched_day_on(pilot, app)
        made = app.views.made(app.session, repo, wanted)
        resolved = resolutions_of(app)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.view is not None and app.view.query == wanted
        assert app.view.resolution is made.resolution
        assert wanted not in resolved  # shown from the prefetch, not resolved again


async def test_a_key_cancels_the_prefetch_and_disabled_it_never_runs() -> None:
    app = make_app(role="support")
    app.feature_set.prefetch.enabled = False
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        repo = app.session.repository
        assert repo is not None
        await pilot.pause(0.3)
        day_on = app.inputs.step(days=1, now=app.clock())
        assert day_on is not None
        assert not app.views.known(repo, day_on.query(app.clock()))
        prefetch = app.feature_set.prefetch
        prefetch.enabled = True
        cancelled: list[bool] = []
        original = prefetch.job.cancel

        def cancel() -> None:
            cancelled.append(True)
            original()

        prefetch.job.cancel = cancel  # type: ignore[method-assign]
        await pilot.press("down")
        assert cancelled


async def test_the_prefetch_waits_for_the_roles_block(monkeypatch: pytest.MonkeyPatch) -> None:
    from octui.tui import auditapp

    monkeypatch.setattr(auditapp, "ROLES_DELAY", 30.0)  # the Roles block's worker keeps running
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await app.settled.wait()
        repo = app.session.repository
        assert repo is not None
        day_on = app.inputs.step(days=1, now=app.clock())
        assert day_on is not None
        await pilot.pause(0.5)
        assert not app.views.known(repo, day_on.query(app.clock()))  # what is shown goes first
        assert app.roles_worker is not None
        app.roles_worker.cancel()
        await wait_for(pilot, lambda: app.views.known(repo, day_on.query(app.clock())))


async def _neighbours_made(pilot: Any, app: Any) -> None:
    """Settle the explorer and wait until its prefetch has made every neighbour's view."""
    await settle(pilot)
    repo = app.session.repository
    assert repo is not None
    now = app.clock()
    wanted = [i.query(now) for i in neighbours(app.inputs, list(repo.config.roles), now)]
    await wait_for(pilot, lambda: all(app.views.known(repo, q) for q in wanted))
    await app.workers.wait_for_complete()


async def test_a_day_back_after_two_days_on_is_still_kept() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        resolved = resolutions_of(app)

        await _neighbours_made(pilot, app)
        for key in ("right_square_bracket", "right_square_bracket"):
            await pilot.press(key)
            await _neighbours_made(pilot, app)
        resolved.clear()
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.view is not None
        assert app.view.query.as_of == AS_OF + timedelta(days=1)
        assert app.view.query not in resolved  # kept, not resolved again


async def test_the_views_pushed_out_are_freed_when_the_prefetch_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The prefetch's views push older ones out of the cache after the idle collection may
    have run: the prefetch frees them itself once its views are made, so none waits for
    the next key (here the idle collection never runs)."""
    from octui.tui.features import collector

    monkeypatch.setattr(collector, "IDLE", 600.0)
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        freed: list[int] = []
        original = app.views.release

        def release() -> int:
            freed.append(original())
            return freed[-1]

        app.views.release = release  # type: ignore[method-assign]
        for key in ("right_square_bracket", "right_square_bracket", "right_square_bracket"):
            await pilot.press(key)
            await _neighbours_made(pilot, app)
            assert app.views.retired == 0
        assert sum(freed) > 0 and app.feature_set.collector.collections == 0


async def test_a_kept_view_is_shown_by_the_key_itself() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        _, wanted = await _prefetched_day_on(pilot, app)
        workers: list[Any] = []
        original = app._resolve

        def counted(*args: Any) -> Any:
            workers.append(args)
            return original(*args)

        app._resolve = counted  # type: ignore[method-assign]
        app.action_step_day(1)  # what ] does
        # shown before the handler returns: no worker, no "resolving…" paint first
        assert app.view is not None and app.view.query == wanted
        assert app.applied_generation == app.generation and app.settled.is_set()
        assert workers == []
        await settle(pilot)
        assert app.selected is not None and any(app.selected is r for r in app.view.included)


async def test_the_benchmark_calls_the_explorer_quiet_only_after_the_prefetch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The benchmark's idle window must not hold the last key's prefetch: it starts on a
    timer, with no paint or worker announcing it (as when the Roles block ends without a
    paint), so a quiet screen alone does not say it is over."""
    from octui.devtools import explorer_figures
    from octui.tui.appclock import AppClock
    from octui.tui.features import prefetch
    from octui.tui.screens.explorer import ExplorerScreen

    monkeypatch.setattr(prefetch, "IDLE", 1.0)  # starts later than the screen goes quiet
    monkeypatch.setattr(ExplorerScreen, "select", ExplorerScreen.select)
    app = make_app(role="support")
    clock = AppClock(app)  # (hooks the screen's select: undone by monkeypatch)
    async with app.run_test(size=(130, 40)):
        await app.wait_settled()
        threads = {t.ident for t in threading.enumerate() if t.ident is not None}
        await explorer_figures.quiet(app, clock, threads)
        repo = app.session.repository
        assert repo is not None
        now = app.clock()
        wanted = [i.query(now) for i in neighbours(app.inputs, list(repo.config.roles), now)]
        assert all(app.views.known(repo, q) for q in wanted)
        assert not app.feature_set.prefetch.pending
        assert app.feature_set.prefetch.made == len(wanted)


async def test_the_prefetch_prepares_the_session_once_per_repository() -> None:
    app = make_app(role="support", task="refunds")
    calls: list[Any] = []
    original = app.session.prepare
    tasks: list[str] = []

    def counted(cancelled: Callable[[], bool], task: str = "") -> bool:
        calls.append(app.session.repository)
        tasks.append(task)
        return original(cancelled, task)

    app.session.prepare = counted  # type: ignore[method-assign,assignment]
    async with app.run_test(size=(130, 40)) as pilot:
        repo, _ = await _prefetched_day_on(pilot, app)
        assert calls == [repo]
        assert tasks == ["refunds"]  # the task on screen is matched ahead
        assert app.session.cache is not None and app.session.cache.memo is not None
        kept = app.session.cache.prepared().fixed._memo.known("refund")
        assert kept is not None and UNKNOWN not in kept  # over every object
        pieces = app.session.cache.memo.known(("digest-pieces",))
        assert isinstance(pieces, Pieces)
        assert set(pieces._parts) == {o.uid for o in repo.objects}
        prefetch = app.feature_set.prefetch
        before = prefetch.made
        await pilot.press("right_square_bracket")  # a new view: the prefetch runs again
        await settle(pilot)
        await wait_for(pilot, lambda: prefetch.made > before)
        assert calls == [repo]  # prepared once for this repository
