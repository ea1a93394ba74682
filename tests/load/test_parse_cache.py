"""Caches never change results: the persistent parse cache, the in-memory parse cache and the
pipeline's memo all give the same bundles (same digest, same bytes) as running without them."""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import time
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path

import pytest

from octui.bundle.bundle import bundle_dict, digest, dumps_bundle
from octui.cli.main import main
from octui.load import parse_cache as cache
from octui.load.assemble import Repository
from octui.load.loader import Loader, load_repository
from octui.load.parse_cache import ParseStore, cache_dir, open_store
from octui.load.tree import FsTree
from octui.render.explain import explain
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.session import Session
from octui.synth.repository import write_repository

AS_OF = datetime(2026, 6, 1, tzinfo=UTC)
FIXED = {"bundle_id": "00000000-0000-4000-8000-000000000000", "generated_at": AS_OF}


@pytest.fixture(autouse=True)
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`age` moves mtimes into the past, but the kernel sets every ctime to now, and the
    cache skips files changed within its racy window: these tests are about what a stored
    cache gives, so the window is closed here (the test about the window reopens it)."""
    monkeypatch.setattr(cache, "RACY_NS", 0)


def age(root: Path, seconds: float = 3600) -> None:
    """Move every file's mtime into the past (the cache skips files written just now)."""
    past = time.time() - seconds
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))


@pytest.fixture(scope="module")
def synth_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth") / "repo"
    write_repository(root, 600, seed=7)
    age(root)
    return root


def text_of(repo: Repository, query: Query, cache: ResolutionCache | None = None) -> str:
    resolution = resolve(repo, query, cache)
    bundle = dumps_bundle(bundle_dict(resolution, **FIXED))  # type: ignore[arg-type]
    return bundle + explain(resolution, digest(resolution))


def same_objects(a: Repository, b: Repository) -> None:
    assert len(a.objects) == len(b.objects)
    for x, y in zip(a.objects, b.objects, strict=True):
        for f in fields(x):
            assert getattr(x, f.name) == getattr(y, f.name), (x.path, f.name)
    assert a.findings == b.findings and a.invalid_files == b.invalid_files


QUERIES = [
    Query(role="support", as_of=AS_OF, task="refund invoice"),
    Query(role="support", as_of=AS_OF, task="password reset"),
    Query(role="sales", as_of=AS_OF, task="refund invoice"),
    Query(role="support", as_of=datetime(2024, 3, 1, tzinfo=UTC), task="refund"),
    Query(role="support", as_of=AS_OF, task="refund", limit=5),
    Query(role="support", as_of=AS_OF, task="refund invoice"),
    Query(role="leadership", as_of=AS_OF, task="", include_historical=True),
    Query(role="leadership", as_of=AS_OF, task="billing", min_relevance=4),
    Query(role="public-bot", as_of=AS_OF, task="mobile", strict=True),
    Query(role=None, as_of=AS_OF),
    Query(role="support", as_of=AS_OF, task="refund", limit=0),
    Query(role="support", as_of=AS_OF, task="refund invoice"),
]


def test_resolution_cache_gives_what_a_fresh_repository_gives(synth_repo: Path) -> None:
    """One repository resolved again and again (cache warm) against a fresh load each time."""
    warm = load_repository(synth_repo)
    cache = ResolutionCache(warm)
    for query in QUERIES:
        fresh = load_repository(synth_repo)
        assert text_of(warm, query, cache) == text_of(fresh, query), query


def test_memo_survives_interleaved_roles_and_instants(synth_repo: Path) -> None:
    warm = load_repository(synth_repo)
    cache = ResolutionCache(warm)
    days = [datetime(y, m, 1, tzinfo=UTC) for y in (2022, 2024, 2026) for m in (1, 7)]
    for i in range(16):  # more stages than the cache keeps: evictions must not matter
        query = Query(role=["support", "sales", "finance"][i % 3], as_of=days[i % len(days)])
        expected = digest(resolve(load_repository(synth_repo), query))
        assert digest(resolve(warm, query, cache)) == expected


def test_persistent_cache_gives_the_same_repository(synth_repo: Path, tmp_path: Path) -> None:
    plain = load_repository(synth_repo)
    cold_store = ParseStore(synth_repo, tmp_path / "cache")
    cold = load_repository(synth_repo, store=cold_store)
    assert cold_store.hits == 0 and list((tmp_path / "cache").glob("*.pickle"))
    warm_store = ParseStore(synth_repo, tmp_path / "cache")
    warm = load_repository(synth_repo, store=warm_store)
    assert warm_store.misses == 0 and warm_store.hits > 500
    same_objects(plain, cold)
    same_objects(plain, warm)
    for query in QUERIES:
        assert text_of(plain, query) == text_of(warm, query)


