"""A new view's tables are shown before its digest is computed: the status line says the
digest is pending (never the previous view's digest beside the new tables), and once it is
computed it is the digest of what is shown, equal to a fresh, memo-free resolution's."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from textual.widgets import Static

from octui.bundle.bundle import digest
from octui.load.loader import load_repository
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.tui import state
from octui.tui.app import OctuiApp
from octui.tui.state import View

from .conftest import SAMPLE, make_app, settle


def status_of(app: OctuiApp) -> str:
    return str(app.main.query_one("#status", Static).render())


def fresh_digest(app: OctuiApp) -> str:
    """The digest of the query on show, from a new load resolved without any memo."""
    assert app.view is not None
    return digest(resolve(load_repository(SAMPLE), app.view.query))


async def test_a_typed_task_shows_its_tables_then_its_digest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    at_apply: list[tuple[str | None, str]] = []
    digested: list[View] = []
    finish = state.finish_view

    def recorded(view: View) -> str:
        digested.append(view)
        return finish(view)

    monkeypatch.setattr("octui.tui.resolving.finish_view", recorded)
    app = make_app(role="support", debounce=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = app.view
        assert first is not None and first.known_digest is not None
        old_short = first.digest.removeprefix("sha256:")[:8]
        apply = app.apply_view

        def applied(view: View) -> bool:
            shown = apply(view)
            if shown:
                at_apply.append((view.known_digest, status_of(app)))
            return shown

        app.apply_view = applied  # type: ignore[method-assign]
        await pilot.press("t", *"refund")
        await settle(pilot)
        assert at_apply, "no new view was shown"
        for known, status in at_apply:
            assert known is None  # the tables first: the digest was not computed yet
            assert "digest…" in status and old_short not in status
        view = app.view
        assert view is not None and view is not first and view.query.task == "refund"
        assert view.known_digest == fresh_digest(app)
        assert view.known_digest.removeprefix("sha256:")[:8] in status_of(app)
        assert "digest…" not in status_of(app)
        assert digested[-1] is view


async def test_a_digest_asked_for_a_view_no_longer_shown_is_never_shown() -> None:
    app = make_app(role="support", debounce=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        older = app.view
        await pilot.press("t", *"refund")
        await settle(pilot)
        shown = app.view
        assert older is not None and shown is not None and older.digest != shown.digest
        status = status_of(app)
        assert shown.digest.removeprefix("sha256:")[:8] in status
        late = replace(older, known_digest=None)
        app.resolving.finish_digest(late)  # (as if its job started just before the new view)
        await app.wait_settled()
        await pilot.pause()
        assert late.known_digest is None  # not even computed: it is not on show
        assert status_of(app) == status


async def test_a_prefetched_view_is_shown_with_its_digest() -> None:
    app = make_app(role="support", debounce=0.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_prefetched(app, pilot)
        await pilot.press("right_square_bracket")
        assert app.view is not None and app.view.known_digest is not None  # at once, no job
        assert app.view.known_digest == fresh_digest(app)
        assert app.view.known_digest.removeprefix("sha256:")[:8] in status_of(app)


async def wait_prefetched(app: OctuiApp, pilot: Any) -> None:
    for _ in range(500):
        await pilot.pause(0.02)
        if not app.feature_set.prefetch.pending:
            return
    raise AssertionError("the prefetch did not finish")


def test_a_digest_asked_for_twice_at_once_is_computed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the digest worker and the pin's comparison (or an export) may ask for one view's
    # digest at the same moment: the second waits for the first instead of hashing again
    at = datetime(2026, 6, 1, tzinfo=UTC)
    resolution = resolve(load_repository(SAMPLE), Query(role="support", as_of=at))
    view = View(resolution, 1)
    calls: list[int] = []
    started = threading.Event()

    def slow_digest(r: Any) -> str:
        calls.append(1)
        started.set()
        time.sleep(0.2)
        return digest(r)

    monkeypatch.setattr(state, "digest", slow_digest)
    first = threading.Thread(target=lambda: view.digest)
    first.start()
    started.wait(5)
    second = view.digest
    first.join()
    assert calls == [1]
    assert second == view.known_digest == digest(resolution)


@pytest.mark.parametrize("key", ["c", "x"])
async def test_copy_digest_and_export_never_compute_the_digest_on_the_ui_thread(
    monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """A new view's digest may still be unknown when ``c`` or ``x`` comes: they wait for it,
    computed on the resolver thread (as the status line's is: a daemon thread, which never
    holds up quitting), and show (or copy) the digest of the view on show."""
    threads: list[tuple[object, str]] = []
    made = digest  # the function View.digest calls (octui.tui.state imports it)

    def recorded(resolution: Any) -> str:
        threads.append((resolution, threading.current_thread().name))
        return made(resolution)

    monkeypatch.setattr(state, "digest", recorded)
    # no digest worker: the digest is unknown until the key asks for it
    monkeypatch.setattr("octui.tui.resolving.Resolving.finish_digest", lambda self, view: None)
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.view
        assert view is not None and view.known_digest is None
        await pilot.press(key)
        await pilot.pause(0.2)
        await pilot.pause()
        assert app.view is view
        on = [name for resolution, name in threads if resolution is view.resolution]
        assert on == [app.resolving.executor.name]
        expected = fresh_digest(app)
        assert view.known_digest == expected
        if key == "c":
            assert app.clipboard == expected
        else:
            summary = str(app.screen.query_one("#export-summary").render())
            assert expected[:19] in summary
