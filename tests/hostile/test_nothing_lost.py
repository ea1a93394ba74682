"""Nothing lost: the tools never change the repository they read.

A repository (the sample repository, the broken fixture and hostile extras: symlinks,
a FIFO, a git history) is checksummed — every entry, hidden ones and ``.git`` included:
kind, mode, content hash, mtime, link target — before and after a full session of
every CLI command for every role, and a long-lived explorer-style session that loads,
polls and reloads. The two snapshots must be identical and nothing may be created
inside the repository. Commands that write (``synth``) refuse to write over anything.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hostile_util import cli, snapshot

from octui.core.timeutil import parse_instant
from octui.load.loader import load_repository
from octui.resolve.result import Query
from octui.session import Session

PROJECT = Path(__file__).resolve().parents[2]
SAMPLE = PROJECT / "sample-repo"
BROKEN = PROJECT / "tests" / "fixtures" / "broken-repo"


def _git(root: Path, *args: str) -> None:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
    )
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Caches and config homes point outside the repository; the repository is the subject.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE, root, symlinks=True)
    shutil.copytree(BROKEN, root / "broken", symlinks=True, ignore=shutil.ignore_patterns("*.yaml"))
    os.symlink("../policies", root / "broken" / "policies-link")
    os.symlink("..", root / "broken" / "loop")
    os.symlink("/etc/hostname", root / "broken" / "escape.md")
    os.symlink("missing.md", root / "broken" / "dangling.md")
    os.mkfifo(root / "broken" / "fifo.md")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "note.md").write_bytes(b"---\nid: hidden\n---\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "first")
    (root / "policies" / "after-commit.md").write_bytes(
        b"---\nid: policies.after-commit\nauthority: observed\n---\nUncommitted.\n"
    )
    return root


def _roles(root: Path) -> list[str]:
    return sorted(load_repository(root).config.roles)


def _session_commands(root: Path, out: Path) -> list[list[str]]:
    r = str(root)
    cmds: list[list[str]] = [
        ["validate", r],
        ["validate", r, "--format", "json", "--as-of", "2026-03-15"],
    ]
    for role in _roles(root):
        base = ["--role", role, "--as-of", "2026-03-15"]
        cmds += [
            ["resolve", r, *base, "--explain"],
            ["resolve", r, *base, "--format", "json", "--task", "refund pricing"],
            ["resolve", r, *base, "--strict", "--include-historical", "--limit", "3"],
            ["diff", r, *base, "--against-as-of", "2025-01-01"],
            ["diff", r, *base, "--against-rev", "HEAD", "--format", "json"],
            ["changes", r, "--role", role, "--as-of", "2025-01-01", "--format", "json"],
        ]
    for object_id in sorted({o.id for o in load_repository(root).objects})[:8]:
        cmds += [["history", object_id, r], ["history", object_id, r, "--format", "json"]]
    cmds += [["synth", str(out), "--objects", "20"]]
    return cmds


def test_a_full_cli_session_changes_nothing(repo: Path, tmp_path: Path) -> None:
    before = snapshot(repo)
    codes = []
    for argv in _session_commands(repo, tmp_path / "synth-out"):
        run = cli(argv)
        assert "Traceback" not in run.err
        codes.append(run.code)
    assert snapshot(repo) == before
    assert set(codes) <= {0, 1} and 0 in codes and 1 in codes
    assert (tmp_path / "synth-out" / "opencontext.yaml").is_file()


def test_synth_never_writes_over_a_repository(repo: Path) -> None:
    before = snapshot(repo)
    for target in (repo, repo / "policies", repo / "mission.md"):
        run = cli(["synth", str(target), "--objects", "5"])
        assert run.code == 2 and run.err.count("\n") == 1 and "already exists" in run.err
    assert snapshot(repo) == before


def test_a_long_explorer_style_session_changes_nothing(repo: Path) -> None:
    """Load, resolve for every role, poll for changes, reload: the repository is untouched."""
    before = snapshot(repo)
    session = Session(repo)
    session.load()
    for _ in range(3):
        for role in [None, *_roles(repo)]:
            session.resolve(Query(role=role, as_of=parse_instant("2026-03-15"), task="refund"))
        assert not session.changed_on_disk()
        session.load()
    assert snapshot(repo) == before


def test_snapshot_notices_a_change(repo: Path) -> None:
    """The checksum is not vacuous: touching one byte or one mtime is seen."""
    before = snapshot(repo)
    target = repo / "mission.md"
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert snapshot(repo) != before
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert snapshot(repo) == before
    (repo / ".git" / "new").write_bytes(b"")
    assert snapshot(repo) != before


# -- exports: atomic, never into the repository, never a silent overwrite ---------------------


def test_export_refuses_the_repository_by_any_path(repo: Path, tmp_path: Path) -> None:
    from octui.tui.exporting import ExportRefused, write_atomic

    before = snapshot(repo)
    os.symlink(repo, tmp_path / "alias")
    os.symlink(repo / "policies", tmp_path / "policies-alias")
    for target in (
        repo / "bundle.json",
        repo / "policies" / "bundle.json",
        tmp_path / "alias" / "bundle.json",
        tmp_path / "policies-alias" / "x.json",
        repo / ".." / repo.name / "bundle.json",
        repo,
    ):
        with pytest.raises(ExportRefused):
            write_atomic(target, "{}", repo)
    assert snapshot(repo) == before


def test_export_never_overwrites_silently(repo: Path, tmp_path: Path) -> None:
    from octui.tui.exporting import ExportExists, write_atomic

    target = tmp_path / "bundle.json"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(ExportExists):
        write_atomic(target, "new", repo)
    assert target.read_text(encoding="utf-8") == "keep me"
    # A link at the target, even a dangling one into the repository, is not followed.
    link = tmp_path / "link.json"
    os.symlink(repo / "mission.md", link)
    dangling = tmp_path / "dangling.json"
    os.symlink(repo / "no-such-file.json", dangling)
    before = snapshot(repo)
    for path in (link, dangling):
        with pytest.raises(ExportExists):
            write_atomic(path, "new", repo)
    write_atomic(link, "replaced", repo, overwrite=True)  # replaces the link itself
    assert snapshot(repo) == before
    assert not link.is_symlink() and link.read_text(encoding="utf-8") == "replaced"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_failed_export_leaves_the_old_file_and_no_debris(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from octui.tui import exporting

    target = tmp_path / "out" / "bundle.json"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")

    def no_space(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)  # the os module exporting writes with
    with pytest.raises(exporting.ExportRefused, match="No space left on device"):
        exporting.write_atomic(target, "x" * 100_000, repo, overwrite=True)
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in target.parent.iterdir()] == ["bundle.json"]
