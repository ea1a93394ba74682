"""The garbage collector while the explorer runs: no automatic passes during keys, one
collection once the keys stop, and the collector as before once the explorer is gone."""

from __future__ import annotations

import gc
from types import SimpleNamespace
from typing import Any, cast

import pytest

from octui.tui.features import collector
from octui.tui.viewcache import ViewCache

from .conftest import make_app, settle, wait_for


async def test_garbage_is_collected_when_the_keys_stop() -> None:
    was = gc.isenabled()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        held = app.feature_set.collector
        assert not gc.isenabled()  # no automatic pass can land in a key
        before = held.collections
        await pilot.press("down")
        await wait_for(pilot, lambda: held.collections > before, timeout=5 * collector.IDLE + 5)
    assert gc.isenabled() == was  # the app is gone: the collector runs as before


def test_every_tenth_idle_collection_is_a_full_one(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda generation=2: asked.append(generation))
    host = SimpleNamespace(views=ViewCache())
    held = collector.IdleCollector(host=cast(Any, host))
    for _ in range(2 * collector.FULL_EVERY):
        held.collect()
    assert asked.count(2) == 2 and asked.count(1) == 2 * collector.FULL_EVERY - 2
    assert asked[collector.FULL_EVERY - 1] == 2


def test_an_idle_collection_frees_the_views_the_cache_dropped() -> None:
    freed: list[int] = []

    class Views:
        def release(self) -> int:
            freed.append(1)
            return 1

    held = collector.IdleCollector(host=cast(Any, SimpleNamespace(views=Views())))
    held.collect()
    assert freed == [1]