def test_one_edited_file_is_parsed_again_and_nothing_else(tmp_path: Path, synth_repo: Path) -> None:
    root = tmp_path / "repo"
    write_repository(root, 200, seed=3)
    age(root)
    store_dir = tmp_path / "cache"
    load_repository(root, store=ParseStore(root, store_dir))
    target = next(p for p in sorted(root.rglob("*.md")) if "title:" in p.read_text())
    text = target.read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("title:"))
    target.write_text(text.replace(line, 'title: "Edited here"', 1))
    past = time.time() - 60
    os.utime(target, (past, past))
    store = ParseStore(root, store_dir)
    loader = Loader(FsTree(root), str(root), store)
    repo = loader.load()
    assert loader.parsed_count == 1 and store.misses == 1
    same_objects(repo, load_repository(root))
    assert any(o.title == "Edited here" for o in repo.objects)


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not a pickle at all",
        pickle.dumps({"fingerprint": "someone else", "root": "/", "entries": {}}),
        pickle.dumps(["a", "list"]),
        "truncate",
        "wrong-shapes",
    ],
)
def test_a_damaged_cache_is_a_miss_never_a_wrong_answer(
    synth_repo: Path, tmp_path: Path, damage: bytes | str
) -> None:
    directory = tmp_path / "cache"
    store = ParseStore(synth_repo, directory)
    load_repository(synth_repo, store=store)
    if damage == "truncate":
        data = store.path.read_bytes()
        store.path.write_bytes(data[: len(data) // 2])
    elif damage == "wrong-shapes":
        doc = pickle.loads(store.path.read_bytes())
        for i, rel in enumerate(sorted(doc["entries"])):
            *identity, values, unknown, error, skipped, tokens = doc["entries"][rel]
            doc["entries"][rel] = [
                (*identity, (values or ())[:3], unknown, error, skipped, tokens),
                (*identity, values, "unknown", error, skipped, tokens),
                (*identity, values, unknown, 5, skipped, tokens),
                "garbage",
                (*identity, values, unknown, error, skipped, "not a table"),
                (*identity, values, unknown, error, skipped, ({}, [], 3)),
                (*identity, values, unknown, error, skipped),
            ][i % 7]
        store.path.write_bytes(pickle.dumps(doc))
    else:
        assert isinstance(damage, bytes)
        store.path.write_bytes(damage)
    again = ParseStore(synth_repo, directory)
    same_objects(load_repository(synth_repo, store=again), load_repository(synth_repo))


@pytest.mark.parametrize("aged", [False, True], ids=["mtime-now", "mtime-old-ctime-now"])
def test_files_written_just_now_are_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, aged: bool
) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 2_000_000_000)
    monkeypatch.setattr(cache, "MIN_ENTRIES", 1)
    root = tmp_path / "repo"
    write_repository(root, 20, seed=1)  # mtimes: now, so a same-tick rewrite could hide
    if aged:  # a restored mtime: the ctime (now) still says the file just changed
        age(root)
    store = ParseStore(root, tmp_path / "cache")
    load_repository(root, store=store)
    again = ParseStore(root, tmp_path / "cache")
    load_repository(root, store=again)
    assert again.hits == 0


