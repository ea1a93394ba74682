"""Replacing octui's own files (caches, snapshots, settings) atomically."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import BinaryIO

from octui.load.atomic import TEMPORARY_PREFIX, write_atomically


def test_a_file_is_replaced_whole_in_a_private_new_folder(tmp_path: Path) -> None:
    folder = tmp_path / "made" / "here"
    target = folder / "file"
    assert write_atomically(target, lambda h: h.write(b"one"))
    assert write_atomically(target, lambda h: h.write(b"two"))
    assert target.read_bytes() == b"two"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert sorted(p.name for p in folder.iterdir()) == ["file"]


def test_a_failed_write_leaves_the_file_as_it_was_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_bytes(b"before")

    def half(handle: BinaryIO) -> None:
        handle.write(b"half")
        raise ValueError("cannot encode")

    assert not write_atomically(target, half)
    assert target.read_bytes() == b"before"
    assert not list(tmp_path.glob(f"{TEMPORARY_PREFIX}*"))


def test_an_impossible_folder_is_a_false_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"not a folder")
    assert not write_atomically(blocker / "sub" / "x", lambda h: h.write(b""))
