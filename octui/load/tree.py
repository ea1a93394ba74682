"""The files a repository is read from: a :class:`Tree` of entries, and :class:`FsTree`, the
working tree on disk.

Reading goes through a tree — the working tree (:class:`FsTree`) or any other snapshot (a
git revision, :mod:`octui.load.gittree`) — so loading never depends on where the bytes come
from, and never writes anything. An :class:`Entry` carries a file's identity, which keys
every cache of what the file parses to.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Hashable
from pathlib import Path
from stat import S_ISREG
from typing import NamedTuple, Protocol

from octui.load.fsread import (
    BROKEN,
    HIDDEN,
    OUTSIDE,
    hidden_below,
    inside,
    not_regular,
    read_inside,
    read_listed_regular,
    read_regular,
    resolve_inside,
)

MAX_FILE_BYTES = 1024 * 1024
"""The largest file read (1 MiB); a bigger one is a finding, never read."""


class Entry(NamedTuple):
    """One directory entry. ``problem`` is set for entries that cannot be followed.

    ``identity`` names the real file or folder behind the entry (on disk its device and
    inode, in a git revision its resolved path; None when the tree cannot tell), so two
    paths to one real file are recognised. ``ino`` and ``ctime_ns`` complete the cache
    key on disk (0 elsewhere); ``link`` says the entry was reached through a symbolic link.

    A named tuple, not a frozen dataclass: a walk makes one per file, and a tuple is made
    about five times faster (a frozen dataclass sets each of its ten fields by a call).
    """

    name: str
    rel: str
    is_dir: bool
    size: int = 0
    mtime_ns: int = 0
    problem: str | None = None
    ino: int = 0
    ctime_ns: int = 0
    identity: Hashable | None = None
    link: bool = False

    @property
    def key(self) -> FileKey:
        """What a parse of this file is cached under: a key that timestamps alone cannot
        forge (the inode and ``st_ctime_ns``, which only the kernel sets)."""
        return (self.rel, self.size, self.mtime_ns, self.ino, self.ctime_ns)


FileKey = tuple[str, int, int, int, int]
"""``(path, size, mtime_ns, inode, ctime_ns)`` of a file."""
FolderIdentity = tuple[str, int, int, int, int]
"""``(path, device, inode, mtime_ns, ctime_ns)`` of a folder."""


class Tree(Protocol):
    """A read-only snapshot of a repository's files, addressed by POSIX relative paths."""

    def read(self, rel: str) -> bytes: ...

    def is_dir(self, rel: str) -> bool: ...

    def is_file(self, rel: str) -> bool: ...

    def scandir(self, rel: str) -> list[Entry]:
        """Entries of a folder; raises ``OSError`` when the folder cannot be read."""
        ...

    def describe(self, rel: str) -> str:
        """How to name ``rel`` in a message."""
        ...


