"""The second time axis: what the repository *said* at an instant (``--known-at``).

``as_of`` asks what was *in effect* at an instant, over the files as they are read.
``known_at`` chooses which files are read: the repository as committed at the last
first-parent commit of ``HEAD`` whose committer date is at or before the instant. Both
axes together answer "what did we believe then".

Every git command runs through :func:`octui.load.gitrun.hardened_git`.
"""

from __future__ import annotations

import math
import os
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from octui.core.model import RepositorySource
from octui.core.timeutil import format_instant
from octui.load.assemble import Repository
from octui.load.gitrun import GitRevisionError, hardened_git
from octui.load.loader import ParseStore
from octui.load.revisions import load_revision


def _git(cwd: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    argv, env = hardened_git(cwd)
    return subprocess.run([*argv, *args], capture_output=True, env=env, check=False)


def _first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else ""


def git_toplevel(path: str | Path) -> str:
    """The git work tree holding ``path``; raises :class:`GitRevisionError` when there is none."""
    start = Path(path).absolute()
    while not start.is_dir() and start.parent != start:
        start = start.parent
    top = _git(str(start), "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise GitRevisionError(f"{path}: not inside a git repository (--known-at needs one)")
    return os.fsdecode(top.stdout).rstrip("\n")


def known_at_revision(path: str | Path, when: datetime) -> str:
    """The commit the repository at ``path`` was known at ``when``: the last first-parent
    commit of ``HEAD`` whose committer date is at or before ``when`` (a 40-hex id).

    Raises :class:`GitRevisionError` (one line) when ``path`` is not in a git work tree,
    git is missing, ``HEAD`` has no commit, or no commit is that old.
    """
    top = git_toplevel(path)
    epoch = math.floor(when.timestamp())  # commit dates are whole seconds
    stamp = format_instant(when)
    if epoch < 0:
        raise GitRevisionError(f"no commit in {top} is as old as {stamp}")
    found = _git(
        top,
        "rev-list",
        "--first-parent",
        "--max-count=1",
        f"--before=@{epoch} +0000",  # an explicit epoch: no time zone or date parsing
        "--end-of-options",
        "HEAD",
    )
    if found.returncode != 0:
        problem = _first_line(found.stderr) or "git rev-list failed"
        raise GitRevisionError(f"cannot read the history of {top}: {problem}")
    commit = found.stdout.decode("ascii", "replace").strip()
    if not commit:
        raise GitRevisionError(f"no commit in {top} is as old as {stamp} (--known-at)")
    return commit


def load_known_at(path: str | Path, when: datetime, store: ParseStore | None = None) -> Repository:
    """The repository at ``path`` as it was known at ``when`` (see :func:`known_at_revision`);
    its ``source`` records the commit and ``when``, and no revision name."""
    commit = known_at_revision(path, when)
    repo = load_revision(path, commit, store)
    repo.source = RepositorySource(commit, None, when)
    return repo


@dataclass(frozen=True, slots=True)
class CommitInfo:
    commit: str
    subject: str
    committed: datetime | None

    @property
    def short(self) -> str:
        return self.commit[:7]


def commit_info(path: str | Path, commit: str) -> CommitInfo:
    """The subject and committer date of ``commit`` (empty / None when git cannot say)."""
    try:
        top = git_toplevel(path)
    except GitRevisionError:
        return CommitInfo(commit, "", None)
    shown = _git(
        top,
        "log",
        "--no-walk",
        "--no-show-signature",
        "--no-notes",
        "--no-mailmap",
        "--format=%ct%x00%s",
        "--end-of-options",
        commit,
    )
    if shown.returncode != 0:
        return CommitInfo(commit, "", None)
    stamp, _, subject = shown.stdout.decode("utf-8", "replace").strip("\n").partition("\0")
    try:
        committed: datetime | None = datetime.fromtimestamp(int(stamp), UTC)
    except (ValueError, OverflowError, OSError):
        committed = None
    return CommitInfo(commit, subject.splitlines()[0] if subject else "", committed)


def describe_source(path: str | Path, source: RepositorySource) -> str:
    """Where a repository was read from, in one line: ``working tree``, ``known at
    2026-03-15T00:00:00Z · commit 1a2b3c4 'Refund policy v2 draft'`` or ``git revision
    HEAD~1``."""
    if source.commit is None:
        return "working tree"
    info = commit_info(path, source.commit)
    where = f"commit {info.short}" + (f" {info.subject!r}" if info.subject else "")
    if source.revision is None and source.known_at is not None:
        return f"known at {format_instant(source.known_at)} · {where}"
    return f"git revision {source.revision or source.commit}"


def check_axes(rev: str | None, known_at: datetime | None, *, what: str = "--rev") -> None:
    """Raise ``ValueError`` (one line) when both a revision and ``--known-at`` are given."""
    if rev is not None and known_at is not None:
        raise ValueError(f"{what} and --known-at both choose the files read: give one")


__all__ = [
    "CommitInfo",
    "check_axes",
    "commit_info",
    "describe_source",
    "git_toplevel",
    "known_at_revision",
    "load_known_at",
]
