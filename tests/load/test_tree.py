"""The working tree's reads: a file ``scandir`` listed as regular is read with the listing's
``lstat`` standing for the one before opening, and whatever it became since is still read
(or refused) by the full rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from octui.load.config import Config, load_config
from octui.load.fsread import RefusedFile
from octui.load.tree import Entry, FsTree
from octui.load.walk import scan


def listed(root: Path, rel: str) -> tuple[FsTree, Entry]:
    tree = FsTree(root)
    parent, _, name = rel.rpartition("/")
    (entry,) = [e for e in tree.scandir(parent) if e.name == name]
    return tree, entry


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_bytes(b"---\nid: a\n---\nbody\n")
    (tmp_path / "docs" / "b.md").write_bytes(b"---\nid: b\n---\n")
    return tmp_path


def test_a_listed_file_reads_what_read_reads(root: Path) -> None:
    tree, _entry = listed(root, "docs/a.md")
    assert tree.read("docs/a.md") == b"---\nid: a\n---\nbody\n"


def test_a_file_that_became_a_link_is_followed_as_read_follows_it(root: Path) -> None:
    tree, _entry = listed(root, "docs/a.md")
    os.unlink(root / "docs" / "a.md")
    os.symlink("b.md", root / "docs" / "a.md")
    assert tree.read("docs/a.md") == b"---\nid: b\n---\n"


def test_a_file_that_became_a_folder_is_a_folder(root: Path) -> None:
    tree, entry = listed(root, "docs/a.md")
    os.unlink(root / "docs" / "a.md")
    (root / "docs" / "a.md").mkdir()
    with pytest.raises(IsADirectoryError):
        tree.read(entry.rel)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_file_that_became_a_pipe_is_refused_without_blocking(root: Path) -> None:
    tree, entry = listed(root, "docs/a.md")
    os.unlink(root / "docs" / "a.md")
    os.mkfifo(root / "docs" / "a.md")
    with pytest.raises(RefusedFile) as caught:
        tree.read(entry.rel)
    with pytest.raises(RefusedFile) as unlisted:
        FsTree(root).read("docs/a.md")  # not listed: the lstat before opening refuses it
    assert caught.value.problem == unlisted.value.problem


def test_a_vanished_file_is_not_found(root: Path) -> None:
    tree, entry = listed(root, "docs/a.md")
    os.unlink(root / "docs" / "a.md")
    with pytest.raises(FileNotFoundError):
        tree.read(entry.rel)


def test_a_file_of_a_folder_not_listed_is_read_by_path(root: Path) -> None:
    assert FsTree(root).read("docs/a.md") == b"---\nid: a\n---\nbody\n"


def test_a_link_listed_in_the_folder_is_read_by_the_full_rules(root: Path) -> None:
    os.symlink("b.md", root / "docs" / "c.md")
    os.symlink("/etc/passwd", root / "docs" / "d.md")
    tree, _entry = listed(root, "docs/c.md")
    assert tree.read("docs/c.md") == b"---\nid: b\n---\n"
    with pytest.raises(RefusedFile):
        tree.read("docs/d.md")  # leads outside the root


def test_a_listed_regular_file_is_opened_without_another_lstat(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree, _entry = listed(root, "docs/a.md")
    calls: list[object] = []
    real_lstat = os.lstat

    def lstat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        calls.append(path)
        return real_lstat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "lstat", lstat)
    assert tree.read("docs/a.md") == b"---\nid: a\n---\nbody\n"
    assert calls == []
    assert FsTree(root).read("docs/a.md") == b"---\nid: a\n---\nbody\n"  # not listed
    assert calls  # the full rules lstat before opening


def _nested(root: Path) -> None:
    (root / "opencontext.yaml").write_text("spec: 1\n", encoding="utf-8")
    for rel in ("a/b/c", "a/d", "e"):
        (root / rel).mkdir(parents=True)
        (root / rel / "x.md").write_bytes(f"---\nid: {rel.replace('/', '.')}\n---\n".encode())


def _walk(tree: FsTree, config: Config | None = None) -> None:
    scan(tree, config if config is not None else load_config(tree.root))


def test_a_walk_takes_no_realpath_for_a_folder_listed_as_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder its parent's listing saw as a folder (not a link) has the parent's real path
    followed by its name: the walk asks ``realpath`` for none of them, and gets the same."""
    _nested(tmp_path)
    tree = FsTree(tmp_path)
    config = load_config(tmp_path)
    calls: list[str] = []
    real = os.path.realpath

    def counted(path: str) -> str:
        calls.append(str(path))
        return real(path)

    monkeypatch.setattr(os.path, "realpath", counted)
    _walk(tree, config)
    monkeypatch.setattr(os.path, "realpath", real)
    assert calls == []
    for rel in ("a", "a/b", "a/b/c", "a/d", "e"):
        assert tree._real_dirs[rel][0] == os.path.realpath(tmp_path / rel)


def test_a_folder_that_became_a_link_since_the_last_walk_is_resolved_again(
    tmp_path: Path,
) -> None:
    """What an earlier walk saw of folders never stands for a realpath in a later walk of the
    same tree (a session's tree): a folder replaced by a link is resolved to its target."""
    _nested(tmp_path)
    tree = FsTree(tmp_path)
    _walk(tree)
    (tmp_path / "e" / "x.md").unlink()
    (tmp_path / "e").rmdir()
    (tmp_path / "e").symlink_to(tmp_path / "a" / "d")
    tree.start_walk()
    tree.scandir("e")  # before the root is listed again: only a realpath can say
    assert tree._real_dirs["e"][0] == os.path.realpath(tmp_path / "a" / "d")


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    asked: list[int] = []
    real_read = os.read

    def read(fd: int, n: int) -> bytes:
        asked.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", read)
    return asked


def test_a_file_read_whole_takes_one_read_call(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree, _entry = listed(root, "docs/a.md")
    asked = _count_reads(monkeypatch)
    assert tree.read("docs/a.md") == b"---\nid: a\n---\nbody\n"
    assert asked == [len(b"---\nid: a\n---\nbody\n") + 1]


def test_a_file_longer_than_its_descriptor_said_is_read_on(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that grew after the descriptor's ``fstat``: read to its end (up to the cap)."""
    tree, _entry = listed(root, "docs/a.md")
    real_fstat = os.fstat

    def fstat(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        return os.stat_result((st[0], st[1], st[2], st[3], st[4], st[5], 3, *st[7:]))

    monkeypatch.setattr(os, "fstat", fstat)
    asked = _count_reads(monkeypatch)
    assert tree.read("docs/a.md") == b"---\nid: a\n---\nbody\n"
    assert asked[0] == 4 and len(asked) == 3  # 4 bytes, the rest, then the end
