"""Step 8 over a cached stage: the order and scores of the definition, whatever was kept."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from campaign import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from octui.core.tokens import SMALL_FIELDS, tokenize
from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.ranking import CONTENT_CAP, WEIGHTS, score
from octui.resolve.result import Query, Resolution
from octui.synth.repository import write_repository

AS_OF = datetime(2026, 3, 15, tzinfo=UTC)
TASKS = ["refund invoice", "password reset", "refund", "", "api billing refund", "zzz-none"]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repository:
    root = tmp_path_factory.mktemp("s8") / "repo"
    write_repository(root, 300, seed=11)
    return load_repository(root)


def _field_text(obj: object, name: str) -> str:
    value = getattr(obj, name)
    if isinstance(value, tuple):
        return " ".join(value)
    return value or ""


def definition_score(obj: object, task: str, floor: int) -> tuple[int, dict[str, list[str]]]:
    """SPEC §3 read literally: per field, the task tokens it holds times the weight."""
    tokens = tokenize(task)
    total, matched = 0, {}
    for name in SMALL_FIELDS:
        hits = sorted(tokens & tokenize(_field_text(obj, name)))
        if hits:
            matched[name] = hits
            total += WEIGHTS[name] * len(hits)
    found = sorted(tokens & tokenize(obj.content))[:CONTENT_CAP]  # type: ignore[attr-defined]
    if found:
        matched["content"] = found
        total += len(found)
    if obj.is_floor_layer:  # type: ignore[attr-defined]
        total = max(total, floor)
    return total, matched


def definition_order(res: Resolution, floor: int) -> list[tuple[str, int, int]]:
    """The included objects sorted by SPEC §3's key, computed from the definition."""
    groups = {"L0": 0, "L1": 1}
    rank = res.repository.config.authority_rank

    def key(inc: object) -> tuple[object, ...]:
        o = inc.obj  # type: ignore[attr-defined]
        s, _ = definition_score(o, res.query.task, floor)
        historical = inc.lifecycle.value != "active"  # type: ignore[attr-defined]
        return (
            historical,
            groups.get(str(o.layer), 2),
            -s,
            rank(o.authority),
            o.id,
            -o.version,
            o.path,
        )

    return [(i.obj.id, i.obj.version, i.score) for i in sorted(res.included, key=key)]


def test_scores_are_the_definitions(repo: Repository) -> None:
    floor = repo.config.ranking.floor
    for task in TASKS:
        for obj in repo.objects[:150]:
            s = score(obj, tokenize(task), floor, repo.tokens)
            assert (s.score, s.matched) == definition_score(obj, task, floor)


def test_cached_stage_ranks_every_task_as_a_fresh_resolution(repo: Repository) -> None:
    cache = ResolutionCache(repo)
    for include_historical in (False, True):
        for task in TASKS + TASKS[::-1]:
            q = Query(role="support", as_of=AS_OF, task=task, include_historical=include_historical)
            warm, cold = resolve(repo, q, cache), resolve(repo, q)
            got = [(i.obj.uid, i.score, i.matched, i.lifecycle, i.stale) for i in warm.included]
            want = [(i.obj.uid, i.score, i.matched, i.lifecycle, i.stale) for i in cold.included]
            assert got == want
            floor = repo.config.ranking.floor
            assert [(i.obj.id, i.obj.version, i.score) for i in warm.included] == (
                definition_order(warm, floor)
            )
            for inc in warm.included:
                assert (inc.score, inc.matched) == definition_score(inc.obj, task, floor)


def test_limit_and_min_relevance_over_a_cached_stage(repo: Repository) -> None:
    cache = ResolutionCache(repo)
    base = Query(role="support", as_of=AS_OF, task="refund invoice")
    for q in (base, replace(base, limit=7), replace(base, min_relevance=5), replace(base, limit=0)):
        warm, cold = resolve(repo, q, cache), resolve(repo, q)
        assert [i.obj.uid for i in warm.included] == [i.obj.uid for i in cold.included]
        assert warm.exclusions == cold.exclusions


def test_a_stage_keeps_its_task_tokens_and_order(repo: Repository) -> None:
    """A second task on a stage reuses what the first computed for a shared token."""
    cache = ResolutionCache(repo)
    resolve(repo, Query(role="support", as_of=AS_OF, task="refund invoice"), cache)
    (stage,) = (v for k, v in cache.stages.entries.items())
    masks = stage.memo.known(("token", "refund"))
    order = stage.memo.known(("standing",))
    assert masks is not None and order is not None
    resolve(repo, Query(role="support", as_of=AS_OF, task="refund policy"), cache)
    assert stage.memo.known(("token", "refund")) is masks
    assert stage.memo.known(("standing",)) is order


WORDS = st.sampled_from(
    ["refund", "refunds", "invoice", "billing", "api", "password", "reset", "policy", "the"]
)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(WORDS, max_size=5).map(" ".join))
def test_any_task_ranks_as_without_a_cache(
    tmp_path_factory: pytest.TempPathFactory, task: str
) -> None:
    repo = _small_repo(tmp_path_factory)
    cache = _CACHES.setdefault(id(repo), ResolutionCache(repo))
    q = Query(role="support", as_of=AS_OF, task=task)
    warm, cold = resolve(repo, q, cache), resolve(repo, q)
    assert [(i.obj.uid, i.score, i.matched) for i in warm.included] == [
        (i.obj.uid, i.score, i.matched) for i in cold.included
    ]


_REPOS: dict[str, Repository] = {}
_CACHES: dict[int, ResolutionCache] = {}


def _small_repo(factory: pytest.TempPathFactory) -> Repository:
    if "small" not in _REPOS:
        root: Path = factory.mktemp("s8small") / "repo"
        write_repository(root, 120, seed=5)
        _REPOS["small"] = load_repository(root)
    return _REPOS["small"]
