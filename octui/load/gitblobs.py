"""Reading blob bytes out of git's object database, for :class:`octui.load.gittree.GitTree`.

:class:`GitBlobs` hands out the bytes of one commit's blobs, each counted once against a
read budget of distinct content (:class:`ReadBudgetExceeded` past it). Blobs are fetched in
the order the loader reads them (:func:`read_plan`), up to :data:`_PREFETCH_BYTES` per
``git cat-file --batch`` run; a blob read out of that order comes from one long-lived
``git cat-file --batch`` process, ended after any surprise so that its output never falls
out of step. Every git command runs hardened (:func:`octui.load.gitrun.hardened_git`). A
blob missing from a partial clone is reported (:data:`UNAVAILABLE`), never fetched.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from octui.load.gitrun import git, hardened_git, parse_batch
from octui.load.names import CONFIG_FILE, OBJECT_SUFFIXES
from octui.load.tree import MAX_FILE_BYTES

MODE_LINK = "120000"
"""The git mode of a symbolic link (its blob is the link's target)."""

MAX_LINK_BYTES = 4096
"""A symbolic link's target longer than this is not a path any system follows."""

_PREFETCH_BYTES = 32 * 1024 * 1024
"""Blob bytes fetched per ``git cat-file --batch`` run, in the order the loader reads them."""

UNAVAILABLE = "object not available in this clone (partial clone?); it was not fetched"


@dataclass(frozen=True, slots=True)
class Blob:
    """One blob listed in a commit's tree."""

    mode: str
    sha: str
    size: int | None
    """None when the object is not in this clone."""


class ReadBudgetExceeded(OSError):
    """The revision's distinct content read so far would pass the read budget."""


def hidden(path: str) -> bool:
    """Whether any component of ``path`` is a hidden name."""
    return any(part.startswith(".") for part in path.split("/") if part)


def _walk_order(path: str) -> tuple[tuple[int, str], ...]:
    """Sort key giving the loader's walk order: in each folder its files, then its folders."""
    parts = path.split("/")
    return (*((1, p) for p in parts[:-1]), (0, parts[-1]))


def read_plan(blobs: dict[str, Blob], prefix: str) -> list[tuple[str, int]]:
    """The blobs (id, size) a load under ``prefix`` may read, each once, in the order it reads
    them: link targets first (paths need them), then object files and the configuration
    within the size cap in walk order; never under a hidden name."""
    inside = prefix + "/" if prefix else ""
    wanted: list[tuple[tuple[tuple[int, str], ...], str, int]] = []
    for full, blob in blobs.items():
        if not full.startswith(inside) or blob.size is None:
            continue
        rel = full[len(inside) :]
        if hidden(rel):
            continue
        if blob.mode == MODE_LINK:
            if blob.size <= MAX_LINK_BYTES:
                wanted.append(((), blob.sha, blob.size))
        elif rel.endswith((*OBJECT_SUFFIXES, CONFIG_FILE)) and blob.size <= MAX_FILE_BYTES:
            wanted.append((_walk_order(rel), blob.sha, blob.size))
    wanted.sort()
    plan: dict[str, int] = {}
    for _, sha, size in wanted:
        plan.setdefault(sha, size)
    return list(plan.items())


class GitBlobs:
    """The blob bytes of the git work tree at ``toplevel``, within ``read_budget`` bytes of
    distinct content. ``plan`` (called once, at the first read) says which blobs the load
    will read and in which order. Safe to use from several threads (one lock)."""

    def __init__(
        self, toplevel: str, plan: Callable[[], list[tuple[str, int]]], read_budget: int
    ) -> None:
        self.toplevel = toplevel
        self.read_budget = read_budget
        self._plan_of = plan
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._plan: list[str] | None = None
        self._plan_index: dict[str, int] = {}
        self._sizes: dict[str, int] = {}
        self._fetched: dict[str, bytes] = {}
        self._prefetched: set[str] = set()
        self._read: set[str] = set()
        self.bytes_read = 0
        """Distinct blob bytes handed out so far (what the read budget counts)."""

    def cat(self, sha: str, size: int) -> bytes:
        """The bytes of blob ``sha`` (``size`` bytes, as listed), counted against the budget."""
        with self._lock:
            if sha not in self._read and self.bytes_read + size > self.read_budget:
                raise ReadBudgetExceeded(
                    f"the revision's distinct content would pass the read budget of "
                    f"{self.read_budget} bytes"
                )
            if self._plan is None:
                self._start_plan()
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

    def _start_plan(self) -> None:
        self._plan = []
        for sha, size in self._plan_of():
            self._plan_index[sha] = len(self._plan)
            self._sizes[sha] = size
            self._plan.append(sha)

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
        result = git(self.toplevel, "cat-file", "--batch", stdin="\n".join(batch).encode() + b"\n")
        if result.returncode != 0:
            return
        self._fetched.update(parse_batch(result.stdout))

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
        """End the ``git cat-file`` process and drop what was fetched and not read."""
        with self._lock:
            proc, self._proc = self._proc, None
            self._fetched = {}
        if proc is not None:
            if proc.stdin is not None:
                proc.stdin.close()
            if proc.stdout is not None:
                proc.stdout.close()
            proc.wait()


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
