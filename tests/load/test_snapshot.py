"""The persisted repository snapshot never changes a load: it is served only for the very
files it was made from, and anything stale, corrupt or hostile is refused for a normal load."""

from __future__ import annotations

import io
import mmap
import os
import pickle
import subprocess
import sys
import time
import zlib
from array import array
from collections.abc import Callable
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from octui.bundle.bundle import bundle_dict, dumps_bundle
from octui.core.tokens import token_table
from octui.load import assemble as assemble_module
from octui.load import loader as loader_module
from octui.load import parse_cache, snapshot, walk
from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.load.parse_cache import ParseStore
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.synth.repository import write_repository

AS_OF = datetime(2026, 6, 1, tzinfo=UTC)
FIXED = {"bundle_id": "00000000-0000-4000-8000-000000000000", "generated_at": AS_OF}


def age(root: Path, seconds: float = 3600) -> None:
    """Move every file's and folder's mtime into the past (so that a change made by a test
    is a new mtime even within the file system's clock tick)."""
    past = time.time() - seconds
    for path in [*root.rglob("*"), root]:
        os.utime(path, (past, past), follow_symlinks=False)


@pytest.fixture(autouse=True)
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by a test are cached at once (the racy window has its own test)."""
    monkeypatch.setattr(parse_cache, "RACY_NS", 0)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write_repository(root, 200, seed=5)
    age(root)
    return root


def store_for(root: Path, tmp_path: Path) -> ParseStore:
    return ParseStore(root, tmp_path / "cache", snapshots=True)


def snapshot_path(root: Path, tmp_path: Path) -> Path:
    return snapshot.SnapshotFile(str(root), tmp_path / "cache").path


def served(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Repository, bool]:
    """A load through the snapshot store, and whether the snapshot served it (no assembly)."""
    calls: list[int] = []
    real = assemble_module.assemble

    def counting(*args: object, **kwargs: object) -> Repository:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(loader_module, "assemble", counting)
    repo = load_repository(root, store=store_for(root, tmp_path))
    monkeypatch.setattr(loader_module, "assemble", real)
    return repo, not calls


def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the walks of the tree that loads make from now on."""
    calls: list[int] = []
    real = walk.scan

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(loader_module, "scan", counting)
    return calls


def kept(root: Path, tmp_path: Path) -> None:
    """Two loads: the first fills the parse cache, the second (served by it whole) keeps the
    snapshot."""
    for _ in range(2):
        load_repository(root, store=store_for(root, tmp_path))
    assert snapshot_path(root, tmp_path).exists()


def bundle_text(repo: Repository) -> str:
    query = Query(role="support", as_of=AS_OF, task="refund invoice")
    return dumps_bundle(bundle_dict(resolve(repo, query), **FIXED))  # type: ignore[arg-type]


def same(a: Repository, b: Repository) -> None:
    assert len(a.objects) == len(b.objects)
    for x, y in zip(a.objects, b.objects, strict=True):
        for f in fields(x):
            assert getattr(x, f.name) == getattr(y, f.name), (x.path, f.name)
    assert a.findings == b.findings and a.invalid_files == b.invalid_files
    assert a.root == b.root and a.unavailable_sources == b.unavailable_sources
    assert bundle_text(a) == bundle_text(b)


