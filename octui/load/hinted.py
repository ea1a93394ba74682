"""Re-reading only the files someone says changed: the scan of a reload told which paths to
look at (by filesystem events), instead of walking the whole tree.

A hint is only ever a shortcut to the answer a full scan gives. :func:`hinted_files` returns
the walk a full scan would make now, knowing that only the hinted paths can differ from the
previous walk; whenever it cannot be sure of that answer (a folder appeared or vanished, a
symbolic link, a second path to one file, a path that was a problem, a source that was
unavailable) it returns None and the caller scans everything. A path the hint does not name
is taken to be unchanged: whoever gives hints must name every path that changed (a missed
change is found by the next full scan).
"""

from __future__ import annotations

import bisect
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from octui.load.config import Config
from octui.load.names import CONFIG_FILE, OBJECT_SUFFIXES
from octui.load.tree import Entry, FileKey, FsTree, file_entry
from octui.load.walk import source_of

Files = list[tuple[str, Entry]]


@dataclass
class Walked:
    """What one full scan saw, and what a hinted reload needs to find its way in it."""

    files: Files
    problems: list[tuple[str, str]]
    unavailable: list[tuple[str, str]]
    plain: bool
    """No symbolic link and no second path to a file: the walk is in :func:`walk_key` order."""
    _folders: set[str] | None = field(default=None, repr=False)
    _identities: dict[object, str] | None = field(default=None, repr=False)

    def folders(self) -> set[str]:
        """Every folder holding a walked file (computed on first use)."""
        if self._folders is None:
            found: set[str] = set()
            for _, entry in self.files:
                rel = entry.rel
                while "/" in rel:
                    rel = rel.rpartition("/")[0]
                    if rel in found:
                        break
                    found.add(rel)
            self._folders = found
        return self._folders

    def updated(self, files: Files, changes: list[Change]) -> Walked:
        """What a scan sees after ``changes`` that replaced walked files in place (the
        folders stay; the identities follow the files)."""
        identities = self._identities  # an old identity left in it only makes hints wary
        if identities is not None:
            for change in changes:
                if change.now is not None:
                    identities[change.now[1].identity] = change.rel
        return Walked(files, self.problems, self.unavailable, self.plain, self._folders, identities)

    def identities(self) -> dict[object, str]:
        """The real file behind each walked path (computed on first use)."""
        if self._identities is None:
            self._identities = {e.identity: e.rel for _, e in self.files}
        return self._identities


def walked(
    files: Files, problems: list[tuple[str, str]], unavailable: list[tuple[str, str]]
) -> Walked:
    plain = not any(e.link for _, e in files) and not any(
        p.startswith("a second path") for _, p in problems
    )
    return Walked(files, problems, unavailable, plain)


def walk_key(config: Config, source_name: str, rel: str) -> tuple[int, tuple[tuple[int, str], ...]]:
    """Where a file stands in a plain walk: sources in configured order, then within its
    source folders depth first, a folder's files (by name) before its subfolders (by name)."""
    for i, source in enumerate(config.sources):
        if source.name == source_name:
            base = "" if source.path == "." else source.path
            tail = rel[len(base) + 1 :] if base else rel
            parts = tail.split("/")
            return i, (*((1, p) for p in parts[:-1]), (0, parts[-1]))
    raise KeyError(source_name)  # pragma: no cover - every walked file has a source


@dataclass
class Change:
    """One hinted path as a full scan would see it now: its walk entry, or None (gone)."""

    rel: str
    now: tuple[str, Entry] | None


def relative(tree: FsTree, path: str) -> str | None:
    """``path`` (absolute, or relative to the root) as a POSIX path inside the root; None
    when it is outside."""
    root = os.path.abspath(tree.root)
    full = os.path.abspath(os.path.join(root, path))
    if full == root or not full.startswith(root + os.sep):
        return None
    return full[len(root) + 1 :].replace(os.sep, "/")


