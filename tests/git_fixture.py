"""A git repository holding sample-repo with a few commits of history, for --rev tests.

Layout: ``<tmp>/work`` is the git work tree; the OpenContext repository is its
subfolder ``context/`` (so the prefix handling is exercised).

History (oldest first):

* ``HEAD~2`` — sample-repo without ``policies/refunds.v2.md``.
* ``HEAD~1`` — adds ``policies/refunds.v2.md``; ``procedures/refund.md`` edited in
  place (``updated`` moved to 2026-11-20, so it is no longer stale at 2026-11-30).
* ``HEAD``   — ``policies/support-hours.md`` gets a new summary;
  ``policies/outage-credit-2026-q1.md`` is deleted; ``policies/security.md`` is
  edited in place from version 1 to version 2.

Uncommitted on top: ``policies/acceptable-use.md`` gets a new title, and an
untracked ``policies/uncommitted.md`` (id ``policies.uncommitted``) is added.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

SAMPLE_REPO = Path(__file__).resolve().parent.parent / "sample-repo"


def git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Fixture",
            "GIT_AUTHOR_EMAIL": "fixture@example.invalid",
            "GIT_COMMITTER_NAME": "Fixture",
            "GIT_COMMITTER_EMAIL": "fixture@example.invalid",
            "TZ": "UTC",
        }
    )
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    return env


def git(cwd: Path, *args: str, date: str | None = None) -> str:
    env = git_env()
    if date is not None:
        env["GIT_AUTHOR_DATE"] = date
        env["GIT_COMMITTER_DATE"] = date
    result = subprocess.run(
        [
            "git",
            "-c",
            "user.name=Fixture",
            "-c",
            "user.email=fixture@example.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.autocrlf=false",
            *args,
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=True,
    )
    return result.stdout.decode("utf-8", "replace")


def commit(work: Path, message: str, date: str) -> None:
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", message, date=date)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path}: {old!r} not found"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@dataclass(frozen=True)
class GitSample:
    work: Path
    """The git work tree."""
    context: Path
    """The OpenContext repository (a subfolder of the work tree)."""


def build_git_sample(root: Path) -> GitSample:
    work = root / "work"
    context = work / "context"
    work.mkdir(parents=True)
    git(work, "init", "-q")
    (work / "README.txt").write_text("outer project\n", encoding="utf-8")
    shutil.copytree(SAMPLE_REPO, context)
    refunds_v2 = (context / "policies" / "refunds.v2.md").read_bytes()
    (context / "policies" / "refunds.v2.md").unlink()
    commit(work, "sample repository, refunds v1 only", "2026-03-10T09:00:00Z")

    (context / "policies" / "refunds.v2.md").write_bytes(refunds_v2)
    _edit(context / "procedures" / "refund.md", "updated: 2026-06-05", "updated: 2026-11-20")
    commit(work, "refunds v2; refund procedure reviewed", "2026-06-02T09:00:00Z")

    _edit(
        context / "policies" / "support-hours.md",
        "summary: Support coverage by plan and the first-response targets we publish.",
        "summary: Support coverage by plan, holiday hours and the response targets we publish.",
    )
    (context / "policies" / "outage-credit-2026-q1.md").unlink()
    _edit(context / "policies" / "security.md", "version: 1", "version: 2")
    commit(work, "support hours summary; drop outage credit; security v2", "2026-11-25T09:00:00Z")

    _edit(
        context / "policies" / "acceptable-use.md",
        "title: ",
        "title: UNCOMMITTED EDIT ",
    )
    (context / "policies" / "uncommitted.md").write_text(
        "---\nid: policies.uncommitted\nauthority: approved\nclassification: internal\n"
        "created: 2026-11-01\n---\nNot committed yet.\n",
        encoding="utf-8",
    )
    return GitSample(work, context)


@pytest.fixture(scope="session")
def git_sample(tmp_path_factory: pytest.TempPathFactory) -> GitSample:
    return build_git_sample(tmp_path_factory.mktemp("gitsample"))


def tree_checksum(work: Path) -> dict[str, str]:
    """sha256 of every file under the work tree (``.git`` included: nothing may write there)."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(work):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(work).as_posix()
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def porcelain(work: Path) -> str:
    return git(work, "status", "--porcelain", "--untracked-files=all")


def git_dir_checksum(git_dir: Path) -> str:
    """One sha256 over every entry of a ``.git`` folder: each path with its kind and its bytes
    (a file's content, a link's target), folders too — any write, even an empty new folder,
    changes it."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(git_dir):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(git_dir).as_posix().encode()
            if path.is_symlink():
                digest.update(b"L" + rel + b"\0" + os.fsencode(os.readlink(path)) + b"\0")
            elif path.is_dir():
                digest.update(b"D" + rel + b"\0")
            else:
                data = path.read_bytes()
                digest.update(b"F" + rel + b"\0" + str(len(data)).encode() + b"\0" + data)
    return digest.hexdigest()