class FsTree:
    """The working tree. Symbolic links are followed only while they stay inside the root and
    lead to nothing hidden; only regular files are read, at most ``MAX_FILE_BYTES + 1`` bytes
    of each (:mod:`octui.load.fsread`)."""

    def __init__(self, root: Path, *, identify_folders: bool = False) -> None:
        self.root = root
        self._root = str(root)
        self.real_root = Path(os.path.realpath(root))
        self._real = str(self.real_root)
        self._real_dirs: dict[str, tuple[str, bool, set[str]]] = {}
        """``rel -> (real path, plain, regular)`` of every folder listed by :meth:`scandir`,
        plain when it is inside the root and nothing on its path below the root is hidden
        (saves a realpath and the path checks of every file read); ``regular``: the names its
        last listing saw as regular files, not links, whose ``lstat`` stands for the one
        before opening (saves a system call per file read)."""
        self._folders: dict[str, set[str]] = {}
        """``rel -> names`` the listing of folder ``rel`` saw as folders, not links, during
        the current walk (:meth:`start_walk`): such a folder's real path is its parent's
        followed by its name, which saves a ``realpath`` (a system call per path component)
        for every folder listed."""
        self.identify_folders = identify_folders
        """Whether :meth:`scandir` takes each folder's ``lstat`` before listing it, for
        :meth:`folder_identities` (a system call per folder, which only a load that may keep
        a repository snapshot needs)."""
        self._identities: dict[str, FolderIdentity | None] = {}
        self._walk_started = 0

    def start_walk(self) -> None:
        """Forget what earlier walks saw of folders: only the current walk's listings stand
        for a ``realpath`` (the tree may have changed since)."""
        self._folders = {}
        self._identities = {}
        self._walk_started = time.time_ns()

    def folder_identities(self, racy_ns: int) -> tuple[FolderIdentity, ...] | None:
        """The identity of every folder the current walk listed, taken before its listing —
        when each is a real folder (not a link) inside the root with nothing hidden on its
        path and no link in it, and none was changed within ``racy_ns`` before the walk
        began; else None.

        A folder whose identity is unchanged holds the same names (adding, removing or
        renaming an entry sets its ``mtime`` and ``ctime``), so such folders and unchanged
        files walk to the same entries without listing them again. A folder changed in the
        clock tick of its ``lstat`` could keep its timestamps: hence the racy window."""
        if not self.identify_folders:
            return None
        racy = self._walk_started - racy_ns
        found: list[FolderIdentity] = []
        for rel, identity in self._identities.items():
            known = self._real_dirs.get(rel)
            if identity is None or known is None or not known[1]:
                return None
            if max(identity[3], identity[4]) >= racy:
                return None
            found.append(identity)
        return tuple(found)

    def _path(self, rel: str) -> Path:
        return self.root / rel if rel not in ("", ".") else self.root

    def describe(self, rel: str) -> str:
        return str(self._path(rel))

    def read(self, rel: str) -> bytes:
        parent, _, name = rel.rpartition("/")
        known = self._real_dirs.get(parent)
        if known is not None:
            real_parent, plain_parent, regular = known
            candidate = os.path.join(real_parent, name)
            if plain_parent:  # the same answer as the full checks below, for one name
                plain = not name.startswith(".")
                if plain and name in regular:
                    try:  # (not contextlib.suppress: this runs once per file read)
                        return _read_listed(candidate)
                    except _BecameLink:
                        pass
            else:
                plain = inside(candidate, self._real) and not hidden_below(candidate, self._real)
            try:
                st = os.lstat(candidate) if plain else None
            except OSError:
                st = None
            if st is not None and not stat.S_ISLNK(st.st_mode):
                return read_regular(candidate, MAX_FILE_BYTES, st)
        return read_inside(str(self._path(rel)), self._real, MAX_FILE_BYTES)

    def is_dir(self, rel: str) -> bool:
        real = self._resolved(rel)
        return real is not None and os.path.isdir(real)

    def is_file(self, rel: str) -> bool:
        real = self._resolved(rel)
        return real is not None and os.path.isfile(real)

    def _resolved(self, rel: str) -> str | None:
        try:
            return resolve_inside(str(self._path(rel)), self._real)
        except OSError:
            return None

    def scandir(self, rel: str) -> list[Entry]:
        key = "" if rel in ("", ".") else rel
        base = os.path.join(self._root, key) if key else self._root  # str(self._path(rel))
        real_dir = self._real if not key else self._real_dir(key, base)
        if self.identify_folders:
            self._identities[key] = _folder_identity(key, base)
        entries: list[Entry] = []
        regular: set[str] = set()
        folders: set[str] = set()
        prefix = f"{key}/" if key else ""
        identify, linked = self.identify_folders, False
        with os.scandir(base) as it:
            for item in it:
                if identify and not linked:
                    linked = item.is_symlink()
                name = item.name
                child = prefix + name
                if not (name.isascii() or _utf8(name)):  # undecodable: never output
                    name, child = (
                        os.fsencode(n).decode("utf-8", "backslashreplace") for n in (name, child)
                    )
                    problem = "file name is not valid UTF-8; rename it"
                    entries.append(Entry(name, child, _is_dir(item), problem=problem))
                    continue
                entry = self._entry(item, child, real_dir)
                if entry.identity is not None and not entry.link:
                    # made from the lstat of a regular file or of a folder
                    (folders if entry.is_dir else regular).add(name)
                entries.append(entry)
        if linked:  # what a link leads to can change with no folder of the walk changing
            self._identities[key] = None  # (a broken one, dropped by the walk, included)
        plain = inside(real_dir, self._real) and not hidden_below(real_dir, self._real)
        self._real_dirs[key] = (real_dir, plain, regular)
        self._folders[key] = folders
        return entries

    def _real_dir(self, key: str, base: str) -> str:
        """The real path of the folder ``key``: when this walk listed its parent and saw it
        as a folder, not a link, the parent's real path and its name (what ``realpath``
        gives then); else ``realpath``."""
        parent, _, name = key.rpartition("/")
        real_parent = self._real_dirs.get(parent)
        if real_parent is not None and name in self._folders.get(parent, ()):
            return os.path.join(real_parent[0], name)
        return os.path.realpath(base)

    def _entry(self, item: os.DirEntry[str], rel: str, real_dir: str) -> Entry:
        try:
            if item.is_symlink():
                return self._link_entry(item, rel, real_dir)
            st = item.stat(follow_symlinks=False)
            if S_ISREG(st.st_mode):  # the common case first: one per file walked
                return _file_entry(item.name, rel, st, link=False)
            if stat.S_ISDIR(st.st_mode):
                return Entry(item.name, rel, True, identity=(st.st_dev, st.st_ino))
            return Entry(item.name, rel, False, problem=not_regular(st.st_mode))
        except OSError as exc:
            return Entry(item.name, rel, False, problem=f"cannot be read ({exc.strerror or exc})")

    def _link_entry(self, item: os.DirEntry[str], rel: str, real_dir: str) -> Entry:
        real = os.path.realpath(item.path)
        is_dir = os.path.isdir(real)  # a folder link is reported, not skipped
        if not inside(real, self._real):
            return Entry(item.name, rel, is_dir, problem=OUTSIDE)
        if not os.path.lexists(real):
            return Entry(item.name, rel, False, problem=BROKEN)
        if hidden_below(real, self._real):
            return Entry(item.name, rel, is_dir, problem=HIDDEN)
        st = os.stat(real)
        if stat.S_ISDIR(st.st_mode):
            # A loop when the target holds the folder this link is in (a/loop -> ..).
            if inside(real_dir, real):
                return Entry(item.name, rel, True, problem="symbolic link loop; not followed")
            return Entry(item.name, rel, True, identity=(st.st_dev, st.st_ino), link=True)
        if not stat.S_ISREG(st.st_mode):
            return Entry(item.name, rel, False, problem=not_regular(st.st_mode))
        return _file_entry(item.name, rel, st, link=True)


