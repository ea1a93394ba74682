"""The digest from kept pieces: the definition's bytes, whatever was kept and by whom."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from campaign import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from octui.bundle import bundle as B
from octui.bundle.jsonout import dumps_canonical
from octui.bundle.pieces import Pieces
from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Query, Resolution
from octui.synth.repository import write_repository

AS_OF = datetime(2026, 3, 15, tzinfo=UTC)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repository:
    root = tmp_path_factory.mktemp("pieces") / "repo"
    write_repository(root, 250, seed=13)
    return load_repository(root)


def definition(res: Resolution) -> str:
    return B.digest_of(
        [B.included_digest_form(i) for i in res.included],
        [B.exclusion_digest_form(e) for e in res.exclusions],
        [B.warning_digest_form(w) for w in res.warnings],
    )


QUERIES = [
    Query(role="support", as_of=AS_OF, task="refund invoice"),
    Query(role="support", as_of=AS_OF, task="password reset"),
    Query(role="support", as_of=AS_OF, task="refund invoice"),
    Query(role="support", as_of=AS_OF, task="refund", limit=3),
    Query(role="support", as_of=AS_OF, task="refund", min_relevance=4),
    Query(role="support", as_of=AS_OF, task="refund"),
    Query(role="sales", as_of=AS_OF, task="refund invoice", include_historical=True),
    Query(role="support", as_of=datetime(2024, 3, 1, tzinfo=UTC), task="refund invoice"),
    Query(role=None, as_of=AS_OF),
]


def test_digest_with_a_cache_is_the_definitions(repo: Repository) -> None:
    cache = ResolutionCache(repo)
    for query in QUERIES * 2:
        res = resolve(repo, query, cache)
        assert B.digest(res) == definition(res) == B.digest(resolve(repo, query)), query
        assert B.digest(res) == B.digest_from_bundle(B.bundle_dict(res))


def test_pieces_live_in_the_resolution_cache(repo: Repository) -> None:
    cache = ResolutionCache(repo)
    assert cache.memo is not None and cache.memo.known(("digest-pieces",)) is None
    res = resolve(repo, QUERIES[0], cache)
    B.digest(res)
    assert isinstance(cache.memo.known(("digest-pieces",)), Pieces)
    assert not hasattr(B, "_object_pieces")  # no module-level table outlives the repository


def test_a_task_asked_again_is_not_hashed_again(repo: Repository) -> None:
    cache = ResolutionCache(repo)
    first = resolve(repo, QUERIES[0], cache)
    value = B.digest(first)
    again = resolve(repo, QUERIES[0], cache)
    assert again is not first and again.memos is not None
    key = ("digest", first.query.task, None, None)
    assert again.memos.stage.known(key) == value == B.digest(again)


def test_a_changed_copy_is_another_resolution(repo: Repository) -> None:
    cache = ResolutionCache(repo)
    res = resolve(repo, QUERIES[0], cache)
    B.digest(res)
    changed = replace(res, included=res.included[1:], exclusions=res.exclusions[:-1])
    assert changed.memos is None
    assert B.digest(changed) == definition(changed) != B.digest(res)


_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.sampled_from(["\ud800", "a\udfffb", "\x00\x1f\x7f\u2028", "1e-07"])
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=examples(300), deadline=None)
@given(_VALUES)
def test_canonical_json_is_the_standard_librarys(value: Any) -> None:
    want = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8", "surrogatepass")
    try:
        got = dumps_canonical(value)
    except UnicodeEncodeError:  # lone surrogates: the standard library's own error
        with pytest.raises(UnicodeEncodeError):
            json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return
    assert got == want


@pytest.mark.parametrize("value", [{1: "a"}, {"b": 1e-7, "a": [2**64, -(2**63) - 1]}, 1e16])
def test_canonical_json_of_what_orjson_writes_otherwise(value: Any) -> None:
    assert (
        dumps_canonical(value)
        == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    )


def test_bundle_objects_own_their_matches(repo: Repository) -> None:
    """Objects matching a task alike share one score; each bundle object has its own lists."""
    res = resolve(repo, Query(role="support", as_of=AS_OF, task="refund"), ResolutionCache(repo))
    objects = B.bundle_dict(res)["objects"]
    shapes = [json.dumps(o["matched"]) for o in objects if o["matched"]]
    first = json.loads(max(shapes, key=shapes.count))  # the commonest matches
    matching = [i for i, o in enumerate(objects) if o["matched"] == first]
    assert len(matching) >= 2
    objects[matching[0]]["matched"].clear()
    assert objects[matching[1]]["matched"] == first == res.included[matching[0]].matched


def test_kept_pieces_hold_only_their_bytes() -> None:
    """orjson's bytes keep the buffer it grew; a kept piece must not (memory of a session)."""
    import tracemalloc

    value = {"content": "x" * 1500, "tags": ["a", "b"], "version": 3}
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [dumps_canonical(value) for _ in range(200)]
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert used < 200 * 3 * len(kept[0])


def test_kept_pieces_hold_one_bundles_bodies(repo: Repository) -> None:
    """Every role and instant shares each object's parts, which hold no body; whole pieces
    (with the body) are kept for the last digest's objects alone."""
    cache = ResolutionCache(repo)
    for query in QUERIES:
        last = resolve(repo, query, cache)
        B.digest(last)
    pieces = cache.memo.known(("digest-pieces",)) if cache.memo is not None else None
    assert isinstance(pieces, Pieces) and pieces._parts
    bodies = {
        json.dumps(o.content, ensure_ascii=False)[1:-1].encode()
        for o in repo.objects
        if len(o.content) > 40
    }
    assert bodies
    assert not any(
        body in part for parts in pieces._parts.values() for part in parts for body in bodies
    )
    assert set(pieces._last) == {i.obj.uid for i in last.included}


@pytest.mark.parametrize("flush", [0, 1, 2, 7])
def test_the_objects_are_hashed_a_few_pieces_at_a_time(
    repo: Repository, monkeypatch: pytest.MonkeyPatch, flush: int
) -> None:
    """Hashing the objects' pieces in batches gives the hash of them joined, and never
    holds them joined: each batch handed to the hash is at most a batch's pieces."""
    import hashlib

    from octui.bundle import pieces as P

    monkeypatch.setattr(P, "_FLUSH", flush)
    res = resolve(repo, QUERIES[0])
    assert len(res.included) > 8
    pieces = Pieces(repo.objects)
    joined = pieces.objects_bytes(res.included)
    updates: list[bytes] = []

    class Recording:
        def __init__(self) -> None:
            self.inner = hashlib.sha256(b"head")

        def copy(self) -> Recording:
            made = Recording()
            made.inner = self.inner.copy()
            return made

        def update(self, data: bytes) -> None:
            updates.append(data)
            self.inner.update(data)

    hashed = pieces.hash_objects(Recording(), res.included)  # type: ignore[arg-type]
    assert hashed.inner.digest() == hashlib.sha256(b"head" + joined).digest()  # type: ignore[attr-defined]
    assert b"".join(updates) == joined
    assert len(updates) > 1 and max(map(len, updates)) < len(joined)
    assert B.digest(resolve(repo, QUERIES[0], ResolutionCache(repo))) == definition(res)