def test_a_warm_snapshot_serves_the_same_repository(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _first, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert not from_snapshot and not snapshot_path(repo, tmp_path).exists()  # files parsed anew
    _second, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert not from_snapshot and snapshot_path(repo, tmp_path).exists()  # parse cache whole
    again, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert from_snapshot
    same(again, load_repository(repo))
    assert len(again.tokens) == len(again.objects)  # every token table came with it
    assert all(again.tokens.get(o) == token_table(o) for o in again.objects)


def test_a_served_load_unpacks_a_token_table_when_it_is_first_read(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept(repo, tmp_path)
    unpacked: list[int] = []
    real = snapshot.PackedTables.unpack

    def counting(self: snapshot.PackedTables, obj: object) -> object:
        unpacked.append(1)
        return real(self, obj)  # type: ignore[arg-type]

    monkeypatch.setattr(snapshot.PackedTables, "unpack", counting)
    again, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert from_snapshot and not unpacked
    obj = again.objects[-1]
    assert again.tokens.get(obj) == token_table(obj) and len(unpacked) == 1
    assert again.tokens.get(obj) == token_table(obj) and len(unpacked) == 1  # unpacked once


def test_a_warm_snapshot_is_checked_without_walking_the_tree(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unchanged folders and files: one lstat each tells the fingerprint, no walk."""
    kept(repo, tmp_path)
    calls = walks(monkeypatch)
    again, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert from_snapshot and not calls
    same(again, load_repository(repo))


def _hidden(root: Path) -> None:
    (next(root.rglob("*.md")).parent / ".notes.md").write_text("never read\n")


def _other_file(root: Path) -> None:
    (next(root.rglob("*.md")).parent / "notes.txt").write_text("not an object\n")


def _folder_chmod(root: Path) -> None:
    time.sleep(0.01)
    next(root.rglob("*.md")).parent.chmod(0o755)


NOT_CHANGES: dict[str, Callable[[Path], None]] = {
    "hidden": _hidden,
    "other-file": _other_file,
    "folder-chmod": _folder_chmod,
}


@pytest.mark.parametrize("change", sorted(NOT_CHANGES))
def test_a_changed_folder_is_walked_and_the_same_files_keep_the_snapshot(
    change: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder whose identity changed without changing what a walk finds: the tree is
    walked once, and the snapshot still serves."""
    kept(repo, tmp_path)
    NOT_CHANGES[change](repo)
    calls = walks(monkeypatch)
    again, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert from_snapshot and len(calls) == 1
    same(again, load_repository(repo))


def test_folders_changed_just_before_the_walk_are_never_trusted_unlisted(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder changed in the clock tick of its lstat could keep its timestamps: the
    snapshot of a walk that met one is checked by walking the tree. (The racy window is
    0 here: a folder dated after the walk began stands for one changed within it.)"""
    folder = next(repo.rglob("*.md")).parent
    future = time.time() + 3600
    os.utime(folder, (future, future))
    kept(repo, tmp_path)
    calls = walks(monkeypatch)
    again, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert from_snapshot and len(calls) == 1
    same(again, load_repository(repo))


def test_a_tree_with_a_link_is_walked(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link's target can change without any folder of the walk changing."""
    target = next(repo.rglob("*.md"))
    (target.parent / "zz-link.md").symlink_to(target.name)
    age(repo)
    kept(repo, tmp_path)
    calls = walks(monkeypatch)
    _repo, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert from_snapshot and len(calls) == 1


def test_a_broken_link_the_walk_drops_keeps_the_tree_walked(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link whose target is missing leaves no entry and no problem, so no folder of the
    walk changes when the target appears; the next walk then meets the link. A tree with
    any link is walked, and the snapshot never answers for what the link now leads to."""
    outside = tmp_path / "outside"
    folder = next(repo.rglob("*.md")).parent
    (folder / "ext").symlink_to(outside)  # missing: nothing to report yet
    age(repo)
    kept(repo, tmp_path)
    outside.mkdir()
    calls = walks(monkeypatch)
    again, _from_snapshot = served(repo, tmp_path, monkeypatch)
    assert len(calls) == 1
    fresh = load_repository(repo)
    assert [f.message for f in again.findings] == [f.message for f in fresh.findings]
    assert any("ext" in " ".join(f.paths) for f in fresh.findings)


def test_a_snapshot_that_cannot_be_mapped_is_read_instead(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system that cannot map files (some FUSE mounts) still gets the snapshot."""
    kept(repo, tmp_path)

    def unmappable(*args: object, **kwargs: object) -> object:
        raise OSError(19, "No such device")

    monkeypatch.setattr(mmap, "mmap", unmappable)
    again, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert from_snapshot
    same(again, load_repository(repo))


def _edit(root: Path) -> None:
    path = next(root.rglob("*.md"))
    path.write_text(path.read_text().replace("e", "E", 1))


def _add(root: Path) -> None:
    source = next(root.rglob("*.md"))
    text = source.read_text().replace("id: ", "id: copy-", 1)
    (source.parent / "zz-added.md").write_text(text)


def _remove(root: Path) -> None:
    next(root.rglob("*.md")).unlink()


def _rename(root: Path) -> None:
    path = next(root.rglob("*.md"))
    path.rename(path.with_name("renamed-" + path.name))


def _add_folder(root: Path) -> None:
    source = next(root.rglob("*.md"))
    text = source.read_text().replace("id: ", "id: copy-", 1)
    (source.parent / "zz-new").mkdir()
    (source.parent / "zz-new" / "added.md").write_text(text)


def _replace_folder(root: Path) -> None:
    """The same names, files and timestamps in a new folder (another inode)."""
    folder = next(root.rglob("*.md")).parent
    copy = folder.with_name(folder.name + "-copy")
    copy.mkdir()
    for path in folder.iterdir():
        path.rename(copy / path.name)
    folder.rmdir()
    copy.rename(folder)


def _config(root: Path) -> None:
    path = root / "opencontext.yaml"
    path.write_text(path.read_text() + "\n# a comment changes the bytes\n")


CHANGES: dict[str, Callable[[Path], None]] = {
    "edit": _edit,
    "add": _add,
    "remove": _remove,
    "rename": _rename,
    "config": _config,
    "add-folder": _add_folder,
    "replace-folder": _replace_folder,
}


@pytest.mark.parametrize("change", sorted(CHANGES))  # a mode change: the ctime test below
def test_every_change_makes_the_snapshot_stale(
    change: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept(repo, tmp_path)
    CHANGES[change](repo)
    repo_after, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert not from_snapshot
    same(repo_after, load_repository(repo))


def test_a_chmod_changes_the_fingerprint_the_snapshot_is_checked_against(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mode change sets the ctime (even for root, who may read any mode)."""
    kept(repo, tmp_path)
    path = next(repo.rglob("*.md"))
    time.sleep(0.01)
    path.chmod(0o600)
    _repo, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert not from_snapshot


@pytest.mark.parametrize("what", ["version", "code"])
def test_other_code_never_reads_the_snapshot(
    what: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept(repo, tmp_path)
    monkeypatch.setattr(snapshot, "_CODE", None)  # computed again, from what is patched
    if what == "version":
        monkeypatch.setattr(snapshot, "__version__", "0.0.0-other")
    else:
        real = Path.read_bytes
        monkeypatch.setattr(Path, "read_bytes", lambda p: real(p) + b"# changed")
    _repo, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert not from_snapshot


def test_the_root_spelled_otherwise_is_another_snapshot(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept(repo, tmp_path)
    monkeypatch.chdir(repo.parent)
    relative = Path(repo.name)
    loaded = load_repository(relative, store=store_for(relative, tmp_path))
    assert loaded.root == str(relative)


def _rewrite(path: Path, body: bytes) -> None:
    path.write_bytes(snapshot.MAGIC + zlib.crc32(body).to_bytes(4, "big") + body)


class _Boom:
    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, ("touch planted",))


def _hostile_header(path: Path) -> None:
    _rewrite(path, pickle.dumps(_Boom()))


def _hostile_payload(path: Path) -> None:
    body = path.read_bytes()[len(snapshot.MAGIC) + 4 :]
    stream = io.BytesIO(body)
    pickle.load(stream)
    _rewrite(path, body[: stream.tell()] + pickle.dumps(_Boom()))


def _wrong_shape(path: Path) -> None:
    data = path.read_bytes()
    stream = io.BytesIO(data[len(snapshot.MAGIC) + 4 :])
    pickle.load(stream)
    head = data[len(snapshot.MAGIC) + 4 : len(snapshot.MAGIC) + 4 + stream.tell()]
    _rewrite(path, head + pickle.dumps(([], [], 0, [None])))


def _with_tables(path: Path, change: Callable[[tuple[Any, ...]], tuple[Any, ...]]) -> None:
    """Rewrite the snapshot with its packed token tables changed (and a CRC that matches)."""
    data = path.read_bytes()
    stream = io.BytesIO(data[len(snapshot.MAGIC) + 4 :])
    pickle.load(stream)
    head = data[len(snapshot.MAGIC) + 4 : len(snapshot.MAGIC) + 4 + stream.tell()]
    objects, findings, invalid, tables = pickle.load(stream)
    buffer = io.BytesIO()
    snapshot._SnapshotPickler(buffer).dump((objects, findings, invalid, change(tables)))
    _rewrite(path, head + buffer.getvalue())


def _tables_miscounted(path: Path) -> None:
    _with_tables(path, lambda t: (*t[:2], t[2][:-4], *t[3:]))  # one table fewer


def _tables_of_objects(path: Path) -> None:
    _with_tables(path, lambda t: ([*t[0], 7], *t[1:]))  # a token that is no string


def _flipped(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-100])


def _emptied(path: Path) -> None:
    path.write_bytes(b"")  # a file of no bytes cannot even be mapped


def _shared(path: Path) -> None:
    path.chmod(0o666)


TAMPER: dict[str, Callable[[Path], None]] = {
    "hostile-header": _hostile_header,
    "hostile-payload": _hostile_payload,
    "wrong-shape": _wrong_shape,
    "tables-miscounted": _tables_miscounted,
    "tables-not-strings": _tables_of_objects,
    "bit-flip": _flipped,
    "truncated": _truncated,
    "empty": _emptied,
    "writable-by-others": _shared,
}


@pytest.mark.parametrize("tamper", sorted(TAMPER))
def test_a_corrupt_or_hostile_snapshot_is_refused(
    tamper: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept(repo, tmp_path)
    TAMPER[tamper](snapshot_path(repo, tmp_path))
    monkeypatch.chdir(tmp_path)
    loaded, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert not from_snapshot and not (tmp_path / "planted").exists()
    same(loaded, load_repository(repo))


def _numbers_out_of_range(tables: tuple[object, ...]) -> tuple[object, ...]:
    numbers = tables[3]
    assert isinstance(numbers, bytes)
    return (*tables[:3], b"\xff" * len(numbers), *tables[4:])


def _first_table_backwards(tables: tuple[object, ...]) -> tuple[object, ...]:
    starts = tables[2]
    assert isinstance(starts, bytes)
    ends = memoryview(starts).cast("I")
    backwards = array("I", [ends[1] + 1, *ends[1:]])  # the first table ends before it starts
    return (*tables[:2], backwards.tobytes(), *tables[3:])


@pytest.mark.parametrize("change", [_numbers_out_of_range, _first_table_backwards])
def test_a_packed_table_that_makes_no_table_is_made_from_its_object(
    change: Callable[[tuple[object, ...]], tuple[object, ...]],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept(repo, tmp_path)
    _with_tables(snapshot_path(repo, tmp_path), change)
    again, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert from_snapshot
    assert all(again.tokens.get(o) == token_table(o) for o in again.objects)
    same(again, load_repository(repo))


def test_a_snapshot_written_in_place_while_it_is_read_is_refused(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is mapped, not copied: bytes written into it after its check are refused."""
    kept(repo, tmp_path)
    path = snapshot_path(repo, tmp_path)
    real = snapshot._checked

    def written_meanwhile(payload: object) -> object:
        time.sleep(0.02)  # past the file system's clock tick
        with open(path, "r+b") as handle:  # the same byte, written in place
            first = handle.read(1)
            handle.seek(0)
            handle.write(first)
        return real(payload)

    monkeypatch.setattr(snapshot, "_checked", written_meanwhile)
    loaded, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert not from_snapshot
    same(loaded, load_repository(repo))


def test_no_snapshot_of_files_changed_just_now(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second write within the same clock tick could keep a file's size and timestamps."""
    kept(repo, tmp_path)
    monkeypatch.setattr(parse_cache, "RACY_NS", 10**18)
    _edit(repo)
    served(repo, tmp_path, monkeypatch)
    assert not snapshot_path(repo, tmp_path).exists()  # the stale one is gone too


def test_a_store_without_snapshots_keeps_none(repo: Path, tmp_path: Path) -> None:
    load_repository(repo, store=ParseStore(repo, tmp_path / "cache"))
    load_repository(repo, store=ParseStore(repo, tmp_path / "cache"))
    assert not snapshot_path(repo, tmp_path).exists()


def test_the_repository_is_never_written(repo: Path, tmp_path: Path) -> None:
    before = sorted((p, p.stat().st_mtime_ns) for p in repo.rglob("*"))
    for _ in range(2):
        load_repository(repo, store=store_for(repo, tmp_path))
    assert sorted((p, p.stat().st_mtime_ns) for p in repo.rglob("*")) == before


def test_a_load_that_parsed_a_file_anew_keeps_no_snapshot(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone editing between runs never pays for writing a snapshot nobody reads: only a load
    the parse cache served whole keeps one, and the stale one goes."""
    kept(repo, tmp_path)
    _edit(repo)
    _repo, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert not from_snapshot and not snapshot_path(repo, tmp_path).exists()
    _repo, from_snapshot = served(repo, tmp_path, monkeypatch)  # unchanged since: kept again
    assert not from_snapshot and snapshot_path(repo, tmp_path).exists()
    again, from_snapshot = served(repo, tmp_path, monkeypatch)
    assert from_snapshot
    same(again, load_repository(repo))


SERVED_PROBE = """
import sys
from pathlib import Path
from octui.load.loader import load_repository
from octui.load.parse_cache import ParseStore
root, cache = Path(sys.argv[1]), Path(sys.argv[2])
load_repository(root, store=ParseStore(root, cache, snapshots=True))
names = ("yaml", "octui.load.frontmatter", "octui.load.fastpath", "tempfile")
print(" ".join(m for m in names if m in sys.modules))
"""


def test_a_load_a_snapshot_serves_imports_neither_the_parser_nor_yaml(
    repo: Path, tmp_path: Path
) -> None:
    """It parses nothing: the configuration comes from the YAML document the snapshot kept;
    and it writes nothing, so it never imports what writing a cache file uses."""
    kept(repo, tmp_path)  # (the files and folders are dated an hour back: never racy)
    argv = [sys.executable, "-c", SERVED_PROBE, str(repo), str(tmp_path / "cache")]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    assert out.split() == []
    _config(repo)  # a changed configuration is parsed again
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    assert "yaml" in out.split()