class _BecameLink(Exception):
    """A file listed as regular is a symbolic link now: read it by the full rules."""


def _read_listed(real: str) -> bytes:
    """A file its folder's listing saw as regular: the listing's ``lstat`` stands for the one
    before opening; the descriptor is checked again and a final link is never followed
    (:func:`~octui.load.fsread.read_listed_regular`)."""
    try:
        return read_listed_regular(real, MAX_FILE_BYTES)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a link
            raise _BecameLink from None
        raise


def _file_entry(name: str, rel: str, st: os.stat_result, *, link: bool) -> Entry:
    ino = st.st_ino  # positional: one entry per file walked
    return Entry(
        name,
        rel,
        False,
        st.st_size,
        st.st_mtime_ns,
        None,
        ino,
        st.st_ctime_ns,
        (st.st_dev, ino),
        link,
    )


def _folder_identity(rel: str, path: str) -> FolderIdentity | None:
    """The identity of the folder at ``path`` (None: not a folder itself, or unreadable); the
    root's own path may be a link."""
    try:
        st = os.lstat(path) if rel else os.stat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    return (rel, st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def same_tree(root: str, folders: tuple[FolderIdentity, ...], keys: tuple[FileKey, ...]) -> bool:
    """Whether every folder at or below ``root`` still has these identities (a real folder:
    no link below the root) and every file these keys (:attr:`Entry.key`).

    A walk's keys come folder by folder: each folder holding files is opened once, its
    identity read from the open folder and its files' ``lstat`` taken relative to it, which
    spares the kernel looking up every path from the root; a folder holding no file is
    looked up by its path."""
    try:
        expected = {
            rel: (ino, mtime_ns, ctime_ns, dev) for rel, dev, ino, mtime_ns, ctime_ns in folders
        }
        lstat, folder, fd = os.lstat, None, -1
        try:
            for rel, size, mtime_ns, ino, ctime_ns in keys:
                head, _, name = rel.rpartition("/")
                if head != folder:
                    if fd >= 0:
                        os.close(fd)
                        fd = -1
                    path = os.path.join(root, head) if head else root
                    fd = os.open(path, _FOLDER_FLAGS if head else _ROOT_FLAGS)
                    if not _same_folder(os.fstat(fd), expected.pop(head)):
                        return False
                    folder = head
                st = lstat(name, dir_fd=fd)
                if (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size) != (
                    ino,
                    mtime_ns,
                    ctime_ns,
                    size,
                ):
                    return False
        finally:
            if fd >= 0:
                os.close(fd)
        for rel, identity in expected.items():  # the folders holding no file
            if not _same_folder(
                os.lstat(os.path.join(root, rel)) if rel else os.stat(root), identity
            ):
                return False
    except (OSError, KeyError, TypeError, ValueError, AttributeError):
        return False
    return True


def _same_folder(st: os.stat_result, identity: tuple[int, int, int, int]) -> bool:
    seen = (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_dev)
    return seen == identity and stat.S_ISDIR(st.st_mode)


_ROOT_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = _ROOT_FLAGS | getattr(os, "O_NOFOLLOW", 0)
"""A folder below the root is opened only when it is not a link (the root may be one)."""


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # os.scandir's surrogate escapes for undecodable bytes
        return False
    return True


def _is_dir(item: os.DirEntry[str]) -> bool:
    try:
        return item.is_dir(follow_symlinks=False)
    except OSError:
        return False


file_entry = _file_entry
"""The entry of a regular file (or a link to one) from its ``lstat`` (or ``stat``)."""
