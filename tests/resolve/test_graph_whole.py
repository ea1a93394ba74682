"""A role's supersession graph derived from the whole repository's equals the graph built
directly over what the role may read: the same cycles (split where the role reads a cycle in
part), findings and replacements in effect at every instant."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from repo_builder import make_repo, obj

from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.resolve.graph import SupersessionGraph, build_graph
from octui.resolve.graph_whole import WholeGraph, restricted_graph
from octui.resolve.index import RepoIndex

ROLES = ["a", "b", "c"]
DAYS = [datetime(2024, m, 1, tzinfo=UTC) for m in (1, 4, 7, 10)]


def _random_repo(root: Path, seed: int) -> Repository:
    rng = random.Random(seed)
    ids = [f"p.{i}" for i in range(6)]
    files = {}
    for n in range(18):
        object_id = rng.choice(ids)
        refs = [rng.choice(ids) + rng.choice(["", "@1", "@2"]) for _ in range(rng.randrange(3))]
        back = [rng.choice(ids) + rng.choice(["", "@1"]) for _ in range(rng.randrange(2))]
        files[f"o/{n}.md"] = obj(
            object_id,
            version=rng.choice([1, 1, 2, 3]),
            status=rng.choice(["active", "active", "draft"]),
            created=f"2023-{rng.randrange(1, 13):02d}-01",
            supersedes=refs or None,
            superseded_by=back or None,
            access={"roles": rng.sample(ROLES, rng.randrange(1, 4))}
            if rng.random() < 0.4
            else None,
        )
    config = {"roles": {r: {"clearance": "restricted"} for r in ROLES}}
    return load_repository(make_repo(root, files, config))


def _partition(graph: SupersessionGraph, uids: list[int]) -> set[frozenset[int]]:
    """The components as sets of uids (their numbers are arbitrary)."""
    by: dict[int, set[int]] = {}
    for u in uids:
        by.setdefault(graph.component[u], set()).add(u)
    return {frozenset(v) for v in by.values()}


@pytest.mark.parametrize("seed", range(25))
def test_restricted_graph_equals_the_direct_one(tmp_path: Path, seed: int) -> None:
    repo = _random_repo(tmp_path, seed)
    index = RepoIndex(repo)
    whole = WholeGraph(index)
    for role in ROLES:
        readable = [o for o in repo.objects if o.access_roles is None or role in o.access_roles]
        unreadable = [o.uid for o in repo.objects if o not in readable]
        approved = {o.uid for o in readable if o.status.value != "draft"}
        direct = build_graph(index, readable, approved)
        derived = restricted_graph(whole, readable, unreadable)
        uids = [o.uid for o in readable]
        assert _partition(derived, uids) == _partition(direct, uids)
        assert all(derived.component[u] == -1 for u in unreadable)
        cyclic = {
            frozenset(p)
            for p in _partition(direct, uids)
            if direct.component[min(p)] in direct.cyclic
        }
        assert {
            p for p in _partition(derived, uids) if derived.component[min(p)] in derived.cyclic
        } == cyclic
        assert derived.cycle_findings == direct.cycle_findings
        assert set(derived.by_target) == set(direct.by_target)
        assert set(derived.by_version) == set(direct.by_version)
        assert set(derived.members) == set(direct.members)
        assert set(derived.copies) == set(direct.copies)
        for o in readable:
            for day in DAYS:
                assert derived.replaced_by(o, day) == direct.replaced_by(o, day)
        assert derived.cycle_edges == direct.cycle_edges
