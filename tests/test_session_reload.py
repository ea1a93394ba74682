"""A session reloaded after edits (told which paths changed, or not) answers exactly as a
fresh load does, and carries what its cache knew only when that still holds."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from repo_builder import make_repo, obj

from octui.bundle.bundle import bundle_dict, digest
from octui.bundle.pieces import Pieces
from octui.core.enums import ExclusionReason
from octui.resolve.carry import understood
from octui.resolve.graph import SupersessionGraph
from octui.resolve.result import Query
from octui.session import Session
from octui.synth.repository import write_repository

AS_OF = [datetime(2025, 7, 1, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC)]


def _bundle(session: Session, query: Query) -> dict[str, object]:
    found = bundle_dict(session.resolve(query))
    return {k: v for k, v in found.items() if k not in ("bundle_id", "generated_at")}


def _queries(session: Session) -> list[Query]:
    assert session.repository is not None
    roles: list[str | None] = [*sorted(session.repository.config.roles)[:3], None]
    return [
        Query(role=r, as_of=t, task="billing refund", include_historical=h)
        for r in roles
        for t in AS_OF
        for h in (False, True)
    ]


def _same_as_fresh(session: Session, root: Path) -> None:
    fresh = Session(root)
    fresh.load()
    for query in _queries(session):
        assert _bundle(session, query) == _bundle(fresh, query), query
        assert digest(session.resolve(query)) == digest(fresh.resolve(query))
    assert session.fingerprint() == fresh.fingerprint()
    assert session.loader.fingerprint == fresh.loader.fingerprint


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    write_repository(root, 300, seed=3)
    return root


def _objects(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.md") if p.name != "README.md")


def _sub(path: Path, pattern: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    changed = re.sub(pattern, new, text, count=1, flags=re.MULTILINE)
    assert changed != text or pattern == "", (path, pattern)
    path.write_text(changed, encoding="utf-8")


def _with_field(path: Path, line: str) -> None:
    """Add a front-matter line (after the first)."""
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition("\n")
    path.write_text(f"{head}\n{line}\n{rest}", encoding="utf-8")


def _edits(root: Path) -> Iterator[tuple[str, list[Path]]]:
    """Edits of every kind, each applied when the next is asked for: (what, the paths
    touched)."""
    files = _objects(root)
    a, b, c, d = files[5], files[40], files[77], files[120]

    def body() -> list[Path]:
        a.write_text(a.read_text(encoding="utf-8") + "\nA refund billing note.\n", "utf-8")
        return [a]

    def created() -> list[Path]:
        _sub(b, r"^created: (\d{4})", "created: 2019")
        return [b]

    def status() -> list[Path]:
        _with_field(c, "status: draft")
        return [c]

    def valid_until() -> list[Path]:
        _with_field(d, "valid_until: 2025-01-01")
        return [d]

    def layer() -> list[Path]:
        _sub(a, r"^layer: .*$", "layer: L3") if "layer:" in a.read_text() else _with_field(
            a, "layer: L0"
        )
        return [a]

    def classification() -> list[Path]:
        _sub(b, r"^classification: .*$", "classification: restricted")
        return [b]

    def version() -> list[Path]:
        _sub(c, r"^version: (\d+)", "version: 41")
        return [c]

    d_text = d.read_text(encoding="utf-8")

    def invalid() -> list[Path]:
        d.write_text("---\nid: [broken\n---\nbody\n", encoding="utf-8")
        return [d]

    def fixed() -> list[Path]:
        d.write_text(d_text, encoding="utf-8")
        return [d]

    def nested() -> list[Path]:
        """A file added in the middle of a nested source's folder."""
        folders = sorted(p.parent for p in (root / "inbox").rglob("*.md"))
        folder = next(p for p in folders if len(list(p.glob("*.md"))) > 2)
        names = sorted(p.name for p in folder.glob("*.md"))
        new = folder / (names[len(names) // 2][:-3] + "-b.md")
        new.write_text(a.read_text(encoding="utf-8").replace("id: ", "id: nested.", 1), "utf-8")
        return [new]

    def add() -> list[Path]:
        new = a.parent / "zz-added.md"
        new.write_text(a.read_text(encoding="utf-8").replace("id: ", "id: added.", 1), "utf-8")
        return [new]

    def delete() -> list[Path]:
        b.unlink()
        return [b]

    def rename() -> list[Path]:
        target = c.parent / "renamed.md"
        c.rename(target)
        return [c, target]

    def new_folder() -> list[Path]:
        folder = a.parent / "fresh"
        folder.mkdir()
        (folder / "x.md").write_text(a.read_text(encoding="utf-8").replace("id: ", "id: x.", 1))
        return [folder, folder / "x.md"]

    def config() -> list[Path]:
        conf = root / "opencontext.yaml"
        conf.write_text(conf.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        return [conf]

    for name, edit in [
        ("body", body),
        ("created", created),
        ("status", status),
        ("valid_until", valid_until),
        ("layer", layer),
        ("classification", classification),
        ("version", version),
        ("invalid", invalid),
        ("fixed", fixed),
        ("nested", nested),
        ("add", add),
        ("delete", delete),
        ("rename", rename),
        ("new_folder", new_folder),
        ("config", config),
    ]:
        yield name, edit()


def _warm(session: Session) -> None:
    for query in _queries(session):
        digest(session.resolve(query))


@pytest.mark.parametrize("hinted", [True, False])
def test_every_kind_of_edit_gives_the_fresh_answer(repo: Path, hinted: bool) -> None:
    session = Session(repo)
    session.load()
    _warm(session)
    for name, touched in _edits(repo):
        session.load([str(p) for p in touched] if hinted else None)
        _same_as_fresh(session, repo)
        _warm(session)
        assert name


def test_edits_are_checked_one_by_one(repo: Path) -> None:
    """Each edit, then a hinted reload, then the comparison (not all edits at once)."""
    session = Session(repo)
    session.load()
    _warm(session)
    files = _objects(repo)
    for i, target in enumerate(files[:6]):
        if i % 2:
            target.write_text(target.read_text(encoding="utf-8") + f"\nmore {i}\n", "utf-8")
        else:
            _sub(target, r"^created: (\d{4})", "created: 2018")
        session.load([str(target)])
        _same_as_fresh(session, repo)
        _warm(session)
    assert session.loader.hinted == 6


def test_a_body_edit_carries_the_stages(repo: Path) -> None:
    assert understood()
    session = Session(repo)
    session.load()
    _warm(session)
    target = _objects(repo)[9]
    target.write_text(target.read_text(encoding="utf-8") + "\nanother line\n", "utf-8")
    session.load([str(target)])
    assert session.cache is not None
    assert session.cache.stages.pending_items() and session.cache.roles.pending_items()
    _same_as_fresh(session, repo)
    assert session.cache.stages.keys()


def test_a_field_edit_carries_what_steps_1_2_leave_but_no_stage(repo: Path) -> None:
    session = Session(repo)
    session.load()
    _warm(session)
    target = _objects(repo)[11]
    _sub(target, r"^created: (\d{4})", "created: 2017")
    session.load([str(target)])
    assert session.cache is not None
    assert not session.cache.stages.pending_items() and session.cache.roles.pending_items()
    _same_as_fresh(session, repo)


def test_a_hint_reads_only_the_named_file(repo: Path) -> None:
    session = Session(repo)
    session.load()
    before = session.loader.parsed_count
    a, b = _objects(repo)[3], _objects(repo)[4]
    for path in (a, b):
        path.write_text(path.read_text(encoding="utf-8") + "\nx\n", "utf-8")
    session.load([str(a)])  # b is not named: it is taken to be unchanged
    assert session.loader.parsed_count == before + 1
    assert session.fingerprint() != session.loader.fingerprint  # a full scan sees b
    session.load()
    _same_as_fresh(session, repo)


def test_a_hinted_fingerprint_equals_a_full_one(repo: Path) -> None:
    session = Session(repo)
    session.load()
    target = _objects(repo)[7]
    target.write_text(target.read_text(encoding="utf-8") + "\ny\n", "utf-8")
    added = target.parent / "another.md"
    added.write_text(target.read_text(encoding="utf-8").replace("id: ", "id: n.", 1), "utf-8")
    assert session.fingerprint([str(target), str(added)]) == session.fingerprint()
    assert session.fingerprint([os.path.relpath(target, repo)]) != session.fingerprint()


def test_hidden_and_foreign_paths_are_ignored(repo: Path) -> None:
    session = Session(repo)
    first = session.load()
    (repo / ".git").mkdir()
    (repo / ".git" / "x.md").write_text("x")
    (repo / "notes.txt").write_text("x")
    session.load([str(repo / ".git" / "x.md"), str(repo / "notes.txt"), "/elsewhere/y.md"])
    assert session.repository is first
    assert session.loader.fingerprint == Session(repo).fingerprint()


def test_a_body_edit_keeps_the_digest_pieces_of_every_other_object(repo: Path) -> None:
    session = Session(repo)
    session.load()
    _warm(session)
    assert session.cache is not None and session.cache.memo is not None
    before = session.cache.memo.known(("digest-pieces",))
    assert isinstance(before, Pieces) and before._parts
    target = _objects(repo)[9]
    target.write_text(target.read_text(encoding="utf-8") + "\nanother line\n", "utf-8")
    session.load([str(target)])
    assert session.cache is not None and session.cache.memo is not None
    assert session.repository is not None
    edited = next(o.uid for o in session.repository.objects if o.path.endswith(target.name))
    after = session.cache.memo.known(("digest-pieces",))
    assert isinstance(after, Pieces) and after is not before
    kept = {uid for uid in before._parts if uid != edited}
    assert set(after._parts) == kept
    assert set(after._last) == {uid for uid in before._last if uid != edited} != set()
    _same_as_fresh(session, repo)


def test_carried_entries_never_hold_a_chain_of_old_repositories(repo: Path) -> None:
    import gc
    import weakref

    from octui.load.heap import release_heap

    session = Session(repo)
    first = session.load()
    _warm(session)
    gone = weakref.ref(first)
    del first
    for i, target in enumerate(_objects(repo)[20:23]):  # edits, nothing asked in between
        target.write_text(target.read_text(encoding="utf-8") + f"\nedit {i}\n", "utf-8")
        session.load([str(target)])
    release_heap()
    gc.collect()
    assert gone() is None
    _same_as_fresh(session, repo)


def test_an_edited_sessions_old_caches_are_freed_at_once(repo: Path) -> None:
    """The carried cache holds no cycle back to itself: the old cache is freed by reference
    counting as soon as the session drops it, even while the loaded heap is held out of the
    collector's passes (a cycle would keep every old cache until some full collection)."""
    import weakref

    session = Session(repo)
    session.load()
    _warm(session)
    assert session.cache is not None
    caches = [weakref.ref(session.cache)]
    for i, target in enumerate(_objects(repo)[30:33]):
        target.write_text(target.read_text(encoding="utf-8") + f"\nedit {i}\n", "utf-8")
        session.load([str(target)])
        _warm(session)
        assert session.cache is not None
        caches.append(weakref.ref(session.cache))
    assert [c() is None for c in caches] == [True, True, True, False]


def test_a_sessions_resolutions_and_reloads_leave_no_reference_cycles(repo: Path) -> None:
    """What paused sections make joins the held heap (``octui.load.heap``): that is safe
    only because resolving, digesting and reloading make no reference cycles — reference
    counting frees whatever a cache drops. A cycle would stay until the next full load, so
    none may be made: after many resolutions, evictions and hinted reloads, a collection
    finds no garbage made by octui."""
    import gc

    from octui.load.heap import release_heap

    session = Session(repo)
    session.load()
    release_heap()
    gc.collect()
    _warm(session)
    for role in sorted(session.repository.config.roles if session.repository else ()):
        for day in ("2023-01-01", "2024-06-01", "2025-03-01", "2026-09-01", "2027-12-01"):
            as_of = datetime.fromisoformat(day).replace(tzinfo=UTC)
            digest(session.resolve(Query(role=role, as_of=as_of, task="refund")))
    for i, target in enumerate(_objects(repo)[40:43]):
        target.write_text(target.read_text(encoding="utf-8") + f"\ncycle {i}\n", "utf-8")
        session.load([str(target)])
        _warm(session)
    release_heap()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    made_here = [
        o
        for o in found
        if type(o).__module__.startswith("octui")
        or str(getattr(o, "__module__", "") or "").startswith("octui")
    ]
    assert made_here == []


def test_a_body_edit_carries_the_prepared_tables_matching_the_edit_again(repo: Path) -> None:
    """The exclusion order, the fixed order with its task-token matches and the freshness
    are carried; the edited object's matches are made again (its new line holds both task
    tokens), so the answers still equal a fresh load's."""
    from octui.core.tokens import tokenize
    from octui.resolve.fixed import UNKNOWN

    session = Session(repo)
    session.load()
    _warm(session)
    assert session.cache is not None
    before = session.cache.known_prepared()
    assert before is not None and {"order", "fixed", "freshness"} <= set(vars(before))
    query = _queries(session)[2]  # a role at the later instant, "billing refund"
    unmatched = [i for i in session.resolve(query).included if not i.matched and i.score == 0]
    assert unmatched, "the query must include an object the task does not match"
    target = repo / unmatched[0].obj.path
    target.write_text(target.read_text(encoding="utf-8") + "\nA refund billing note.\n", "utf-8")
    session.load([str(target)])
    assert session.cache is not None and session.repository is not None
    after = session.cache.known_prepared()
    assert after is not None and after is not before
    assert vars(after)["order"] is vars(before)["order"]
    edited = next(o.uid for o in session.repository.objects if o.path.endswith(target.name))
    at = vars(before)["fixed"].uids.index(edited)
    for token in tokenize("billing refund"):
        kept = vars(before)["fixed"]._memo.known(token)
        carried = vars(after)["fixed"]._memo.known(token)
        assert kept is not None and carried is not None
        assert carried[at] == UNKNOWN and kept[at] != UNKNOWN
        assert carried[:at] == kept[:at] and carried[at + 1 :] == kept[at + 1 :]
    assert vars(after)["fixed"].objects[at] is session.repository.objects[edited]
    now = next(i for i in session.resolve(query).included if i.obj.uid == edited)
    assert now.score > 0 and now.matched  # matched again, not the kept "no match"
    _same_as_fresh(session, repo)


def test_a_bulk_edit_prepares_the_fixed_order_again(repo: Path) -> None:
    """A reload that replaced more than one object in CARRY_SHARE builds the fixed order
    again instead of resetting most of it (and still answers as a fresh load does)."""
    from octui.resolve.prepared import CARRY_SHARE

    session = Session(repo)
    session.load()
    _warm(session)
    edited = _objects(repo)
    for path in edited:
        path.write_text(path.read_text(encoding="utf-8") + "\nA refund billing note.\n", "utf-8")
    session.load([str(p) for p in edited])
    assert session.loader.replaced is not None and session.repository is not None
    replaced = session.loader.replaced[1]  # replaced in place: the cache was carried
    assert len(replaced) * CARRY_SHARE > len(session.repository.objects)
    assert session.cache is not None
    carried = session.cache.known_prepared()
    assert carried is not None and "fixed" not in vars(carried) and "order" in vars(carried)
    _same_as_fresh(session, repo)


def test_a_layer_edit_prepares_the_fixed_order_again(repo: Path) -> None:
    session = Session(repo)
    session.load()
    _warm(session)
    target = next(p for p in _objects(repo) if "layer:" in p.read_text(encoding="utf-8"))
    _sub(target, r"^layer: .*$", "layer: L0")
    session.load([str(target)])
    assert session.cache is not None
    carried = session.cache.known_prepared()
    assert carried is not None and "fixed" not in vars(carried) and "order" in vars(carried)
    _same_as_fresh(session, repo)


def test_a_conflict_declared_by_an_edit_is_judged_as_a_fresh_load_judges_it(
    tmp_path: Path,
) -> None:
    files = {f"{n}.md": obj(n, authority=a) for n, a in [("a", "canonical"), ("b", "approved")]}
    root = make_repo(tmp_path / "r", files)
    session = Session(root)
    session.load()
    query = Query(role=None, as_of=AS_OF[0])
    for day in AS_OF:  # the second instant judges over the prepared tables
        digest(session.resolve(Query(role=None, as_of=day)))
    _with_field(root / "b.md", "conflicts_with: [a]")
    session.load([str(root / "b.md")])
    assert session.loader.replaced is not None  # replaced in place: the tables carried
    assert _bundle(session, query) == _bundle(Session(root), query)
    assert [e.reason for e in session.resolve(query).exclusions] == [ExclusionReason.CONFLICT]


def _judged_at_every_instant(root: Path) -> Session:
    """A loaded session that resolved the whole repository at each instant of AS_OF (the
    later instants judge over the prepared tables, which an edit then carries)."""
    session = Session(root)
    session.load()
    for day in [AS_OF[1], *AS_OF]:
        digest(session.resolve(Query(role=None, as_of=day)))
    return session


def test_an_edit_that_moves_a_replacements_start_judges_supersession_afresh(
    tmp_path: Path,
) -> None:
    files = {
        "a1.md": obj("a", version=1, created="2024-01-01"),
        "a2.md": obj("a", version=2, created="2025-01-01", supersedes=["a@1"]),
        "note.md": obj("note", created="2024-01-01"),
    }
    root = make_repo(tmp_path / "r", files)
    session = _judged_at_every_instant(root)
    query = Query(role=None, as_of=AS_OF[0])
    for path, old, new in [("note.md", "2024-01-01", "2023-01-01"), ("a2.md", "2025", "2026")]:
        _sub(root / path, old, new)  # a bystander's date, then the replacement's start
        session.load([str(root / path)])
        assert session.loader.replaced is not None  # replaced in place: the graph carried
        assert _bundle(session, query) == _bundle(Session(root), query)
    assert [e.reason for e in session.resolve(query).exclusions] == [ExclusionReason.NOT_YET_VALID]


def test_an_edit_that_moves_a_window_moves_it_in_the_carried_spans(tmp_path: Path) -> None:
    """The validity windows are carried with the edited object's boundaries moved: an
    object that starts earlier after the edit is valid where it was not yet."""
    files = {
        "late.md": obj("late", created="2026-01-01", valid_until="2027-01-01"),
        "note.md": obj("note", created="2024-01-01"),
    }
    root = make_repo(tmp_path / "r", files)
    session = _judged_at_every_instant(root)
    query = Query(role=None, as_of=AS_OF[0])
    assert session.cache is not None
    before = session.cache.known_prepared()
    assert before is not None and "spans" in vars(before)
    assert [e.id for e in session.resolve(query).exclusions] == ["late"]
    _sub(root / "late.md", "2026-01-01", "2025-01-01")
    _sub(root / "late.md", "2027-01-01", "2025-06-01")  # now expired at AS_OF[0]
    session.load([str(root / "late.md")])
    assert session.loader.replaced is not None and session.cache is not None
    after = session.cache.known_prepared()
    assert after is not None and vars(after)["spans"] is not vars(before)["spans"]
    for day in [*AS_OF, datetime(2025, 3, 1, tzinfo=UTC)]:
        asked = Query(role=None, as_of=day)
        assert _bundle(session, asked) == _bundle(Session(root), asked)
    reasons = [e.reason for e in session.resolve(query).exclusions]
    assert reasons == [ExclusionReason.EXPIRED]


def test_a_body_edit_shares_the_graphs_covers_and_the_hashed_exclusions(repo: Path) -> None:
    """An edited object no supersession declaration can hold leaves every cover of the
    graph as it was (the tables shared whole); the stage keeps its hashed exclusions and
    warnings (no object in them); the answers are a fresh load's."""
    session = Session(repo)
    session.load()
    _warm(session)
    assert session.cache is not None and session.repository is not None
    query = _queries(session)[-1]  # its stage is kept, with its digest made
    old_graph = session.resolve(query).graph
    assert isinstance(old_graph, SupersessionGraph)
    key = (query.role, query.as_of, query.include_historical)
    (old_stage,) = [s for k, s in session.cache.stages.items() if k == key]
    listing = old_stage.memo.known(("listing",))
    assert listing is not None
    target = next(
        repo / o.path
        for o in session.repository.objects
        if not o.supersedes
        and o.id not in old_graph.members
        and (o.id, o.version) not in old_graph.copies
    )
    target.write_text(target.read_text(encoding="utf-8") + "\nanother line\n", "utf-8")
    session.load([str(target)])
    resolution = session.resolve(query)
    digest(resolution)
    graph = resolution.graph
    assert (
        isinstance(graph, SupersessionGraph)
        and graph is not old_graph
        and graph.by_target is old_graph.by_target
    )
    assert graph.members is old_graph.members
    (stage,) = [s for k, s in session.cache.stages.items() if k == key]
    assert stage is not old_stage and stage.memo.known(("listing",)) is listing
    _same_as_fresh(session, repo)


def test_an_edited_replacement_remakes_only_the_covers_that_hold_it(repo: Path) -> None:
    """An edited object that declares supersedes is made again in the covers that hold it
    (around the new object); every other cover is the very one the graph had."""
    session = Session(repo)
    session.load()
    _warm(session)
    assert session.repository is not None
    query = _queries(session)[-1]
    old_graph = session.resolve(query).graph
    assert isinstance(old_graph, SupersessionGraph)
    held = {
        o.uid
        for table in (old_graph.by_target, old_graph.by_version)
        for cover in table.values()
        for o in cover.members()
    }
    edited = next(o for o in session.repository.objects if o.supersedes and o.uid in held)
    target = repo / edited.path
    target.write_text(target.read_text(encoding="utf-8") + "\nanother line\n", "utf-8")
    session.load([str(target)])
    assert session.repository is not None
    new = session.repository.objects[edited.uid]
    graph = session.resolve(query).graph
    assert isinstance(graph, SupersessionGraph)
    remade = 0
    for name in ("by_target", "by_version", "members", "copies"):
        before, after = getattr(old_graph, name), getattr(graph, name)
        assert before.keys() == after.keys()
        for key, cover in after.items():
            members = cover.members()
            if any(o.uid == edited.uid for o in members):
                assert cover is not before[key] and new in members
                remade += 1
            else:
                assert cover is before[key]
    assert remade
    _same_as_fresh(session, repo)
