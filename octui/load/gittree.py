"""Reading a repository exactly as it was at a git revision.

:class:`GitTree` implements :class:`octui.load.tree.Tree` over git's object
database: the file list comes from ``git ls-tree -r -z`` (sizes from
``cat-file --batch-check``, missing objects from ``rev-list --missing=print``) and
file bytes from ``git cat-file --batch`` (:mod:`octui.load.gitblobs`, which also keeps the
read budget). Nothing is checked out, nothing in the
working tree, the index or ``.git`` is written — "what did the
repository say at that commit" never disturbs what it says now. Every git command
runs hardened (:func:`octui.load.gitrun.hardened_git`): the repository's configuration cannot make
it run a program, fetch, or write.

The OpenContext repository may be a subfolder of the git work tree; the
prefix is handled here, so paths seen by the loader are relative to the
OpenContext root as usual. Symbolic links stored in the commit are followed
only while they stay inside that root and out of hidden names, as on disk.

A blob's size comes from git before it is read; its ``mtime_ns`` carries the first 60
bits of the blob id, so ``(path, size, mtime_ns)`` — the loader's cache key —
identifies content across revisions, and :meth:`GitTree.content_key` (the full blob
id) lets the loader parse one blob once however many paths name it.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from types import TracebackType

from octui.load.fsread import HIDDEN
from octui.load.gitblobs import (
    MAX_LINK_BYTES,
    MODE_LINK,
    UNAVAILABLE,
    Blob,
    GitBlobs,
    hidden,
    read_plan,
)
from octui.load.gitrun import list_commit, locate_worktree, resolve_commit
from octui.load.loader import READ_BUDGET_BYTES
from octui.load.tree import MAX_FILE_BYTES, Entry

_MODE_SUBMODULE = "160000"
_MAX_LINK_HOPS = 40


class GitTree:
    """A read-only snapshot of ``path`` (inside a git work tree) at revision ``rev``.

    Every blob is read at most once per load and only when the loader asks for it: within
    the size cap (known from git before reading), never under a hidden name,
    and within ``read_budget`` bytes of distinct content. A blob missing from a partial
    clone is reported, never fetched.
    """

    def __init__(self, path: str | Path, rev: str, *, read_budget: int = READ_BUDGET_BYTES) -> None:
        self.path = Path(path)
        self.rev = rev
        self.read_budget = read_budget
        self.known_at: datetime | None = None
        """Set when the tree was chosen as the commit known at an instant (``--known-at``):
        its source then records that instant and no revision name."""
        self.toplevel, self.prefix = locate_worktree(self.path)
        self.commit = resolve_commit(self.toplevel, rev)
        self._blobs: dict[str, Blob] = {}
        self._children: dict[str, dict[str, str]] = {"": {}}
        for mode, kind, sha, full, size in list_commit(self.toplevel, self.commit, rev):
            if kind == "commit" or mode == _MODE_SUBMODULE:
                self._add(full, "submodule")
                continue
            if kind != "blob":
                continue
            self._blobs[full] = Blob(mode, sha, size)
            self._add(full, "link" if mode == MODE_LINK else "file")
        self._links: dict[str, str | None] = {}
        self._reader = GitBlobs(
            self.toplevel, lambda: read_plan(self._blobs, self.prefix), read_budget
        )

    @property
    def bytes_read(self) -> int:
        """Distinct blob bytes handed out so far (what the read budget counts)."""
        return self._reader.bytes_read

    # -- bookkeeping ------------------------------------------------------------------------

    def _add(self, full: str, kind: str) -> None:
        parts = full.split("/")
        for depth in range(len(parts) - 1):
            parent = "/".join(parts[:depth])
            name = parts[depth]
            self._children.setdefault(parent, {})[name] = "dir"
            self._children.setdefault("/".join(parts[: depth + 1]), {})
        parent = "/".join(parts[:-1])
        self._children.setdefault(parent, {})[parts[-1]] = kind

    def _full(self, rel: str) -> str:
        rel = "" if rel in ("", ".") else rel
        if not self.prefix:
            return rel
        return f"{self.prefix}/{rel}" if rel else self.prefix

    def _inside(self, real: str | None) -> bool:
        if real is None:
            return False
        return not self.prefix or real == self.prefix or real.startswith(self.prefix + "/")

    def _below_root(self, full: str) -> str:
        """``full`` relative to the OpenContext root (``full`` is inside it)."""
        return full[len(self.prefix) + 1 :] if self.prefix else full

    def _link_target(self, full: str) -> str | None:
        """Where the link ``full`` points, or None when its blob is missing or absurdly long."""
        if full not in self._links:
            blob = self._blobs[full]
            target = None
            if blob.size is not None and blob.size <= MAX_LINK_BYTES:
                try:
                    target = os.fsdecode(self._reader.cat(blob.sha, blob.size))
                except OSError:
                    target = None
            self._links[full] = target
        return self._links[full]

    def _real(self, full: str) -> str | None:
        """``full`` with every symbolic link resolved, or None when it leaves the git tree."""
        parts = [p for p in full.split("/") if p]
        current: list[str] = []
        hops = 0
        while parts:
            component = parts.pop(0)
            if component == ".":
                continue
            if component == "..":
                if not current:
                    return None
                current.pop()
                continue
            candidate = "/".join([*current, component])
            blob = self._blobs.get(candidate)
            if blob is not None and blob.mode == MODE_LINK:
                hops += 1
                if hops > _MAX_LINK_HOPS:
                    return None
                target = self._link_target(candidate)
                if target is None or target.startswith("/"):
                    return None
                parts = [p for p in target.split("/") if p] + parts
                continue
            current.append(component)
        return "/".join(current)

    def _is_file_real(self, real: str) -> bool:
        blob = self._blobs.get(real)
        return blob is not None and blob.mode != MODE_LINK

    def _intohidden(self, rel: str, real: str) -> bool:
        """A link that leads under a hidden name the path itself does not have."""
        return hidden(self._below_root(real)) and not hidden(rel)

    def content_key(self, rel: str) -> str | None:
        """The blob id ``rel`` reads (equal keys: equal bytes), or None."""
        real = self._real(self._full(rel))
        if real is None or not self._is_file_real(real):
            return None
        return self._blobs[real].sha

    # -- the Tree protocol ------------------------------------------------------------------

    def close(self) -> None:
        self._reader.close()

    def __enter__(self) -> GitTree:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def describe(self, rel: str) -> str:
        name = self.path / rel if rel not in ("", ".") else self.path
        return f"{name} at {self.rev}"

    def read(self, rel: str) -> bytes:
        real = self._real(self._full(rel))
        if real is None or not self._inside(real) or not self._is_file_real(real):
            raise FileNotFoundError(2, "No such file in revision", self.describe(rel))
        if self._intohidden(rel, real):
            raise OSError("symbolic link leads to a hidden file; not followed")
        blob = self._blobs[real]
        if blob.size is None:
            raise OSError(UNAVAILABLE)
        if blob.size > MAX_FILE_BYTES:
            raise OSError(f"file is larger than {MAX_FILE_BYTES} bytes (1 MiB)")
        return self._reader.cat(blob.sha, blob.size)

    def is_dir(self, rel: str) -> bool:
        real = self._real(self._full(rel))
        return (
            self._inside(real)
            and real is not None
            and real in self._children
            and not (self._is_file_real(real))
        )

    def is_file(self, rel: str) -> bool:
        real = self._real(self._full(rel))
        return self._inside(real) and real is not None and self._is_file_real(real)

    def scandir(self, rel: str) -> list[Entry]:
        real = self._real(self._full(rel))
        if real is None or not self._inside(real) or real not in self._children:
            raise FileNotFoundError(2, "No such folder in revision", self.describe(rel))
        entries: list[Entry] = []
        for name, kind in sorted(self._children[real].items()):
            child = name if rel in ("", ".") else f"{rel}/{name}"
            entries.append(self._entry(real, name, kind, child))
        return entries

    def _file_entry(
        self, name: str, rel: str, real: str, *, link: bool = False, problem: str = UNAVAILABLE
    ) -> Entry:
        blob = self._blobs[real]
        if blob.size is None:
            return Entry(name, rel, False, problem=problem)
        return Entry(name, rel, False, blob.size, _identity(blob.sha), identity=real, link=link)

    def _entry(self, real_dir: str, name: str, kind: str, rel: str) -> Entry:
        here = f"{real_dir}/{name}" if real_dir else name
        if kind == "dir":
            return Entry(name, rel, True, identity=here)
        if kind == "submodule":
            return Entry(
                name, rel, True, problem="git submodule; its files are not in this revision"
            )
        if kind == "file":
            return self._file_entry(name, rel, here)
        if self._blobs[here].size is None:
            return Entry(name, rel, False, problem=f"symbolic link's {UNAVAILABLE}")
        target = self._real(here)
        if target is None or not self._inside(target):
            return Entry(
                name, rel, False, problem="symbolic link leads outside the repository; not followed"
            )
        if self._intohidden(rel, target):
            return Entry(name, rel, target in self._children, problem=HIDDEN)
        if self._is_file_real(target):
            return self._file_entry(name, rel, target, link=True)
        if target in self._children:
            if real_dir == target or real_dir.startswith(target + "/") or not target:
                return Entry(name, rel, True, problem="symbolic link loop; not followed")
            return Entry(name, rel, True, identity=target, link=True)
        return Entry(name, rel, False, problem="broken symbolic link")


def _identity(sha: str) -> int:
    return int(sha[:15], 16)
