"""The tables a resolution cache prepares answer as the functions they stand for: the same
staleness and findings, the same exclusion records, handed out again by identity."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from repo_builder import make_repo, obj

from octui.core.enums import ExclusionReason
from octui.core.model import Finding
from octui.load.loader import load_repository
from octui.resolve.cache import NoCache, ResolutionCache
from octui.resolve.findings import is_stale, stale_finding, stale_sort_key
from octui.resolve.index import RepoIndex
from octui.resolve.prepared import Freshness
from octui.resolve.steps.base import excluded, excluded_for

DAYS = [datetime(y, m, 1, tzinfo=UTC) for y in (2023, 2024, 2025, 2027) for m in (1, 7)]


def _repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    files = {
        "a.md": obj("a", created="2023-01-01"),
        "b.md": obj("b", created="2023-01-01", updated="2024-06-01", review_every="30d"),
        "c.md": obj("c"),  # no date: never stale
        "d.md": obj("d", type="pricing", created="2024-01-01"),
    }
    config = {"freshness": {"default": "365d", "by_type": {"pricing": "90d"}}}
    return load_repository(make_repo(tmp_path, files, config))


def test_freshness_answers_as_is_stale_and_stale_finding(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    fresh = Freshness(RepoIndex(repo))
    for o in repo.objects:
        for day in DAYS:
            assert fresh.stale([o], day) == {o.uid: is_stale(repo.config, o, day)}
        assert fresh.finding(o) == stale_finding(repo.config, o)
        assert fresh.finding(o) is fresh.finding(o)


def test_freshness_in_bulk_answers_as_is_stale_and_the_sorted_findings(tmp_path: Path) -> None:
    """``stale`` (every object at once, an object without a window never stale) and
    ``ordered`` (the findings sorted) answer as the functions do, whether the entries are
    made by them or were made before."""
    repo = _repo(tmp_path)
    fresh = Freshness(RepoIndex(repo))
    objects = list(reversed(repo.objects))
    for day in DAYS:
        assert fresh.stale(objects, day) == {o.uid: is_stale(repo.config, o, day) for o in objects}
    expected = sorted((stale_finding(repo.config, o) for o in objects), key=Finding.sort_key)
    assert fresh.ordered(objects) == expected
    assert fresh.ordered(objects[:2]) == [f for f in expected if f.ids[0] in ("c", "d")]


def test_prepared_freshness_sorts_the_findings_as_their_keys_do(tmp_path: Path) -> None:
    """Ranked once over every object (:meth:`Freshness.prepare`), the findings of any subset
    come in the order of their keys: copies of one id by their windows' messages, then by
    their paths."""
    files = {
        "a.md": obj("a", created="2023-01-01"),
        "z/e.md": obj("e", created="2023-01-01"),
        "e.md": obj("e", type="pricing", created="2023-01-01"),
        # the copies of f in the order of their versions, not of their paths
        "y/f.md": obj("f", version=1, created="2023-01-01", review_every="30d"),
        "x/f.md": obj("f", version=2, created="2023-01-01", review_every="30d"),
        "b.md": obj("b", created="2023-01-01", review_every="400d"),
        "c.md": obj("c"),  # never stale
    }
    config = {"freshness": {"default": "365d", "by_type": {"pricing": "90d"}}}
    repo = load_repository(make_repo(tmp_path, files, config))
    fresh = Freshness(RepoIndex(repo))
    fresh.prepare(repo.objects)
    assert fresh._ranks is not None
    for o in repo.objects:
        assert stale_sort_key(repo.config, o) == stale_finding(repo.config, o).sort_key()[1:]
    for objects in (repo.objects, list(reversed(repo.objects)), repo.objects[1::2]):
        expected = sorted((stale_finding(repo.config, o) for o in objects), key=Finding.sort_key)
        assert fresh.ordered(objects) == expected
    assert fresh.carried([0])._ranks is None  # a replaced object may move: ranked again


def test_excluded_for_is_the_record_excluded_gives(tmp_path: Path) -> None:
    o = _repo(tmp_path).objects[0]

    def detail(x):  # type: ignore[no-untyped-def]
        return f"about {x.id}"

    record = excluded_for(o, ExclusionReason.EXPIRED, detail)
    assert record is excluded(o, ExclusionReason.EXPIRED, "about a")
    assert excluded_for(o, ExclusionReason.EXPIRED, detail) is record


def test_only_a_cache_prepares_tables(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert NoCache(repo).prepared() is None  # type: ignore[func-returns-value]
    cache = ResolutionCache(repo)
    assert cache.prepared() is cache.prepared()
    assert cache.prepared().index is cache.index()
