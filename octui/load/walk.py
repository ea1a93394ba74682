"""Enumerating a repository's object files: every configured source walked once, in a
fixed order, every path that cannot be followed reported."""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable, Hashable

from octui.load.config import Config
from octui.load.names import CONFIG_FILE, OBJECT_SUFFIXES
from octui.load.tree import Entry, FsTree, Tree


def _source_of(rel: str, source_paths: list[str]) -> str | None:
    """The deepest configured source path containing ``rel``."""
    best: str | None = None
    for path in source_paths:
        contains = path == "." or rel == path or rel.startswith(path + "/")
        if contains and (best is None or best == "." or len(path) > len(best)):
            best = path
    return best


Owned = Callable[[str], bool]


class _Walk:
    """One enumeration of every source, visiting each real folder and file once.

    Folders are walked in sorted order, a folder's files before its subfolders, hidden
    names skipped. Whatever is reached through a symbolic link waits until every source's
    real folders are walked, so a file is loaded at its own path whenever that path is
    walked, and a link is the second path. Real identity (device, inode) decides what was
    visited: a second path to a file or folder (a link, a hard link) is reported, not
    walked or loaded again, so no arrangement of links makes the walk grow beyond the
    real tree. Trees without identities (a git revision) are walked by path.
    """

    def __init__(self, tree: Tree, problems: list[tuple[str, str]]) -> None:
        self.tree = tree
        self.problems = problems
        self.files: list[tuple[str, Entry]] = []
        self.seen: dict[Hashable, str] = {}
        self.links: deque[tuple[str, Owned, Entry]] = deque()

    def mark(self, rel: str) -> None:
        """Count a source's own folder as visited."""
        if isinstance(self.tree, FsTree):
            with contextlib.suppress(OSError):
                st = os.stat(self.tree.describe(rel))
                self.seen.setdefault((st.st_dev, st.st_ino), rel or ".")

    def first_visit(self, entry: Entry) -> bool:
        """True the first time a real file or folder is met; a second path is reported."""
        identity = entry.identity
        if identity is None:
            return True
        earlier = self.seen.setdefault(identity, entry.rel)
        if earlier == entry.rel:
            return True
        if entry.is_dir:
            problem = f"a second path to the same folder as {earlier}; its files are loaded once"
            problem += ", from there"
        else:
            problem = f"a second path to the same file as {earlier}; loaded once, as {earlier}"
        self.problems.append((entry.rel, problem))
        return False

    def folder(self, source: str, base: str, owned: Owned) -> None:
        stack = [base]
        while stack:
            rel = stack.pop()
            try:
                entries = self.tree.scandir(rel)
            except OSError as exc:
                self.problems.append((rel, f"folder cannot be read ({exc.strerror or exc})"))
                continue
            subdirs: list[str] = []
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name.startswith("."):
                    continue
                candidate = entry.is_dir or entry.name.endswith(OBJECT_SUFFIXES)
                if entry.problem is not None:
                    if candidate:
                        self.problems.append((entry.rel, entry.problem))
                    continue
                if not candidate or entry.rel == CONFIG_FILE:
                    continue
                if entry.is_dir and not owned(entry.rel):
                    continue  # a nested source owns it
                if entry.link:
                    self.links.append((source, owned, entry))
                elif not self.first_visit(entry):
                    continue
                elif entry.is_dir:
                    subdirs.append(entry.rel)
                else:
                    self.files.append((source, entry))
            stack.extend(reversed(subdirs))

    def follow_links(self) -> None:
        while self.links:
            source, owned, entry = self.links.popleft()
            if not self.first_visit(entry):
                continue
            if entry.is_dir:
                self.folder(source, entry.rel, owned)
            else:
                self.files.append((source, entry))


def scan(
    tree: Tree, config: Config
) -> tuple[list[tuple[str, Entry]], list[tuple[str, str]], list[tuple[str, str]]]:
    """Enumerate object files: ``(source name, entry)``, unreadable paths, unavailable sources."""
    paths = [s.path for s in config.sources]
    problems: list[tuple[str, str]] = []
    unavailable: list[tuple[str, str]] = []
    walk = _Walk(tree, problems)
    if isinstance(tree, FsTree):
        tree.start_walk()
    for source in config.sources:
        base = "" if source.path == "." else source.path
        if any(part.startswith(".") for part in base.split("/")):
            what = "is hidden; hidden files and folders are never read"
            unavailable.append((source.name, f"source path {source.path!r} {what}"))
            continue
        if base and not tree.is_dir(base):
            what = "is not a folder" if tree.is_file(base) else "does not exist"
            link = isinstance(tree, FsTree) and os.path.lexists(tree.describe(base))
            if link and not tree.is_file(base):
                what = (
                    "is a symbolic link that is broken, loops, leads outside the repository "
                    "or to a hidden folder"
                )
            unavailable.append((source.name, f"source path {source.path!r} {what}"))
            continue
        try:
            tree.scandir(base)
        except OSError as exc:
            unavailable.append(
                (source.name, f"source path {source.path!r} cannot be read ({exc.strerror})")
            )
            continue

        def owned(rel: str, mine: str = source.path) -> bool:
            return _source_of(rel, paths) == mine

        walk.mark(base)
        walk.folder(source.name, base, owned)
    walk.follow_links()
    return walk.files, problems, unavailable


source_of = _source_of
"""The deepest configured source path containing a relative path (None: no source)."""
