"""``opencontext verify``: a cited bundle or a bare digest reproduced from the repository's
history; an altered file, a foreign commit, no git, or not a bundle."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from analysis.test_timetravel import (
    History,
    _commit,
    build_history,
    one_line_error,
    resolve_json,
    run_cli,
)
from git_fixture import SAMPLE_REPO, _edit


@pytest.fixture(scope="module")
def history_repo(tmp_path_factory: pytest.TempPathFactory) -> History:
    return build_history(tmp_path_factory.mktemp("verify"))


def export(capsys: pytest.CaptureFixture[str], path: Path, *argv: str | Path) -> dict[str, Any]:
    bundle: dict[str, Any] = resolve_json(capsys, *argv)
    path.write_text(json.dumps(bundle, ensure_ascii=False, indent=2), encoding="utf-8")
    return bundle


def test_verify_reproduces_an_exported_bundle(
    history_repo: History, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "decision.json"
    bundle = export(
        capsys,
        saved,
        history_repo.context,
        "--role",
        "support",
        "--task",
        "refund",
        "--as-of",
        "2026-07-01",
        "--known-at",
        "2026-06-11",
    )
    code, out, err = run_cli(capsys, "verify", saved, history_repo.context)
    assert code == 0, err
    assert f"reproduced at commit {history_repo.commits['45']}" in out
    assert bundle["digest"] in out


def test_verify_a_bundle_at_a_commit_stays_reproducible_after_later_commits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = build_history(tmp_path / "h")
    saved = tmp_path / "at-rev.json"
    export(
        capsys, saved, repo.context, "--role", "support", "--as-of", "2026-07-01", "--rev", "HEAD"
    )
    _edit(repo.context / "policies" / "refunds.v2.md", "summary: 45-day", "summary: 60-day")
    _commit(repo.work, "60 days", "2026-11-30T00:00:00Z")
    code, out, err = run_cli(capsys, "verify", saved, repo.context)
    assert code == 0, err
    assert f"reproduced at commit {repo.commits['rename']}" in out


def test_verify_fails_with_the_diff_when_a_later_commit_changed_the_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bundle of uncommitted files records no commit: verify reproduces it at the commit
    known at its generated_at, says so, and shows what differs."""
    repo = build_history(tmp_path / "h")
    _edit(repo.context / "policies" / "refunds.v2.md", "summary: 45-day", "summary: 60-day")
    saved = tmp_path / "working-tree.json"
    bundle = export(capsys, saved, repo.context, "--role", "support", "--as-of", "2026-07-01")
    assert bundle["source"]["commit"] is None and bundle["source"]["working_tree"] is True
    later = (datetime.now(UTC) + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
    _commit(repo.work, "60 days", later)
    code, out, err = run_cli(capsys, "verify", saved, repo.context)
    assert code == 1, err
    assert "no commit recorded" in out and repo.commits["rename"] in out
    assert "NOT reproduced" in out
    assert "policies.refunds@2 summary: '60-day" in out and "→ '45-day" in out
    assert f"Digest A: {bundle['digest']}" in out


def test_verify_fails_on_a_hand_altered_file(
    history_repo: History, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "altered.json"
    bundle = export(
        capsys, saved, history_repo.context, "--role", "support", "--known-at", "2026-06-11"
    )
    text = saved.read_text(encoding="utf-8")
    assert "45-day full refund" in text
    saved.write_text(text.replace("45-day full refund", "90-day full refund"), encoding="utf-8")
    code, out, err = run_cli(capsys, "verify", saved, history_repo.context)
    assert code == 1, err
    assert "the file was altered" in out and bundle["digest"] in out


def test_verify_a_foreign_commit_is_one_line_exit_2(
    history_repo: History, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "foreign.json"
    bundle = export(capsys, saved, history_repo.context, "--role", "support", "--rev", "HEAD")
    bundle["source"]["commit"] = "0123456789abcdef0123456789abcdef01234567"
    saved.write_text(json.dumps(bundle), encoding="utf-8")
    code, _, err = run_cli(capsys, "verify", saved, history_repo.context)
    assert "0123456789abcdef0123456789abcdef01234567" in one_line_error(code, err)


def test_verify_outside_git_is_one_line_exit_2(
    history_repo: History, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "b.json"
    export(capsys, saved, history_repo.context, "--role", "support", "--rev", "HEAD")
    shutil.copytree(SAMPLE_REPO, tmp_path / "plain")
    code, _, err = run_cli(capsys, "verify", saved, tmp_path / "plain")
    assert "not inside a git repository" in one_line_error(code, err)


def test_verify_a_file_that_is_not_a_bundle_is_one_line_exit_2(
    history_repo: History, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for text in (
        "not json",
        "[]",
        '{"digest": "x"}',
        '{"as_of":1,"inputs":1,"objects":1,"exclusions":[],"warnings":[],"digest":"x"}',
    ):
        saved = tmp_path / "bad.json"
        saved.write_text(text, encoding="utf-8")
        code, _, err = run_cli(capsys, "verify", saved, history_repo.context)
        assert "bad.json" in one_line_error(code, err)


def test_verify_a_bare_digest(history_repo: History, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = ("--role", "support", "--task", "refund", "--as-of", "2026-03-15")
    bundle = resolve_json(capsys, history_repo.context, *inputs, "--known-at", "2026-03-15")
    cited = bundle["digest"]
    code, out, err = run_cli(
        capsys,
        "verify",
        history_repo.context,
        "--digest",
        cited,
        *inputs,
        "--known-at",
        "2026-03-15",
    )
    assert code == 0, err
    assert f"reproduced at commit {history_repo.commits['first']}" in out
    code, out, err = run_cli(
        capsys, "verify", history_repo.context, "--digest", cited, *inputs, "--rev", "HEAD"
    )
    assert code == 1 and "NOT reproduced" in out
    code, _, err = run_cli(capsys, "verify", history_repo.context, "--digest", cited, *inputs)
    assert "--rev" in one_line_error(code, err)
