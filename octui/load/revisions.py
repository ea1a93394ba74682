"""A repository's git history: its revisions, and loading one of them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from octui.core.model import RepositorySource
from octui.load.assemble import Repository
from octui.load.gitrun import GitRevisionError, git, nearest_existing_dir
from octui.load.gittree import GitTree
from octui.load.loader import Loader, ParseStore


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
    found = git(tree.toplevel, "cat-file", "commit", tree.commit)
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
    start = nearest_existing_dir(Path(path))
    top = git(str(start), "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise GitRevisionError(f"{path}: not inside a git repository")
    toplevel = os.fsdecode(top.stdout).rstrip("\n")
    rel = os.path.relpath(os.path.realpath(Path(path).absolute()), os.path.realpath(toplevel))
    spec = "." if rel in (".", "") else rel.replace(os.sep, "/")
    log = git(
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
