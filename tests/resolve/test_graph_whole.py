"""A role's supersession graph derived from the whole repository's equals the graph built
directly over what the role may read: the same cycles (split where the role reads a cycle in
part), findings and replacements in effect at every instant."""

from __future__ import annotations

import random
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from properties.test_properties import SETTINGS, Spec, specs, write
from repo_builder import make_repo, obj

from octui.bundle.bundle import digest
from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.resolve import graph as graph_module
from octui.resolve.engine import admit, resolve
from octui.resolve.findings import broken_references
from octui.resolve.graph import SupersessionGraph, Timeline, build_graph
from octui.resolve.graph_whole import WholeGraph, restricted_graph
from octui.resolve.index import RepoIndex
from octui.resolve.prepared import Prepared
from octui.resolve.result import Query
from octui.session import Session
from octui.synth.repository import write_repository

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
            assert derived.timeline(o) == direct.timeline(o)
            for day in DAYS:
                assert derived.replaced_by(o, day) == direct.replaced_by(o, day)
        assert derived.cycle_edges == direct.cycle_edges


def test_roles_read_the_whole_repositorys_timelines_unless_a_cover_was_made_again(
    tmp_path: Path,
) -> None:
    """Every readable object whose covers a role keeps whole reads the whole repository's
    very timeline (made once for every role); the others read their own, and some of those
    differ from the whole repository's (a replacement the role may not read, or a draft to
    it, a cycle it reads in part) — so both paths are taken, and the second is needed."""
    shared = differing = 0
    for seed in range(25):
        repo = _random_repo(tmp_path / str(seed), seed)
        whole = WholeGraph(RepoIndex(repo))
        for role in ROLES:
            readable = [o for o in repo.objects if o.access_roles is None or role in o.access_roles]
            unreadable = [o.uid for o in repo.objects if o not in readable]
            derived = restricted_graph(whole, readable, unreadable)
            for o in readable:
                if o.uid in derived.remade:
                    differing += derived.timeline(o) != whole.timelines.of(o)
                else:
                    shared += 1
                    assert derived.timeline(o) is whole.timelines.of(o)
    assert shared > 0 and differing > 0


@SETTINGS
@given(spec=specs(), order=st.permutations(["r0", "r1", "r2"]))
def test_timelines_shared_across_roles_are_each_roles_own(spec: Spec, order: list[str]) -> None:
    """The roles of one repository, first visited in any order, each derive their graph from
    the one whole graph (whose timelines the earlier roles made): every object a role may
    read has the timeline a graph built over what that role alone may read and has approved
    gives it (SPEC §2 step 5) — whatever the secret objects, drafts and cycles around it."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = load_repository(write(spec, Path(tmp) / "repo"))
        index = RepoIndex(repo)
        prepared = Prepared(index)
        broken = broken_references(index)
        for name in order:
            role = repo.config.roles[name]
            query = Query(role=name, as_of=DAYS[0])
            derived = admit(index, role, query, broken, prepared).reader.graph
            direct = admit(index, role, query, broken).reader.graph
            assert derived is not None and direct is not None
            assert derived.shared is prepared.graph.timelines and direct.shared is None
            for o in direct.readable:
                assert derived.timeline(o) == direct.timeline(o)


def test_a_prepared_whole_graph_leaves_each_role_only_its_remade_timelines_to_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """:meth:`WholeGraph.prepare` makes the timeline of every object a replacement could
    reach; a role's first visit then makes only those of its ``remade`` objects, and every
    timeline is the one a graph built over what the role may read gives."""
    write_repository(tmp_path / "r", 400, seed=3)
    repo = load_repository(tmp_path / "r")
    index = RepoIndex(repo)
    prepared = Prepared(index)
    prepared.graph.prepare()
    reachable = [o for o in repo.objects if prepared.graph.replaceable[o.uid]]
    assert set(prepared.graph.timelines.made) == {o.uid for o in reachable}
    made: list[int] = []
    original = graph_module.timeline_of

    def counted(covers: list[graph_module._Cover], skip: int) -> Timeline:
        made.append(skip)
        return original(covers, skip)

    monkeypatch.setattr(graph_module, "timeline_of", counted)
    broken = broken_references(index)
    remade = shared = 0
    for name, role in repo.config.roles.items():
        query = Query(role=name, as_of=DAYS[0])
        derived = admit(index, role, query, broken, prepared).reader.graph
        direct = admit(index, role, query, broken).reader.graph
        assert derived is not None and direct is not None
        asked = [o for o in direct.readable if prepared.graph.replaceable[o.uid]]
        own = sum(o.uid in derived.remade for o in asked)
        before = len(made)
        for o in asked:
            assert derived.timeline(o) == direct.timeline(o)
        assert len(made) - before == len(asked) + own  # every direct one, the remade ones
        remade, shared = remade + own, shared + len(asked) - own
    assert shared > remade > 0


def test_prepare_makes_the_timelines_once_a_role_built_the_whole_graph(tmp_path: Path) -> None:
    """``Session.prepare`` makes the whole graph's timelines when a role built the graph, and
    never builds it itself: after a reload that carried the role, none is built until a new
    role asks, and the answers stay a fresh resolution's."""
    root = tmp_path / "r"
    write_repository(root, 300, seed=5)
    session = Session(root)
    session.load()
    query = Query(role="support", as_of=DAYS[0], task="billing refund")
    session.resolve(query)
    assert session.cache is not None
    graph = session.cache.prepared().built_graph()
    assert graph is not None and len(graph.timelines.made) < sum(graph.replaceable)  # asked
    assert session.prepare() is True
    assert len(graph.timelines.made) == sum(graph.replaceable) > 0
    target = sorted(p for p in root.rglob("*.md") if p.name != "README.md")[4]
    target.write_text(target.read_text(encoding="utf-8") + "\nanother line\n", "utf-8")
    repository = session.load([str(target)])
    assert digest(session.resolve(query)) == digest(resolve(repository, query))
    assert session.prepare() is True
    assert session.cache.prepared().built_graph() is None
    other = Query(role="engineering", as_of=DAYS[0], task="billing refund")
    assert digest(session.resolve(other)) == digest(resolve(repository, other))
    assert session.cache.prepared().built_graph() is not None


