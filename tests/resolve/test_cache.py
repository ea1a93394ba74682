"""The resolution cache: answers equal to computing everything, shared safely by threads,
bound to one repository, replaced with it by the session."""

from __future__ import annotations

import random
import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from repo_builder import fixed_bundle

from octui.analysis.agenda import change_agenda
from octui.analysis.whynot import why_not
from octui.bundle.bundle import digest
from octui.core.model import Exclusion
from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.resolve import cache as cache_module
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.session import Session
from octui.synth.repository import write_repository

DAYS = [datetime(y, m, 1, tzinfo=UTC) for y in (2023, 2025, 2026) for m in (1, 6, 11)]


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Repository:
    root = tmp_path_factory.mktemp("cache") / "repo"
    write_repository(root, 400, seed=11)
    return load_repository(root)


def _queries(repo: Repository) -> list[Query]:
    roles: list[str | None] = [None, *sorted(repo.config.roles)]
    out = []
    for i, day in enumerate(DAYS):
        for j, role in enumerate(roles):
            out.append(
                Query(
                    role=role,
                    as_of=day,
                    task=["", "refund policy", "invoice"][(i + j) % 3],
                    include_historical=(i + j) % 4 == 0,
                    limit=5 if (i + j) % 5 == 0 else None,
                )
            )
    return out


def test_threads_sharing_one_cache_get_what_no_cache_gives(
    synth: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight threads resolve every query in their own order through one small cache (so
    entries are evicted while others read them); each bundle equals the uncached one."""
    monkeypatch.setattr(cache_module, "ROLES", 2)
    monkeypatch.setattr(cache_module, "STAGES", 3)
    queries = _queries(synth)
    expected = {q: fixed_bundle(resolve(synth, q)) for q in queries}
    shared = ResolutionCache(synth)
    start = threading.Barrier(8)
    got: list[dict[Query, object]] = [{} for _ in range(8)]
    failures: list[BaseException] = []

    def work(n: int) -> None:
        order = list(queries)
        random.Random(n).shuffle(order)
        try:
            start.wait()
            for q in order * 2:
                got[n][q] = fixed_bundle(resolve(synth, q, shared))
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    for answers in got:
        assert answers == expected
    assert len(shared.roles.keys()) <= 2 and len(shared.stages.keys()) <= 3


def test_why_not_and_the_agenda_in_threads_share_the_cache(synth: Repository) -> None:
    """Why-not (which keeps the repository as a role sees it in the cache) and the agenda
    running in threads beside plain resolutions answer as they do alone, without a cache."""
    query = Query(role=sorted(synth.config.roles)[0], as_of=DAYS[4])
    base = resolve(synth, query)
    excluded = [uid for uid, fate in base.fates.items() if isinstance(fate, Exclusion)][:12]
    alone = [why_not(base, synth, uid) for uid in excluded]
    agenda = change_agenda(synth, query).to_json()
    shared = ResolutionCache(synth)
    results: dict[str, object] = {}

    def ask_why() -> None:
        results["why"] = [why_not(base, synth, uid, cache=shared) for uid in excluded]

    def sweep() -> None:
        results["agenda"] = change_agenda(synth, query, cache=shared).to_json()

    def resolve_many() -> None:
        results["digests"] = [
            digest(resolve(synth, replace(query, as_of=day), shared)) for day in DAYS
        ]

    threads = [threading.Thread(target=f) for f in (ask_why, sweep, resolve_many, ask_why)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["why"] == alone
    assert results["agenda"] == agenda
    assert results["digests"] == [digest(resolve(synth, replace(query, as_of=d))) for d in DAYS]


def test_a_cache_of_another_repository_is_refused(synth: Repository) -> None:
    other = replace(synth)
    with pytest.raises(ValueError, match="another repository"):
        resolve(other, Query(role=None, as_of=DAYS[0]), ResolutionCache(synth))


def test_the_session_makes_a_new_cache_with_each_load(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_repository(root, 30, seed=2)
    session = Session(root)
    first = session.load()
    cache = session.cache
    assert cache is not None and cache.repository is first
    assert session.cache_for(first) is cache
    second = session.load()
    assert session.cache is not cache and session.cache is not None
    assert session.cache.repository is second
    assert session.cache_for(first) is None  # an older repository resolves without it


def test_a_large_repository_keeps_fewer_roles_and_stages(
    synth: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tables' bounds are in objects' worth: a repository as large as the budget keeps
    one role and two stages (here, with no floor), whose answers stay those of no cache."""
    size = len(synth.objects)
    assert ResolutionCache(synth).roles.bound == cache_module.ROLES  # a small repository
    monkeypatch.setattr(cache_module, "ROLE_OBJECTS", size)
    monkeypatch.setattr(cache_module, "STAGE_OBJECTS", 2 * size)
    monkeypatch.setattr(cache_module, "ROLES_KEPT", 1)
    monkeypatch.setattr(cache_module, "STAGES_KEPT", 1)
    cache = ResolutionCache(synth)
    roles = sorted(synth.config.roles)[:3]
    for role in roles:
        for day in DAYS[:3]:
            query = Query(role=role, as_of=day)
            assert digest(resolve(synth, query, cache)) == digest(resolve(synth, query))
    assert cache.roles.keys() == [roles[-1]]
    stages = cache.stages.keys()
    assert stages == [(roles[-1], day, False) for day in DAYS[1:3]]


def test_a_bound_keeps_at_least_one_entry() -> None:
    assert cache_module.bound_for(4, 100_000, 10_000) == 4
    assert cache_module.bound_for(4, 100_000, 50_000) == 2
    assert cache_module.bound_for(4, 100_000, 1_000_000) == 1
    assert cache_module.bound_for(4, 100_000, 0) == 4
    assert cache_module.bound_for(4, 100_000, 1_000_000, 3) == 3
    assert cache_module.bound_for(2, 100_000, 1_000_000, 3) == 2


def test_a_large_repository_keeps_the_explorers_working_set() -> None:
    """Whatever the size, the explorer's role and stage survive its prefetch of the day on
    and back and of the two neighbouring roles."""
    assert cache_module.bound_for(cache_module.ROLES, cache_module.ROLE_OBJECTS, 10**6, 3) == 3
    assert cache_module.ROLES_KEPT >= 3 and cache_module.STAGES_KEPT >= 5


def test_carried_entries_count_against_the_bound(synth: Repository) -> None:
    """Entries carried from an earlier cache and never asked for make room for new ones."""
    from octui.resolve.cache import ROLES

    cache = ResolutionCache(synth)
    cache.seed(cache.index(), {}, {"roles": {f"old{i}": i for i in range(ROLES)}}, _no_carry)
    for i in range(ROLES):
        cache.role(f"new{i}", lambda: 0)
    assert len(cache.roles.keys()) + len(cache.roles.pending_items()) == ROLES
    assert not cache.roles.pending_items()


def _no_carry(cache: object, table: object, key: object, entry: object) -> object:
    from octui.resolve.cache import NOT_CARRIED

    return NOT_CARRIED
