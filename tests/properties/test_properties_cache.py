"""The generated repositories of test_properties resolve to the same bundles with no cache and
with every cache warm: the persistent parse cache (written, then read back by a new store),
the loader's in-memory cache across a reload, and the session's resolution cache across
queries asked in another order."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from repo_builder import fixed_bundle, resolve_at

from octui.load import parse_cache as cache
from octui.load.parse_cache import ParseStore
from octui.session import Session
from properties.test_properties import QUERIES, ROLE_NAMES, SETTINGS, Spec, specs, write


def _age(root: Path) -> None:
    past = time.time() - 3600
    for folder, _dirs, names in os.walk(root):
        for name in names:
            os.utime(os.path.join(folder, name), (past, past))


def _bundles(
    session: Session, asked: list[tuple[str | None, dict[str, Any]]], *, cached: bool = True
) -> list[Any]:
    """The bundles of ``asked``, through the session's resolution cache unless not ``cached``
    (then everything is computed)."""
    repo = session.repository
    assert repo is not None
    cache = session.cache if cached else None
    assert cache is not None or not cached
    return [
        fixed_bundle(resolve_at(repo, role=role, cache=cache, **query)) for role, query in asked
    ]


@SETTINGS
@given(spec=specs(), queries=st.lists(QUERIES, min_size=1, max_size=3))
def test_no_cache_and_warm_caches_give_identical_bundles(
    spec: Spec, queries: list[dict[str, Any]]
) -> None:
    asked = [(role, query) for query in queries for role in ROLE_NAMES]
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(cache, "MIN_ENTRIES", 0)  # a cache file even for a handful of files
        mp.setattr(cache, "RACY_NS", 0)  # the files were just written: store them anyway
        root = write(spec, Path(tmp) / "repo")
        _age(root)
        cold = Session(root)  # no persistent cache
        cold.load()
        expected = _bundles(cold, asked, cached=False)
        assert _bundles(cold, asked) == expected  # the resolution cache, filling

        filling = Session(root, store=ParseStore(root, Path(tmp) / "cache"))
        filling.load()
        assert _bundles(filling, asked) == expected

        store = ParseStore(root, Path(tmp) / "cache")  # a new store reads the file back
        warm = Session(root, store=store)
        warm.load()
        assert store.hits == len(spec.files) and store.misses == 0
        assert _bundles(warm, list(reversed(asked))) == list(reversed(expected))
        assert _bundles(warm, asked) == expected  # the resolution cache, warm
        warm.load()  # nothing changed: the in-memory cache and the kept objects
        assert _bundles(warm, asked) == expected
