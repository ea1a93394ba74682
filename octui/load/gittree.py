"""Reading a repository exactly as it was at a git revision.

:class:`GitTree` implements :class:`octui.load.loader.Tree` over git's object
database: the file list comes from ``git ls-tree -r -z`` (sizes from
``cat-file --batch-check``, missing objects from ``rev-list --missing=print``) and
file bytes from ``git cat-file --batch``. Nothing is checked out, nothing in the
working tree, the index or ``.git`` is written — "what did the
repository say at that commit" never disturbs what it says now. Every git command
runs hardened (:func:`hardened_git`): the repository's configuration cannot make
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

import contextlib
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO

from octui.core.model import RepositorySource
from octui.load.config import CONFIG_FILE
from octui.load.fsread import HIDDEN
from octui.load.loader import (
    MAX_FILE_BYTES,
    OBJECT_SUFFIXES,
    READ_BUDGET_BYTES,
    Entry,
    Loader,
    ParseStore,
    Repository,
)

_MODE_LINK = "120000"
_MODE_SUBMODULE = "160000"
_MAX_LINK_HOPS = 40


class GitRevisionError(Exception):
    """A revision cannot be read: not a git repository, unknown revision, git missing."""


_NEVER_RUNS = "/dev/null/octui-never-runs"
"""A program path that cannot exist (``/dev/null`` is not a folder): nothing can start."""

_MAX_LINK_BYTES = 4096
"""A symbolic link's target longer than this is not a path any system follows."""

_PREFETCH_BYTES = 32 * 1024 * 1024
"""Blob bytes fetched per ``git cat-file --batch`` run, in the order the loader reads them."""

UNAVAILABLE = "object not available in this clone (partial clone?); it was not fetched"

_TRANSPORTS = ("file", "git", "ssh", "http", "https", "ftp", "ftps", "ext", "fd")

#: Configuration given on every git command line. Command-line values override the
#: repository's ``.git/config`` (read last, they win), and git hands them on to any git it
#: starts itself, so they hold there too.
_HARDENED_CONFIG: tuple[tuple[str, str], ...] = (
    # No transport at all, whatever the repository allows: a partial clone's lazy fetch of
    # a missing object (git < 2.44 has no GIT_NO_LAZY_FETCH) cannot reach any remote.
    ("protocol.allow", "never"),
    *((f"protocol.{name}.allow", "never") for name in _TRANSPORTS),
    # ...and the lazy fetch itself (a ``git fetch`` child) stops while reading its
    # configuration, before it could write .git/config or start anything: it rejects this value.
    ("fetch.recurseSubmodules", "octui-never-fetches"),
    ("submodule.recurse", "false"),
    ("core.sshCommand", _NEVER_RUNS),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("core.alternateRefsCommand", _NEVER_RUNS),
    # No signature verification and no signing program.
    ("log.showSignature", "false"),
    ("gpg.program", _NEVER_RUNS),
    ("gpg.openpgp.program", _NEVER_RUNS),
    ("gpg.x509.program", _NEVER_RUNS),
    ("gpg.ssh.program", _NEVER_RUNS),
    # Nothing else a repository's configuration can make git run or write.
    ("core.pager", "cat"),
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.attributesFile", os.devnull),
    ("diff.external", _NEVER_RUNS),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("log.mailmap", "false"),
    ("i18n.logOutputEncoding", "UTF-8"),
)

#: Set in git's environment (every inherited ``GIT_*`` variable is dropped first).
_HARDENED_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_OPTIONAL_LOCKS": "0",  # never refresh or write the index
    "GIT_NO_LAZY_FETCH": "1",  # git >= 2.44: a missing object is never fetched
    "GIT_ALLOW_PROTOCOL": "",  # beats every protocol.*.allow: no transport is allowed
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_SSH_COMMAND": _NEVER_RUNS,
    "GIT_SSH": _NEVER_RUNS,
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_LITERAL_PATHSPECS": "1",
    "LC_ALL": "C",
}
_DROPPED_ENV = ("SSH_ASKPASS",)


def hardened_git(cwd: str) -> tuple[list[str], dict[str, str]]:
    """The argv prefix (``git --no-pager -c ... -C cwd``) and the environment every git
    command runs with.

    A repository is untrusted: nothing in its ``.git/config``, ``.gitattributes`` or hooks
    may run a program or write into ``.git`` — no lazy fetch, no transport, no signature
    program, pager, fsmonitor, hook, external diff, textconv or filter, no optional lock, no
    system or global configuration, no prompt. Callers use plumbing only (no aliases).
    """
    exe = shutil.which("git")
    if exe is None:
        raise GitRevisionError("git is not installed; --rev needs it")
    argv = [exe, "--no-pager", "--literal-pathspecs"]
    for key, value in _HARDENED_CONFIG:
        argv += ["-c", f"{key}={value}"]
    argv += ["-C", cwd]
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k not in _DROPPED_ENV
    }
    env.update(_HARDENED_ENV)
    return argv, env


@dataclass(frozen=True, slots=True)
class _Blob:
    mode: str
    sha: str
    size: int | None
    """None when the object is not in this clone."""


