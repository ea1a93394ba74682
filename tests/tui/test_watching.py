"""The explorer notices edits through filesystem events, confirmed by the fingerprint, and
walks the tree only when something happened: once at start, never while idle. Where events
cannot be had it polls, as before."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from octui.tui import loading as loading_module
from octui.tui.app import OctuiApp

from .conftest import make_app, settle, wait_for

NEW = "---\nid: policies.newly-added\nauthority: approved\ntitle: Added\n---\nHello.\n"


def included_ids(app: OctuiApp) -> set[str]:
    return set() if app.view is None else {i.obj.key for i in app.view.included}


def count_scans(app: OctuiApp, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count every walk of the tree: fingerprints and loads."""
    scans = [0, 0]
    fingerprint, load = app.session.fingerprint, app.session.load

    def counted_fingerprint(*args: Any) -> Any:
        scans[0] += 1
        return fingerprint(*args)

    def counted_load(*args: Any) -> Any:
        scans[1] += 1
        return load(*args)

    monkeypatch.setattr(app.session, "fingerprint", counted_fingerprint)
    monkeypatch.setattr(app.session, "load", counted_load)
    return scans


async def test_idle_explorer_never_walks_the_tree_and_sees_edits(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(repo_copy, watch=True, poll_interval=0.05, role="support")
    scans = count_scans(app, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert scans == [0, 1]  # one scan at start: the load's own
        assert app.resolving.watcher is not None and app.resolving.watcher.mode == "events"
        await asyncio.sleep(0.6)  # idle: a poller would have walked the tree ~12 times
        assert scans == [0, 1]
        (repo_copy / "policies" / "newly-added.md").write_text(NEW, encoding="utf-8")
        await wait_for(pilot, lambda: "policies.newly-added@1" in included_ids(app))
        assert scans[0] >= 1 and scans[1] == 2  # confirmed by the fingerprint, then reloaded
        (repo_copy / "policies" / "newly-added.md").unlink()
        await wait_for(pilot, lambda: "policies.newly-added@1" not in included_ids(app))


async def test_an_event_that_changes_nothing_reloads_nothing(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(repo_copy, watch=True, role="support")
    scans = count_scans(app, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        (repo_copy / ".hidden-scratch").write_text("not part of the repository", encoding="utf-8")
        await wait_for(pilot, lambda: scans[0] >= 1)  # the event was confirmed...
        await asyncio.sleep(0.2)
        assert scans[1] == 1  # ...and the unchanged fingerprint reloaded nothing


async def test_without_events_the_explorer_polls(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loading_module, "open_events", lambda root: None)
    app = make_app(repo_copy, watch=True, poll_interval=0.05, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        (repo_copy / "policies" / "newly-added.md").write_text(NEW, encoding="utf-8")
        await wait_for(pilot, lambda: "policies.newly-added@1" in included_ids(app))


async def test_when_watching_cannot_start_the_explorer_polls(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import watchfiles._rust_notify as rust_notify

    threads = []

    def refused(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        raise OSError("no inotify watches left")

    monkeypatch.setattr(rust_notify, "RustNotify", refused)
    app = make_app(repo_copy, watch=True, poll_interval=0.05, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        (repo_copy / "policies" / "newly-added.md").write_text(NEW, encoding="utf-8")
        await wait_for(pilot, lambda: "policies.newly-added@1" in included_ids(app))
        assert app.resolving.watcher is not None
        assert app.resolving.watcher.mode == "poll"  # what the benchmark reports
    assert threads == ["octui-watch"]  # set up off the event loop: walking folders takes time


def count_walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count every walk of the whole tree (a load's or a fingerprint's scan)."""
    from octui import session as session_module
    from octui.load import loader as loader_module
    from octui.load import walk as walk_module

    walks = [0]
    scan = walk_module.scan

    def counted(*args: Any) -> Any:
        walks[0] += 1
        return scan(*args)

    monkeypatch.setattr(loader_module, "scan", counted)
    monkeypatch.setattr(session_module, "scan", counted)
    return walks


async def test_an_edit_seen_by_events_rereads_only_that_file(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks = count_walks(monkeypatch)
    app = make_app(repo_copy, watch=True, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert walks == [1]
        target = repo_copy / "policies" / "newly-added.md"
        target.write_text(NEW, encoding="utf-8")
        await wait_for(pilot, lambda: "policies.newly-added@1" in included_ids(app))
        walks_after_add = walks[0]  # a new file may need a scan (its folder's order)
        parsed = app.session.loader.parsed_count
        target.write_text(NEW.replace("title: Added", "title: Renamed"), encoding="utf-8")
        await wait_for(
            pilot,
            lambda: any(i.obj.title == "Renamed" for i in (app.view.included if app.view else [])),
        )
        assert walks[0] == walks_after_add  # confirmed and reloaded without a walk
        assert app.session.loader.parsed_count == parsed + 1
        assert app.session.loader.hinted >= 1


async def test_the_whole_tree_is_checked_now_and_then(
    repo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change no event reported is still found, by the periodic full check."""

    class Deaf:
        """Events that never come (as if every one were lost)."""

        async def next(self) -> frozenset[str] | None:
            await asyncio.Event().wait()
            return None  # pragma: no cover - never reached

        def close(self) -> None:
            pass

    monkeypatch.setattr(loading_module, "FULL_CHECK_S", 0.2)
    monkeypatch.setattr(loading_module, "open_events", lambda root: Deaf())
    app = make_app(repo_copy, watch=True, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.resolving.watcher is not None
        checks = app.resolving.watcher.whole_checks
        (repo_copy / "policies" / "newly-added.md").write_text(NEW, encoding="utf-8")
        await wait_for(pilot, lambda: "policies.newly-added@1" in included_ids(app))
        assert app.resolving.watcher.whole_checks > checks  # counted (the benchmark reads it)
