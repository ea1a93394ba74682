"""--rev: a repository exactly as it was at a git revision, read from git objects only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from git_fixture import GitSample, commit, git, git_sample, porcelain, tree_checksum
from repo_builder import make_repo, obj

from octui.bundle.bundle import digest
from octui.cli.main import main
from octui.core.timeutil import parse_instant
from octui.load.config import NotARepository
from octui.load.gitrun import GitRevisionError
from octui.load.gittree import GitTree
from octui.load.loader import load_repository
from octui.load.revisions import list_revisions, load_revision
from octui.resolve.engine import resolve
from octui.resolve.result import Query

__all__ = ["git_sample"]

TODAY = parse_instant("2026-11-30")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run_cli(capsys, *argv)
    assert code in (0, 1), err
    return json.loads(out)


def keys_included(bundle: dict[str, Any]) -> set[str]:
    return {f"{o['id']}@{o['version']}" for o in bundle["objects"]}


def all_keys(repo_objects: list[Any]) -> set[str]:
    return {o.key for o in repo_objects}


def test_each_revision_is_what_was_committed(git_sample: GitSample) -> None:
    ctx = git_sample.context
    two_ago = all_keys(load_revision(ctx, "HEAD~2").objects)
    one_ago = all_keys(load_revision(ctx, "HEAD~1").objects)
    head = all_keys(load_revision(ctx, "HEAD").objects)
    disk = all_keys(load_repository(ctx).objects)
    assert "policies.refunds@2" not in two_ago and "policies.refunds@2" in one_ago
    assert "policies.outage-credit-2026-q1@1" in one_ago
    assert "policies.outage-credit-2026-q1@1" not in head
    assert "policies.security@1" in one_ago and "policies.security@2" in head
    assert "policies.security@1" not in head
    # The uncommitted file is on disk only.
    assert "policies.uncommitted@1" in disk and "policies.uncommitted@1" not in head
    assert disk - {"policies.uncommitted@1"} == head


def test_revision_reads_committed_bytes_not_the_working_tree(git_sample: GitSample) -> None:
    head = load_revision(git_sample.context, "HEAD")
    disk = load_repository(git_sample.context)
    title_at_head = next(o.title for o in head.objects if o.id == "policies.acceptable-use")
    title_on_disk = next(o.title for o in disk.objects if o.id == "policies.acceptable-use")
    assert title_on_disk is not None and title_on_disk.startswith("UNCOMMITTED EDIT")
    assert title_at_head is not None and not title_at_head.startswith("UNCOMMITTED")


def test_head_of_a_clean_copy_digests_like_the_files_on_disk(
    tmp_path: Path, git_sample: GitSample
) -> None:
    """The same bytes read from git or from disk resolve to the same bundle."""
    work = tmp_path / "clean"
    git(tmp_path, "clone", "-q", str(git_sample.work), str(work))
    q = Query(role="support", as_of=TODAY, task="refund")
    from_git = resolve(load_revision(work / "context", "HEAD"), q)
    from_disk = resolve(load_repository(work / "context"), q)
    assert digest(from_git) == digest(from_disk)
    assert [f.message for f in from_git.warnings] == [f.message for f in from_disk.warnings]


def test_cli_answers_what_the_repository_said_two_commits_ago(
    capsys: pytest.CaptureFixture[str], git_sample: GitSample
) -> None:
    ctx = str(git_sample.context)
    then = cli_json(
        capsys,
        "resolve",
        ctx,
        "--role",
        "support",
        "--as-of",
        "2026-11-30",
        "--rev",
        "HEAD~2",
        "--format",
        "json",
    )
    now = cli_json(
        capsys, "resolve", ctx, "--role", "support", "--as-of", "2026-11-30", "--format", "json"
    )
    # Two commits ago there was no refund policy v2: v1 was still the policy in effect.
    assert "policies.refunds@1" in keys_included(then)
    assert not any(e["id"] == "policies.refunds" and e["version"] == 2 for e in then["exclusions"])
    assert "policies.refunds@2" in keys_included(now)
    # ...and the refund procedure had not been reviewed yet.
    stale_then = {o["id"] for o in then["objects"] if o["stale"]}
    stale_now = {o["id"] for o in now["objects"] if o["stale"]}
    assert "procedures.refund" in stale_then and "procedures.refund" not in stale_now
    assert then["digest"] != now["digest"]


def test_validate_and_history_take_rev(
    capsys: pytest.CaptureFixture[str], git_sample: GitSample
) -> None:
    ctx = str(git_sample.context)
    report = cli_json(capsys, "validate", ctx, "--rev", "HEAD~2", "--format", "json")
    assert report["objects"] == len(load_revision(ctx, "HEAD~2").objects)
    lineage = cli_json(
        capsys,
        "history",
        "policies.refunds",
        ctx,
        "--rev",
        "HEAD~2",
        "--as-of",
        "2026-11-30",
        "--format",
        "json",
    )
    assert [r["version"] for r in lineage["lineage"]] == [1, 3]
    lineage_now = cli_json(
        capsys, "history", "policies.refunds", ctx, "--as-of", "2026-11-30", "--format", "json"
    )
    assert [r["version"] for r in lineage_now["lineage"]] == [1, 2, 3]


def test_working_tree_is_untouched(
    capsys: pytest.CaptureFixture[str], git_sample: GitSample
) -> None:
    ctx = str(git_sample.context)
    status_before = porcelain(git_sample.work)
    sums_before = tree_checksum(git_sample.work)
    for rev in ("HEAD", "HEAD~1", "HEAD~2"):
        run_cli(capsys, "resolve", ctx, "--role", "support", "--rev", rev, "--format", "json")
        run_cli(capsys, "validate", ctx, "--rev", rev)
        run_cli(capsys, "history", "policies.refunds", ctx, "--rev", rev)
    run_cli(
        capsys,
        "diff",
        ctx,
        "--role",
        "support",
        "--rev",
        "HEAD~2",
        "--against-rev",
        "working-tree",
    )
    run_cli(capsys, "changes", ctx, "--role", "support", "--rev", "HEAD~1", "--until", "30d")
    # Nothing under the work tree changed — not even .git (index, refs, logs).
    assert tree_checksum(git_sample.work) == sums_before
    assert porcelain(git_sample.work) == status_before
    assert " M context/policies/acceptable-use.md" in status_before
    assert "?? context/policies/uncommitted.md" in status_before


def test_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, git_sample: GitSample
) -> None:
    plain = make_repo(tmp_path / "plain", {"a.md": obj("a")})
    code, out, err = run_cli(capsys, "resolve", str(plain), "--role", "reader", "--rev", "HEAD")
    assert code == 2 and out == ""
    assert "not inside a git repository" in err and len(err.strip().splitlines()) == 1

    ctx = str(git_sample.context)
    for bad in ("no-such-branch", "--output=/tmp/x", "HEAD~99"):
        code, out, err = run_cli(capsys, "resolve", ctx, "--role", "support", f"--rev={bad}")
        assert code == 2 and out == ""
        assert "unknown git revision" in err and len(err.strip().splitlines()) == 1

    # The work tree's top level is not an OpenContext repository at any revision.
    code, out, err = run_cli(
        capsys, "resolve", str(git_sample.work), "--role", "support", "--rev", "HEAD"
    )
    assert code == 2 and "not an OpenContext repository" in err


def test_revision_errors_raise_typed_exceptions(tmp_path: Path, git_sample: GitSample) -> None:
    with pytest.raises(GitRevisionError, match="not inside a git repository"):
        GitTree(tmp_path, "HEAD")
    with pytest.raises(GitRevisionError, match="unknown git revision"):
        GitTree(git_sample.context, "-h")
    with pytest.raises(NotARepository):
        load_revision(git_sample.work, "HEAD")


def test_repository_at_the_top_of_the_work_tree(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "top",
        {
            "policies/a.md": obj("policies.a", title="first"),
            "policies/b.md": obj("policies.b", title="bee"),
        },
        {"roles": {"reader": {"clearance": "restricted"}}},
    )
    git(root, "init", "-q")
    commit(root, "one", "2026-01-01T00:00:00Z")
    (root / "policies" / "a.md").write_text(
        (root / "policies" / "a.md").read_text().replace("first", "again"), encoding="utf-8"
    )
    commit(root, "two", "2026-01-02T00:00:00Z")
    with GitTree(root, "HEAD~1") as old, GitTree(root, "HEAD") as new:
        assert old.prefix == "" and new.prefix == ""
        old_entry = {e.name: e for e in old.scandir("policies")}["a.md"]
        new_entry = {e.name: e for e in new.scandir("policies")}["a.md"]
        # Same path and size, different content: the cache identity must differ.
        assert old_entry.size == new_entry.size
        assert old_entry.mtime_ns != new_entry.mtime_ns
    titles = {o.id: o.title for o in load_revision(root, "HEAD~1").objects}
    assert titles == {"policies.a": "first", "policies.b": "bee"}


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_symbolic_links_in_a_revision_stay_inside_the_root(tmp_path: Path) -> None:
    work = tmp_path / "w"
    root = make_repo(work / "ctx", {"policies/a.md": obj("policies.a")})
    (work / "outside.md").write_text("---\nid: outside\n---\nsecret\n", encoding="utf-8")
    (root / "policies" / "alias.md").symlink_to("a.md")
    (root / "policies" / "escape.md").symlink_to("../../outside.md")
    (root / "loop").symlink_to(".")
    git(work, "init", "-q")
    commit(work, "links", "2026-01-01T00:00:00Z")
    repo = load_revision(root, "HEAD")
    disk = load_repository(root)
    assert sorted(o.path for o in repo.objects) == sorted(o.path for o in disk.objects)
    assert "outside" not in {o.id for o in repo.objects}
    messages = " ".join(f.message for f in repo.findings)
    assert "policies/escape.md" in messages and "outside the repository" in messages
    assert "loop" in messages


def test_git_commands_are_read_only(git_sample: GitSample) -> None:
    """GitTree never runs a command that could write: only rev-parse, rev-list, ls-tree,
    cat-file."""
    calls: list[list[str]] = []
    real_run = subprocess.run
    real_popen = subprocess.Popen

    def spy_run(args: list[str], *a: Any, **k: Any) -> Any:
        calls.append(list(args))
        return real_run(args, *a, **k)

    class SpyPopen(real_popen):  # type: ignore[misc,valid-type]
        def __init__(self, args: list[str], *a: Any, **k: Any) -> None:
            calls.append(list(args))
            super().__init__(args, *a, **k)

    mp = pytest.MonkeyPatch()
    mp.setattr(subprocess, "run", spy_run)
    mp.setattr(subprocess, "Popen", SpyPopen)
    try:
        load_revision(git_sample.context, "HEAD~1")
    finally:
        mp.undo()
    verbs = {c[c.index("-C") + 2] for c in calls}
    assert verbs <= {"rev-parse", "rev-list", "ls-tree", "cat-file"}
    assert "cat-file" in verbs


def test_list_revisions_newest_first(git_sample: GitSample, tmp_path: Path) -> None:
    sums_before = tree_checksum(git_sample.work)
    revisions = list_revisions(git_sample.context)
    assert tree_checksum(git_sample.work) == sums_before
    assert [r.subject for r in revisions] == [
        "support hours summary; drop outage credit; security v2",
        "refunds v2; refund procedure reviewed",
        "sample repository, refunds v1 only",
    ]
    assert revisions[2].committed.startswith("2026-03-10")
    # Each listed commit loads as a revision.
    assert load_revision(git_sample.context, revisions[2].commit).objects
    assert list_revisions(git_sample.context, limit=1) == revisions[:1]
    with pytest.raises(GitRevisionError):
        list_revisions(tmp_path)


def test_cat_file_batch_output_is_split_per_object() -> None:
    """``cat-file --batch``: a missing object is skipped, contents may hold newlines, and a
    truncated last object ends the listing without an error."""
    from octui.load.gitrun import parse_batch

    data = b"aaa blob 5\nab\ncd\nbbb missing\nccc blob 2\nxy\nddd blob 9\nshort"
    assert list(parse_batch(data)) == [("aaa", b"ab\ncd"), ("ccc", b"xy"), ("ddd", b"short")]