def _git(cwd: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    argv, env = hardened_git(cwd)
    return subprocess.run(
        [*argv, *args],
        input=stdin,
        capture_output=True,
        env=env,
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


def _parse_listing(data: bytes) -> Iterator[tuple[str, str, str, str]]:
    """``(mode, type, object id, path)`` of each ``ls-tree -r -z`` record; a record not in
    this shape is skipped."""
    for record in data.split(b"\0"):
        meta, tab, raw_path = record.partition(b"\t")
        fields = meta.decode("ascii", "replace").split()
        if not tab or len(fields) != 3 or not raw_path:
            continue
        mode, kind, sha = fields
        yield mode, kind, sha, os.fsdecode(raw_path)


def _parse_sizes(data: bytes) -> dict[str, int]:
    """``object id -> size`` from ``cat-file --batch-check='%(objectname) %(objectsize)'``;
    an object git calls missing (or any line not in this shape) is left out."""
    sizes: dict[str, int] = {}
    for line in data.decode("ascii", "replace").splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1].isdigit():
            sizes[fields[0]] = int(fields[1])
    return sizes


def _list_commit(
    toplevel: str, commit: str, rev: str
) -> list[tuple[str, str, str, str, int | None]]:
    """``(mode, type, object id, path, size)`` of every entry of ``commit``'s tree; the size
    is None for a blob this clone does not have.

    Nothing here ever asks git for a missing object (in a partial clone that would fetch it
    or, with fetching off, stop git): ``rev-list --missing=print`` names the missing objects
    without fetching, the tree is listed without sizes, and sizes are asked of present
    blobs only.
    """
    missing_run = _git(
        toplevel,
        "rev-list",
        "--objects",
        "--no-object-names",
        "--no-walk",
        "--missing=print",
        "--end-of-options",
        commit,
    )
    missing = {
        line[1:]
        for line in missing_run.stdout.decode("ascii", "replace").splitlines()
        if line.startswith("?")
    }
    listing = _git(toplevel, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit)
    if listing.returncode != 0:
        problem = _first_line(listing.stderr) or "git ls-tree failed"
        if missing:
            problem = "some of its folders are not in this clone (partial clone?); not fetched"
        raise GitRevisionError(f"cannot list revision {rev!r}: {problem}")
    entries = list(_parse_listing(listing.stdout))
    present = sorted({sha for _, kind, sha, _ in entries if kind == "blob"} - missing)
    sizes: dict[str, int] = {}
    if present:
        checked = _git(
            toplevel,
            "cat-file",
            "--batch-check=%(objectname) %(objectsize)",
            stdin="\n".join(present).encode("ascii", "replace") + b"\n",
        )
        sizes = _parse_sizes(checked.stdout)
    return [(mode, kind, sha, path, sizes.get(sha)) for mode, kind, sha, path in entries]


def _hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/") if part)


def _walk_order(path: str) -> tuple[tuple[int, str], ...]:
    """Sort key giving the loader's walk order: in each folder its files, then its folders."""
    parts = path.split("/")
    return (*((1, p) for p in parts[:-1]), (0, parts[-1]))


class ReadBudgetExceeded(OSError):
    """The revision's distinct content read so far would pass the read budget."""


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
        self.commit = found.stdout.decode("ascii", "replace").strip()
        self._blobs: dict[str, _Blob] = {}
        self._children: dict[str, dict[str, str]] = {"": {}}
        for mode, kind, sha, full, size in _list_commit(self.toplevel, self.commit, rev):
            if kind == "commit" or mode == _MODE_SUBMODULE:
                self._add(full, "submodule")
                continue
            if kind != "blob":
                continue
            self._blobs[full] = _Blob(mode, sha, size)
            self._add(full, "link" if mode == _MODE_LINK else "file")
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._links: dict[str, str | None] = {}
        self._plan: list[str] | None = None
        self._plan_index: dict[str, int] = {}
        self._sizes: dict[str, int] = {}
        self._fetched: dict[str, bytes] = {}
        self._prefetched: set[str] = set()
        self._read: set[str] = set()
        self.bytes_read = 0
        """Distinct blob bytes handed out so far (what the read budget counts)."""

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
            if blob.size is not None and blob.size <= _MAX_LINK_BYTES:
                try:
                    target = os.fsdecode(self._cat(blob.sha, blob.size))
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
            if blob is not None and blob.mode == _MODE_LINK:
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
        return blob is not None and blob.mode != _MODE_LINK

    def _into_hidden(self, rel: str, real: str) -> bool:
        """A link that leads under a hidden name the path itself does not have."""
        return _hidden(self._below_root(real)) and not _hidden(rel)

    def content_key(self, rel: str) -> str | None:
        """The blob id ``rel`` reads (equal keys: equal bytes), or None."""
        real = self._real(self._full(rel))
        if real is None or not self._is_file_real(real):
            return None
        return self._blobs[real].sha

    # -- reading blobs ----------------------------------------------------------------------

    def _read_plan(self) -> list[str]:
        """The blobs a load may read, in the order it reads them: object files and the
        configuration within the size cap, and link targets; never under a hidden name."""
        inside = self.prefix + "/" if self.prefix else ""
        wanted: list[tuple[tuple[tuple[int, str], ...], str, int]] = []
        for full, blob in self._blobs.items():
            if not full.startswith(inside) or blob.size is None:
                continue
            rel = full[len(inside) :]
            if _hidden(rel):
                continue
            if blob.mode == _MODE_LINK:
                if blob.size <= _MAX_LINK_BYTES:
                    wanted.append(((), blob.sha, blob.size))  # links first: paths need them
            elif rel.endswith((*OBJECT_SUFFIXES, CONFIG_FILE)) and blob.size <= MAX_FILE_BYTES:
                wanted.append((_walk_order(rel), blob.sha, blob.size))
        wanted.sort()
        plan: list[str] = []
        for _, sha, size in wanted:
            if sha not in self._plan_index:
                self._plan_index[sha] = len(plan)
                self._sizes[sha] = size
                plan.append(sha)
        return plan

    def _prefetch(self, sha: str) -> None:
        """Fetch ``sha`` and the blobs planned after it (up to ``_PREFETCH_BYTES``) in one
        ``git cat-file --batch`` run. A blob is prefetched at most once; what the previous
        run fetched and nobody read is dropped (read later, it is fetched on its own)."""
        assert self._plan is not None
        batch: list[str] = []
        total = 0
        for other in self._plan[self._plan_index[sha] :]:
            if other in self._prefetched:
                continue
            size = self._sizes[other]
            if batch and total + size > _PREFETCH_BYTES:
                break
            batch.append(other)
            total += size
        self._prefetched.update(batch)
        self._fetched = {}
        result = _git(self.toplevel, "cat-file", "--batch", stdin="\n".join(batch).encode() + b"\n")
        if result.returncode != 0:
            return
        data, pos = result.stdout, 0
        while pos < len(data):
            end = data.find(b"\n", pos)
            if end < 0:
                break
            header = data[pos:end].decode("ascii", "replace").split()
            pos = end + 1
            if len(header) != 3 or not header[2].isdigit():
                continue  # "<id> missing"
            size = int(header[2])
            self._fetched[header[0]] = data[pos : pos + size]
            pos += size + 1

    def _cat(self, sha: str, size: int) -> bytes:
        """The bytes of blob ``sha`` (``size`` bytes, as listed), counted against the budget."""
        with self._lock:
            if sha not in self._read and self.bytes_read + size > self.read_budget:
                raise ReadBudgetExceeded(
                    f"the revision's distinct content would pass the read budget of "
                    f"{self.read_budget} bytes"
                )
            if self._plan is None:
                self._plan = self._read_plan()
            data = self._fetched.pop(sha, None)
            if data is None and sha in self._plan_index and sha not in self._prefetched:
                self._prefetch(sha)
                data = self._fetched.pop(sha, None)
            if data is None:
                data = self._cat_one(sha)
            if sha not in self._read:
                self._read.add(sha)
                self.bytes_read += size
            return data

    def _cat_one(self, sha: str) -> bytes:
        """One blob from the long-lived ``git cat-file --batch``; after any surprise the
        process is ended (its output would be out of step) and the next read starts another."""
        if self._proc is None:
            argv, env = hardened_git(self.toplevel)
            self._proc = subprocess.Popen(
                [*argv, "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
            )
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(sha.encode("ascii") + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().decode("ascii", "replace").split()
            if len(header) == 2 and header[1] == "missing":
                raise OSError(UNAVAILABLE)  # the stream is still in step
            if len(header) != 3 or not header[2].isdigit() or int(header[2]) > MAX_FILE_BYTES:
                self._end_process()
                raise OSError(f"git cat-file gave an unexpected answer for {sha}")
            data = _read_exactly(proc.stdout, int(header[2]))
            proc.stdout.read(1)  # the newline after the contents
        except (BrokenPipeError, ValueError) as exc:
            self._end_process()
            raise OSError(f"git cat-file failed: {exc}") from None
        except OSError:
            if self._proc is proc and proc.poll() is not None:
                self._end_process()
            raise
        return data

    def _end_process(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            proc.wait()

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
            self._fetched = {}
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
        if self._into_hidden(rel, real):
            raise OSError("symbolic link leads to a hidden file; not followed")
        blob = self._blobs[real]
        if blob.size is None:
            raise OSError(UNAVAILABLE)
        if blob.size > MAX_FILE_BYTES:
            raise OSError(f"file is larger than {MAX_FILE_BYTES} bytes (1 MiB)")
        return self._cat(blob.sha, blob.size)

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
        if self._into_hidden(rel, target):
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
    (committer date; None when git does not say) — or, for a tree chosen as the commit
    known at an instant, that instant and no revision name."""
    if tree.known_at is not None:
        return RepositorySource(tree.commit, None, tree.known_at)
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
        "--no-show-signature",
        "--no-notes",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-mailmap",
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


__all__ = [
    "READ_BUDGET_BYTES",
    "GitRevisionError",
    "GitTree",
    "ReadBudgetExceeded",
    "Revision",
    "hardened_git",
    "list_revisions",
    "load_revision",
]