def changes_of(
    tree: FsTree, config: Config, seen: Walked, paths: Iterable[str]
) -> list[Change] | None:
    """What a full scan would now see at each hinted path that can hold an object (None:
    only a full scan can tell)."""
    if not seen.plain:
        return None
    problem_paths = {rel for rel, _ in seen.problems}
    unavailable = {name for name, _ in seen.unavailable}
    source_paths = [s.path for s in config.sources]
    found: dict[str, Change] = {}
    for path in paths:
        rel = relative(tree, path)
        if rel is None or rel == CONFIG_FILE or rel in found:
            continue
        if any(part.startswith(".") for part in rel.split("/")):
            continue  # hidden: never read
        if _near_problem(rel, problem_paths):
            return None
        change = _change_at(tree, config, seen, rel, source_paths)
        if change is None:
            return None
        if change is not _IGNORED:
            if change.now is not None and change.now[0] in unavailable:
                return None  # pragma: no cover - an unavailable source's folder is missing
            found[rel] = change
    return list(found.values())


_IGNORED = Change("", None)


def _near_problem(rel: str, problem_paths: set[str]) -> bool:
    """Whether ``rel``, a folder above it or a path below it was a problem of the scan."""
    if rel in problem_paths or any(p.startswith(rel + "/") for p in problem_paths):
        return True
    parent = rel
    while "/" in parent:
        parent = parent.rpartition("/")[0]
        if parent in problem_paths:
            return True
    return False


def _change_at(
    tree: FsTree, config: Config, seen: Walked, rel: str, source_paths: list[str]
) -> Change | None:
    """The :class:`Change` at ``rel``, :data:`_IGNORED` when no scan reads it, None when only
    a full scan can tell."""
    full = os.path.join(tree.root, rel)
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        st = None
    except OSError:
        return None
    if st is not None and not stat.S_ISREG(st.st_mode):
        return None  # a folder, a link or something else: the walk changes shape
    if rel in seen.folders():
        return None  # a folder became a file or vanished
    if not rel.endswith(OBJECT_SUFFIXES):
        return _IGNORED
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return None
    owner = source_of(rel, source_paths)
    if owner is None:
        return _IGNORED
    if st is None:
        return Change(rel, None)
    parent = os.path.dirname(rel)
    if parent and os.path.realpath(os.path.join(tree.root, parent)) != os.path.join(
        str(tree.real_root), parent
    ):
        return None  # reached through a link
    if parent and parent not in seen.folders() and not _folder_of_source(parent, source_paths):
        return None  # a new folder: its other files are unknown
    identity = (st.st_dev, st.st_ino)
    earlier = seen.identities().get(identity)
    if earlier is not None and earlier != rel:
        return None  # a second path to a walked file
    source = next(s for s in config.sources if s.path == owner)
    return Change(rel, (source.name, file_entry(os.path.basename(rel), rel, st, link=False)))


def _folder_of_source(folder: str, source_paths: list[str]) -> bool:
    return folder in source_paths


def apply_changes(
    config: Config, seen: Walked, keys: tuple[FileKey, ...], changes: list[Change]
) -> tuple[Files, tuple[FileKey, ...]]:
    """The walk with ``changes`` applied, in the order a full scan gives, and the files'
    keys (:attr:`Entry.key`, the fingerprint's part) to match."""
    files = list(seen.files)
    new_keys = list(keys)

    def key(item: tuple[str, Entry]) -> tuple[int, tuple[tuple[int, str], ...]]:
        return walk_key(config, item[0], item[1].rel)

    for change in changes:
        rel = change.rel
        source_name = change.now[0] if change.now is not None else None
        where = _position(files, config, rel, source_name, key)
        present = where < len(files) and files[where][1].rel == rel
        if change.now is None:
            if present:
                del files[where]
                del new_keys[where]
        elif present:
            files[where] = change.now
            new_keys[where] = change.now[1].key
        else:
            files.insert(where, change.now)
            new_keys.insert(where, change.now[1].key)
    return files, tuple(new_keys)


def _position(
    files: Files,
    config: Config,
    rel: str,
    source_name: str | None,
    key: Callable[[tuple[str, Entry]], tuple[int, tuple[tuple[int, str], ...]]],
) -> int:
    """Where ``rel`` is (or would go) in ``files``."""
    if source_name is None:  # a deletion: the walked entry names its source
        source_paths = [s.path for s in config.sources]
        owner = source_of(rel, source_paths)
        source_name = next((s.name for s in config.sources if s.path == owner), None)
        if source_name is None:  # pragma: no cover - a hinted path always has an owner
            return len(files)
    target = walk_key(config, source_name, rel)
    return bisect.bisect_left(files, target, key=key)