def test_cache_location_honours_xdg_and_never_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OCTUI_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "octui"
    root = tmp_path / "repo"
    write_repository(root, 10, seed=1)
    assert open_store(root) is not None
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / ".cache"))
    assert open_store(root) is None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("OCTUI_NO_CACHE", "1")
    assert open_store(root) is None


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def test_cli_with_and_without_cache_prints_the_same_digest(
    synth_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OCTUI_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    args = ["resolve", str(synth_repo), "--role", "support", "--task", "refund"]
    args += ["--as-of", "2026-06-01", "--explain"]
    before = sorted(p.relative_to(synth_repo) for p in synth_repo.rglob("*"))
    code, no_cache = run_cli(*args, "--no-cache")
    assert code == 0 and not (tmp_path / "xdg").exists()
    _, cold = run_cli(*args)
    stored = sorted(p.name for p in (tmp_path / "xdg" / "octui").glob("*.pickle"))
    assert len(stored) == 1  # the parse cache; no snapshot of a load that parsed files
    _, warm = run_cli(*args)
    stored = sorted(p.name for p in (tmp_path / "xdg" / "octui").glob("*.pickle"))
    assert len(stored) == 2 and stored[0].endswith("-repository.pickle")  # and the snapshot
    assert not list((tmp_path / "xdg" / "octui").glob(".octui-*"))  # no temporary left over
    _, served = run_cli(*args)
    assert no_cache == cold == warm == served
    assert sorted(p.relative_to(synth_repo) for p in synth_repo.rglob("*")) == before


def test_session_reload_after_an_edit_matches_a_fresh_load(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_repository(root, 150, seed=5)
    age(root)
    session = Session(root, store=ParseStore(root, tmp_path / "cache"))
    session.load()
    query = Query(role="support", as_of=AS_OF, task="refund")
    session.resolve(query)
    victim = next(p for p in sorted(root.rglob("*.md")) if "version: 1" in p.read_text())
    victim.write_text(victim.read_text().replace("version: 1", "version: 7", 1))
    assert session.changed_on_disk()
    session.load()
    assert text_of(session.repository, query) == text_of(load_repository(root), query)  # type: ignore[arg-type]


def test_reload_reuses_unchanged_objects_without_touching_the_old_repository(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    write_repository(root, 120, seed=11)
    session = Session(root)
    old = session.load()
    old_uids = [(o.uid, o.id, o.version, o.path) for o in old.objects]
    query = Query(role="leadership", as_of=AS_OF, task="refund")
    old_text = text_of(old, query)
    # a new file that sorts first (every uid moves) and a deleted one
    (root / "aaa.md").write_text("---\nid: aaa.first\ntitle: First\n---\nbody\n")
    next(p for p in sorted(root.rglob("*.md")) if "version: 2" in p.read_text()).unlink()
    new = session.load()
    assert [(o.uid, o.id, o.version, o.path) for o in old.objects] == old_uids
    assert [o.uid for o in new.objects] == list(range(len(new.objects)))
    assert text_of(old, query) == old_text
    assert text_of(new, query) == text_of(load_repository(root), query)
    # an edit that keeps every position: the other objects are the very same
    target = next(p for p in sorted(root.rglob("*.md")) if p.name != "README.md")
    target.write_text(target.read_text() + "\nmore\n")
    newer = session.load()
    shared = sum(a is b for a, b in zip(new.objects, newer.objects, strict=True))
    assert shared == len(newer.objects) - 1
    assert text_of(newer, query) == text_of(load_repository(root), query)


def test_digest_from_cached_pieces_equals_the_definition(synth_repo: Path) -> None:
    from octui.bundle.bundle import (
        digest_of,
        exclusion_digest_form,
        included_digest_form,
        warning_digest_form,
    )

    repo = load_repository(synth_repo)
    for query in QUERIES:
        resolution = resolve(repo, query)
        for _ in range(2):  # the second time from the cached pieces
            assert digest(resolution) == digest_of(
                [included_digest_form(i) for i in resolution.included],
                [exclusion_digest_form(e) for e in resolution.exclusions],
                [warning_digest_form(w) for w in resolution.warnings],
            )


def test_gc_pause_restores_the_collector_and_holds_only_the_loaded_heap(synth_repo: Path) -> None:
    import gc

    from octui.load.heap import release_heap

    assert gc.isenabled()
    release_heap()
    assert gc.get_freeze_count() == 0
    load_repository(synth_repo)
    assert gc.isenabled() and gc.get_freeze_count() > 0  # held until the next load
    gc.disable()
    try:
        load_repository(synth_repo)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_cache_directory_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import octui.load.parse_cache as cache

    monkeypatch.setattr(cache, "MAX_FILES", 3)
    root = tmp_path / "repo"
    write_repository(root, 120, seed=2)
    age(root)
    directory = tmp_path / "cache"
    directory.mkdir()
    for i in range(5):  # other repositories' files, older
        (directory / f"{i:032x}.pickle").write_bytes(b"x")
        os.utime(directory / f"{i:032x}.pickle", (1000 + i, 1000 + i))
    store = ParseStore(root, directory)
    load_repository(root, store=store)
    left = sorted(p.name for p in directory.glob("*.pickle"))
    assert store.path.name in left and len(left) == 3
    assert f"{4:032x}.pickle" in left and f"{0:032x}.pickle" not in left


def test_small_repositories_get_no_cache_file(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_repository(root, 30, seed=2)
    age(root)
    load_repository(root, store=ParseStore(root, tmp_path / "cache"))
    assert not list((tmp_path / "cache").glob("*.pickle"))


@pytest.mark.parametrize("tamper", ["file-writable-by-others", "folder-writable-by-others", "link"])
def test_a_cache_others_could_write_is_never_unpickled(
    synth_repo: Path, tmp_path: Path, tamper: str
) -> None:
    """Unpickling runs code: a cache file someone else could have written counts as cold."""
    directory = tmp_path / "cache"
    load_repository(synth_repo, store=ParseStore(synth_repo, directory))
    path = ParseStore(synth_repo, directory).path
    trusted = ParseStore(synth_repo, directory)
    load_repository(synth_repo, store=trusted)
    assert trusted.hits > 0  # the untampered cache is used
    if tamper == "file-writable-by-others":
        path.chmod(0o666)
    elif tamper == "folder-writable-by-others":
        directory.chmod(0o777)
    else:
        elsewhere = tmp_path / "planted.pickle"
        path.rename(elsewhere)
        path.symlink_to(elsewhere)
    store = ParseStore(synth_repo, directory)
    same_objects(load_repository(synth_repo, store=store), load_repository(synth_repo))
    assert store.hits == 0


def test_an_edit_with_its_mtime_restored_is_never_served_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tar -x``, ``rsync -a`` and ``cp -p`` restore mtimes: a same-length edit of
    ``access.roles`` must still reach the cache, the in-memory cache and change detection."""
    monkeypatch.setattr(cache, "MIN_ENTRIES", 1)
    root = tmp_path / "repo"
    (root / "policies").mkdir(parents=True)
    (root / "opencontext.yaml").write_text(
        "spec: 1\nroles:\n  support: {}\n  finance: {}\n", encoding="utf-8"
    )
    target = root / "policies" / "refund.md"
    target.write_text(
        "---\nid: policies.refund\nauthority: canonical\naccess: {roles: [support]}\n---\nBody\n",
        encoding="utf-8",
    )
    age(root)
    store_dir = tmp_path / "cache"
    session = Session(root)  # its in-memory parse cache and change detection
    session.load()
    load_repository(root, store=ParseStore(root, store_dir))  # the persistent cache, written
    warm = ParseStore(root, store_dir)
    load_repository(root, store=warm)
    assert warm.hits == 1  # the cache holds the file: the test below is about a real hit

    def readers(repo: Repository) -> list[str]:
        return [
            role
            for role in ("finance", "support")
            if any(
                i.obj.id == "policies.refund"
                for i in resolve(repo, Query(role=role, as_of=AS_OF)).included
            )
        ]

    assert readers(session.repository) == ["support"]  # type: ignore[arg-type]
    seen = session.fingerprint()
    before = os.stat(target)
    time.sleep(0.05)  # past the kernel's timestamp tick, as any later edit is
    with open(target, "r+b") as handle:  # in place: the same inode
        data = handle.read()
        handle.seek(0)
        handle.write(data.replace(b"[support]", b"[finance]"))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(target)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )

    assert session.fingerprint() != seen
    assert session.changed_on_disk()
    session.load()
    assert readers(session.repository) == ["finance"]  # type: ignore[arg-type]
    assert not session.changed_on_disk()

    again = ParseStore(root, store_dir)
    repo = load_repository(root, store=again)
    (obj,) = repo.objects
    assert obj.access_roles == ("finance",) and (again.hits, again.misses) == (0, 1)
    assert readers(repo) == ["finance"]


class _Planted:
    """Pickles as a call of ``builtins.exec``: what a hostile cache file would hold."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, (self.code,))


def test_a_hostile_cache_runs_no_code_and_is_a_miss(synth_repo: Path, tmp_path: Path) -> None:
    """A private cache file can still be hostile (written by another program of this user):
    the unpickler names only the classes a parse holds, so a planted call is refused before
    it runs, and the load parses every file as with no cache."""
    directory = tmp_path / "cache"
    store = ParseStore(synth_repo, directory)
    load_repository(synth_repo, store=store)
    marker = tmp_path / "ran"
    doc = pickle.loads(store.path.read_bytes())
    rel = sorted(doc["entries"])[0]
    doc["entries"][rel] = _Planted(f"open({str(marker)!r}, 'w').close()")
    store.path.write_bytes(pickle.dumps(doc))
    again = ParseStore(synth_repo, directory)
    same_objects(load_repository(synth_repo, store=again), load_repository(synth_repo))
    assert not marker.exists()
    assert again.hits == 0