def test_carried_graphs_read_the_shared_timelines_and_answer_as_fresh_ones(
    tmp_path: Path,
) -> None:
    """After an edit of a replacement's start (one some role may not read, on a cycle split
    for a role, a draft's target, a copy named by ``superseded_by``), the roles' graphs
    carried across the reload still read the earlier whole graph's timelines for the
    objects the edit did not touch, and every answer is a fresh resolution's."""
    config = {
        "spec": 1,
        "classification": {"levels": ["public", "internal", "confidential", "restricted"]},
        "roles": {
            "a": {"clearance": "restricted"},
            "b": {"clearance": "restricted"},
            "c": {"clearance": "public"},
        },
    }
    files = {
        "x1.md": obj("x", version=1, valid_from="2026-01-01"),
        "s.md": obj("s", supersedes=["x"], valid_from="2026-03-01", classification="restricted"),
        "p.md": obj("p", supersedes=["x"], valid_from="2026-05-01"),
        "y.md": obj("y", superseded_by=["q"], valid_from="2026-01-01"),
        "q.md": obj("q", valid_from="2026-04-01"),
        "q2.md": obj("q", version=2, valid_from="2026-02-01", classification="restricted"),
        "c1.md": obj("c1", supersedes=["c2"], valid_from="2026-01-01"),
        "c2.md": obj("c2", supersedes=["c1"], valid_from="2026-01-01", classification="restricted"),
        "r.md": obj("r", supersedes=["c1"], valid_from="2026-02-15"),
        "d.md": obj("d", supersedes=["c1", "x"], valid_from="2026-02-20", status="draft"),
        "e.md": obj("e", supersedes=["c2"], valid_from="2026-02-25", classification="restricted"),
    }
    days = ["01-15", "02-10", "02-18", "02-22", "03-15", "04-15", "06-01"]
    root = make_repo(tmp_path, files, config)
    session = Session(root)
    session.load()
    queries = [
        Query(role=r, as_of=datetime.fromisoformat(f"2026-{d}T00:00:00+00:00"))
        for r in ("a", "b", "c")
        for d in days
    ]
    for query in queries:
        session.resolve(query)
    session.prepare()
    edits = {
        "s.md": "2026-01-10",
        "p.md": "2026-01-20",
        "q2.md": "2026-06-15",
        "r.md": "2026-01-02",
        "e.md": "2026-01-05",
        "q.md": "2026-01-03",
    }
    carried_shared = 0
    for name, start in edits.items():
        path = root / name
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("valid_from:", f"valid_from: {start}\nold_from:", 1), "utf-8")
        repository = session.load([str(path)])
        for query in queries:
            assert digest(session.resolve(query)) == digest(resolve(repository, query)), (
                name,
                query,
            )
        assert session.cache is not None
        graphs = [entry.reader.graph for entry in session.cache.roles.entries.values()]
        carried_shared += sum(g is not None and g.shared is not None for g in graphs)
        session.prepare()
    assert carried_shared > 0  # the carried path was taken
