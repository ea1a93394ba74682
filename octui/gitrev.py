"""Reading a repository exactly as it was at a git revision.

:class:`GitTree` implements :class:`octui.loader.Tree` over git's object
database: the file list comes from one ``git ls-tree -r -z --long`` and file
bytes from one long-lived ``git cat-file --batch``. Nothing is checked out,
nothing in the working tree or the index is read or written — "what did the
repository say at that commit" never disturbs what it says now.

The OpenContext repository may be a subfolder of the git work tree; the
prefix is handled here, so paths seen by the loader are relative to the
OpenContext root as usual. Symbolic links stored in the commit are followed
only while they stay inside that root, as on disk.

A blob's size comes from ``ls-tree``; its ``mtime_ns`` carries the first 60
bits of the blob id, so ``(path, size, mtime_ns)`` — the loader's cache key —
identifies content across revisions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO

from octui.config import CONFIG_FILE
from octui.loader import MAX_FILE_BYTES, OBJECT_SUFFIXES, Entry, Loader, ParseStore, Repository
from octui.model import RepositorySource

_MODE_LINK = "120000"
_MODE_SUBMODULE = "160000"
_MAX_LINK_HOPS = 40


class GitRevisionError(Exception):
    """A revision cannot be read: not a git repository, unknown revision, git missing."""


@dataclass(frozen=True, slots=True)
class _Blob:
    mode: str
    sha: str
    size: int


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_OPTIONAL_LOCKS"] = "0"  # never refresh or write the index
    env["LC_ALL"] = "C"
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    return env


def _git(cwd: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    exe = shutil.which("git")
    if exe is None:
        raise GitRevisionError("git is not installed; --rev needs it")
    return subprocess.run(
        [exe, "-C", cwd, *args],
        capture_output=True,
        env=_git_env(),
        check=False,
    )


def _first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else ""


def _nearest_existing_dir(path: Path) -> Path:
    current = path.absolute()
    while not current.is_dir():
        if current.parent == current:
            break
        current = current.parent
    return current


class GitTree:
    """A read-only snapshot of ``path`` (inside a git work tree) at revision ``rev``."""

    def __init__(self, path: str | Path, rev: str) -> None:
        self.path = Path(path)
        self.rev = rev
        start = _nearest_existing_dir(self.path)
        top = _git(str(start), "rev-parse", "--show-toplevel")
        if top.returncode != 0:
            reason = _first_line(top.stderr)
            if "not a git repository" in reason.lower() or not reason:
                raise GitRevisionError(
                    f"{self.path}: not inside a git repository (--rev needs one)"
                )
            raise GitRevisionError(f"{self.path}: {reason}")
        self.toplevel = os.fsdecode(top.stdout).rstrip("\n")
        real_top = os.path.realpath(self.toplevel)
        real_path = os.path.realpath(self.path.absolute())
        rel = os.path.relpath(real_path, real_top)
        if rel == "." or rel == "":
            self.prefix = ""
        elif rel.startswith(".."):
            raise GitRevisionError(f"{self.path}: not inside the git work tree at {self.toplevel}")
        else:
            self.prefix = rel.replace(os.sep, "/")
        if not rev or rev.startswith("-"):
            raise GitRevisionError(f"unknown git revision {rev!r} in {self.toplevel}")
        found = _git(
            self.toplevel,
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            f"{rev}^{{commit}}",
        )
        if found.returncode != 0:
            raise GitRevisionError(f"unknown git revision {rev!r} in {self.toplevel}")
        self.commit = found.stdout.decode("ascii").strip()
        listing = _git(self.toplevel, "ls-tree", "-r", "-z", "--long", "--full-tree", self.commit)
        if listing.returncode != 0:
            problem = _first_line(listing.stderr) or "git ls-tree failed"
            raise GitRevisionError(f"cannot list revision {rev!r}: {problem}")
        self._blobs: dict[str, _Blob] = {}
        self._children: dict[str, dict[str, str]] = {"": {}}
        for record in listing.stdout.split(b"\0"):
            if not record:
                continue
            meta, _, raw_path = record.partition(b"\t")
            mode, kind, sha, size = meta.decode("ascii").split(maxsplit=3)
            full = os.fsdecode(raw_path)
            if kind == "commit" or mode == _MODE_SUBMODULE:
                self._add(full, "submodule")
                continue
            if kind != "blob":
                continue
            self._blobs[full] = _Blob(mode, sha, int(size.strip()) if size.strip() != "-" else 0)
            self._add(full, "link" if mode == _MODE_LINK else "file")
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._links: dict[str, str] = {}
        self._fetched: dict[str, bytes] | None = None

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

    def _link_target(self, full: str) -> str:
        target = self._links.get(full)
        if target is None:
            target = os.fsdecode(self._cat(self._blobs[full].sha))
            self._links[full] = target
        return target

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
            if blob is not None and blob.mode == _MODE_LINK:
                hops += 1
                if hops > _MAX_LINK_HOPS:
                    return None
                target = self._link_target(candidate)
                if target.startswith("/"):
                    return None
                parts = [p for p in target.split("/") if p] + parts
                continue
            current.append(component)
        return "/".join(current)

    def _is_file_real(self, real: str) -> bool:
        blob = self._blobs.get(real)
        return blob is not None and blob.mode != _MODE_LINK

    # -- reading blobs ----------------------------------------------------------------------

    def _prefetch(self) -> dict[str, bytes]:
        """Every blob a load will read (object files, the configuration, link targets) in one
        ``git cat-file --batch`` run: one process instead of a round trip per file."""
        wanted: list[str] = []
        seen: set[str] = set()
        inside = self.prefix + "/" if self.prefix else ""
        for full, blob in self._blobs.items():
            if not full.startswith(inside) or blob.sha in seen:
                continue
            if blob.mode == _MODE_LINK or (
                full.endswith((*OBJECT_SUFFIXES, CONFIG_FILE)) and blob.size <= MAX_FILE_BYTES
            ):
                seen.add(blob.sha)
                wanted.append(blob.sha)
        found: dict[str, bytes] = {}
        if not wanted:
            return found
        exe = shutil.which("git") or "git"
        result = subprocess.run(
            [exe, "-C", self.toplevel, "cat-file", "--batch"],
            input=("\n".join(wanted) + "\n").encode("ascii"),
            capture_output=True,
            env=_git_env(),
            check=False,
        )
        if result.returncode != 0:
            return found
        data, pos = result.stdout, 0
        while pos < len(data):
            end = data.index(b"\n", pos)
            header = data[pos:end].decode("ascii", "replace").split()
            pos = end + 1
            if len(header) != 3:
                continue
            size = int(header[2])
            found[header[0]] = data[pos : pos + size]
            pos += size + 1
        return found

    def _cat(self, sha: str) -> bytes:
        with self._lock:
            if self._fetched is None:
                self._fetched = self._prefetch()
            cached = self._fetched.pop(sha, None)
            if cached is not None:
                return cached
            if self._proc is None:
                exe = shutil.which("git") or "git"
                self._proc = subprocess.Popen(
                    [exe, "-C", self.toplevel, "cat-file", "--batch"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=_git_env(),
                )
            proc = self._proc
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(sha.encode("ascii") + b"\n")
                proc.stdin.flush()
                header = proc.stdout.readline().decode("ascii", "replace").split()
                if len(header) != 3:
                    raise OSError(f"git object {sha} is missing")
                size = int(header[2])
                data = _read_exactly(proc.stdout, size)
                proc.stdout.read(1)  # the newline after the contents
            except (BrokenPipeError, ValueError) as exc:
                raise OSError(f"git cat-file failed: {exc}") from None
            return data

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:
                proc.stdin.close()
            if proc.stdout is not None:
                proc.stdout.close()
            proc.wait()

    def __enter__(self) -> GitTree:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- the Tree protocol ------------------------------------------------------------------

    def describe(self, rel: str) -> str:
        name = self.path / rel if rel not in ("", ".") else self.path
        return f"{name} at {self.rev}"

    def read(self, rel: str) -> bytes:
        real = self._real(self._full(rel))
        if real is None or not self._inside(real) or not self._is_file_real(real):
            raise FileNotFoundError(2, "No such file in revision", self.describe(rel))
        return self._cat(self._blobs[real].sha)

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

    def _entry(self, real_dir: str, name: str, kind: str, rel: str) -> Entry:
        here = f"{real_dir}/{name}" if real_dir else name
        if kind == "dir":
            return Entry(name, rel, True)
        if kind == "submodule":
            return Entry(
                name, rel, True, problem="git submodule; its files are not in this revision"
            )
        if kind == "file":
            blob = self._blobs[here]
            return Entry(name, rel, False, blob.size, _identity(blob.sha))
        target = self._real(here)
        if target is None or not self._inside(target):
            return Entry(
                name, rel, False, problem="symbolic link leads outside the repository; not followed"
            )
        if self._is_file_real(target):
            blob = self._blobs[target]
            return Entry(name, rel, False, blob.size, _identity(blob.sha))
        if target in self._children:
            if real_dir == target or real_dir.startswith(target + "/") or not target:
                return Entry(name, rel, True, problem="symbolic link loop; not followed")
            return Entry(name, rel, True)
        return Entry(name, rel, False, problem="broken symbolic link")


def _identity(sha: str) -> int:
    return int(sha[:15], 16)


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            raise OSError("git cat-file ended early")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def load_revision(path: str | Path, rev: str, store: ParseStore | None = None) -> Repository:
    """Load the repository at ``path`` as it was at git revision ``rev``.

    Raises :class:`GitRevisionError`, ``NotARepository`` or ``ConfigError``.
    """
    with GitTree(path, rev) as tree:
        repo = Loader(tree, f"{path} at {rev}", store).load()
        repo.source = tree_source(tree)
        return repo


def tree_source(tree: GitTree) -> RepositorySource:
    """The commit ``tree`` reads, the revision as the user named it, and the commit's time
    (committer date; None when git does not say)."""
    known_at = None
    found = _git(tree.toplevel, "cat-file", "commit", tree.commit)
    for line in found.stdout.split(b"\n") if found.returncode == 0 else ():
        if not line:
            break  # the headers end at the first empty line
        if line.startswith(b"committer "):
            try:
                known_at = datetime.fromtimestamp(int(line.rsplit(b" ", 2)[1]), UTC)
            except (ValueError, OverflowError, OSError, IndexError):
                known_at = None
    return RepositorySource(tree.commit, tree.rev, known_at)


@dataclass(frozen=True, slots=True)
class Revision:
    """One commit that touched the repository folder, for a revision picker."""

    commit: str
    committed: str
    """Commit date, RFC 3339 as git prints it (``%cI``)."""
    subject: str

    @property
    def short(self) -> str:
        return self.commit[:12]


def list_revisions(path: str | Path, limit: int = 50) -> list[Revision]:
    """The newest ``limit`` commits touching ``path`` (read-only ``git log``), newest first.

    Raises :class:`GitRevisionError` when ``path`` is not inside a git work tree.
    """
    start = _nearest_existing_dir(Path(path))
    top = _git(str(start), "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise GitRevisionError(f"{path}: not inside a git repository")
    toplevel = os.fsdecode(top.stdout).rstrip("\n")
    rel = os.path.relpath(os.path.realpath(Path(path).absolute()), os.path.realpath(toplevel))
    spec = "." if rel in (".", "") else rel.replace(os.sep, "/")
    log = _git(
        toplevel,
        "log",
        f"--max-count={max(1, limit)}",
        "--format=%H%x00%cI%x00%s%x00",
        "--end-of-options",
        "HEAD",
        "--",
        spec,
    )
    if log.returncode != 0:
        return []  # no commits yet
    fields = log.stdout.decode("utf-8", "replace").split("\0")
    out = []
    for i in range(0, len(fields) - 2, 3):
        commit = fields[i].strip()
        if commit:
            out.append(Revision(commit, fields[i + 1], fields[i + 2]))
    return out


__all__ = ["GitRevisionError", "GitTree", "Revision", "list_revisions", "load_revision"]
