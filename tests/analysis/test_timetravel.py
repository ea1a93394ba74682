"""Time travel: --known-at (what the repository said then) and history --log (who changed an
object, and exactly what). The history built here also serves tests/cli/test_verify.py."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from git_fixture import SAMPLE_REPO, _edit, git

from octui.cli.main import main
from octui.core.enums import LogChangeKind
from octui.core.timeutil import parse_instant
from octui.load.gitrun import GitRevisionError
from octui.load.known_at import known_at_revision

DANA = "Dana Reviewer <dana@example.invalid>"

#: (message, committer and author date) of each commit, oldest first.
DATES = {
    "first": "2026-03-01T09:00:00Z",
    "v2": "2026-03-20T09:00:00Z",
    "45": "2026-06-10T12:30:00Z",
    "v3": "2026-11-25T09:00:00Z",
    "rename": "2026-11-26T09:00:00Z",
}


@dataclass(frozen=True)
class History:
    work: Path
    context: Path
    commits: dict[str, str]
    """Commit id by the key of :data:`DATES`."""


def _commit(work: Path, message: str, date: str, author: str | None = None) -> str:
    git(work, "add", "-A")
    extra = [f"--author={author}"] if author else []
    git(work, "commit", "-q", "-m", message, *extra, date=date)
    return git(work, "rev-parse", "HEAD").strip()


def build_history(root: Path) -> History:
    """sample-repo in ``work/context``: refunds v1 only (March 1), v2 drafted (March 20),
    v2 edited from 30 to 45 days by Dana (June 10), v3 added (November 25), v1 renamed
    (November 26)."""
    work = root / "work"
    context = work / "context"
    work.mkdir(parents=True)
    git(work, "init", "-q")
    shutil.copytree(SAMPLE_REPO, context)
    policies = context / "policies"
    v2 = (policies / "refunds.v2.md").read_bytes()
    v3 = (policies / "refunds.v3.md").read_bytes()
    (policies / "refunds.v2.md").unlink()
    (policies / "refunds.v3.md").unlink()
    commits = {"first": _commit(work, "sample repository, refunds v1 only", DATES["first"])}
    (policies / "refunds.v2.md").write_bytes(v2)
    commits["v2"] = _commit(work, "Refund policy v2 draft", DATES["v2"])
    _edit(policies / "refunds.v2.md", "summary: 30-day full", "summary: 45-day full")
    _edit(policies / "refunds.v2.md", "| 30 days from the charge |", "| 45 days from the charge |")
    _edit(policies / "refunds.v2.md", "updated: 2026-10-02", "updated: 2026-06-10")
    commits["45"] = _commit(work, "Refunds: 45 days, not 30", DATES["45"], DANA)
    (policies / "refunds.v3.md").write_bytes(v3)
    commits["v3"] = _commit(work, "Refund policy v3 proposal", DATES["v3"])
    git(work, "mv", "context/policies/refunds.v1.md", "context/policies/refunds-2025.md")
    commits["rename"] = _commit(work, "name the 2025 refund policy by its year", DATES["rename"])
    return History(work, context, commits)


@pytest.fixture(scope="module")
def history_repo(tmp_path_factory: pytest.TempPathFactory) -> History:
    return build_history(tmp_path_factory.mktemp("timetravel"))


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def resolve_json(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> Any:
    code, out, err = run_cli(capsys, "resolve", *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def one_line_error(code: int, err: str) -> str:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def _second(text: str, delta: int) -> datetime:
    return parse_instant(text) + timedelta(seconds=delta)


# -- --known-at picks the commit ------------------------------------------------------------------


@pytest.mark.parametrize("key", list(DATES))
def test_known_at_picks_the_commit_at_and_after_its_date(history_repo: History, key: str) -> None:
    expected = history_repo.commits[key]
    assert known_at_revision(history_repo.context, parse_instant(DATES[key])) == expected
    assert known_at_revision(history_repo.context, _second(DATES[key], 1)) == expected


@pytest.mark.parametrize(
    ("key", "previous"), [("v2", "first"), ("45", "v2"), ("v3", "45"), ("rename", "v3")]
)
def test_known_at_one_second_before_a_commit_picks_the_one_before(
    history_repo: History, key: str, previous: str
) -> None:
    found = known_at_revision(history_repo.context, _second(DATES[key], -1))
    assert found == history_repo.commits[previous]


def test_known_at_ignores_the_time_zone_of_the_machine_and_of_when(
    history_repo: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")  # UTC+14
    # 2026-06-10T12:30:00Z written at UTC-10: 02:30 local
    when = parse_instant("2026-06-10T02:30:00-10:00")
    assert known_at_revision(history_repo.context, when) == history_repo.commits["45"]
    before = parse_instant("2026-06-10T02:29:59-10:00")
    assert known_at_revision(history_repo.context, before) == history_repo.commits["v2"]


def test_known_at_before_the_first_commit_is_one_line_exit_2(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(GitRevisionError, match="no commit"):
        known_at_revision(history_repo.context, _second(DATES["first"], -1))
    code, out, err = run_cli(
        capsys, "resolve", history_repo.context, "--role", "support", "--known-at", "2026-02-28"
    )
    assert "no commit" in one_line_error(code, err) and out == ""


def test_known_at_outside_git_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(SAMPLE_REPO, tmp_path / "plain")
    code, _, err = run_cli(
        capsys, "resolve", tmp_path / "plain", "--role", "support", "--known-at", "2026-03-15"
    )
    assert "not inside a git repository" in one_line_error(code, err)


def test_known_at_and_rev_are_exclusive(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        capsys,
        "resolve",
        history_repo.context,
        "--role",
        "support",
        "--known-at",
        "2026-03-15",
        "--rev",
        "HEAD",
    )
    assert "--known-at" in one_line_error(code, err)


# -- the bundle names its source ----------------------------------------------------------------


def test_a_known_at_bundle_records_its_source(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = resolve_json(
        capsys,
        history_repo.context,
        "--role",
        "support",
        "--task",
        "refund",
        "--as-of",
        "2026-03-15",
        "--known-at",
        "2026-03-15",
    )
    assert bundle["source"] == {
        "commit": history_repo.commits["first"],
        "revision": None,
        "known_at": "2026-03-15T00:00:00Z",
        "working_tree": False,
    }
    assert "policies.refunds" in [o["id"] for o in bundle["objects"]]
    # the repository as it stood then had no v2: it is not even excluded
    assert "policies.refunds@2" not in json.dumps(bundle["exclusions"])


def test_known_at_reads_the_files_of_then(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    def v2_summary(known_at: str) -> str:
        bundle = resolve_json(
            capsys,
            history_repo.context,
            "--role",
            "support",
            "--as-of",
            "2026-07-01",
            "--known-at",
            known_at,
        )
        [v2] = [o for o in bundle["objects"] if o["id"] == "policies.refunds"]
        assert v2["version"] == 2
        return str(v2["summary"])

    assert v2_summary("2026-06-01").startswith("30-day")
    assert v2_summary("2026-06-11").startswith("45-day")


def test_the_explain_header_names_the_commit_known_at(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys,
        "resolve",
        history_repo.context,
        "--role",
        "support",
        "--as-of",
        "2026-03-25",
        "--known-at",
        "2026-03-25",
    )
    assert code == 0, err
    short = history_repo.commits["v2"][:7]
    assert out.splitlines()[0].endswith(
        f"source: known at 2026-03-25T00:00:00Z · commit {short} 'Refund policy v2 draft'"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("validate", "{repo}", "--known-at", "2026-03-15", "--as-of", "2026-03-15"),
        ("history", "policies.refunds", "{repo}", "--known-at", "2026-03-15"),
        ("changes", "{repo}", "--role", "support", "--known-at", "2026-03-15"),
        ("audit", "{repo}", "--known-at", "2026-03-15", "--as-of", "2026-03-15"),
    ],
)
def test_every_reading_command_takes_known_at(
    history_repo: History, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    args = [a.replace("{repo}", str(history_repo.context)) for a in argv]
    code, out, err = run_cli(capsys, *args, "--format", "json")
    assert code in (0, 1), err
    assert json.loads(out)
    early = [a if a != "2026-03-15" else "2026-02-01" for a in args]
    code, _, err = run_cli(capsys, *early)
    assert "no commit" in one_line_error(code, err)


def test_history_known_at_sees_only_what_was_committed_then(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys,
        "history",
        "policies.refunds",
        history_repo.context,
        "--known-at",
        "2026-03-15",
        "--format",
        "json",
    )
    assert code == 0, err
    assert [row["version"] for row in json.loads(out)["lineage"]] == [1]


def test_diff_against_known_at_compares_what_the_repository_said(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys,
        "diff",
        history_repo.context,
        "--role",
        "support",
        "--as-of",
        "2026-07-01",
        "--known-at",
        "2026-06-01",
        "--against-known-at",
        "2026-06-11",
        "--format",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["a"]["rev"].startswith("known at 2026-06-01T00:00:00Z · commit ")
    assert doc["b"]["rev"].startswith("known at 2026-06-11T00:00:00Z · commit ")
    changed = {c["id"]: c for c in doc["objects"]}
    assert "summary" in changed["policies.refunds"]["changed_fields"]
    code, _, err = run_cli(
        capsys,
        "diff",
        history_repo.context,
        "--role",
        "support",
        "--against-rev",
        "HEAD",
        "--against-known-at",
        "2026-06-11",
    )
    assert "--against-rev" in one_line_error(code, err)


# -- history --log ------------------------------------------------------------------------------


def log_json(capsys: pytest.CaptureFixture[str], repo: History, object_id: str) -> Any:
    code, out, err = run_cli(
        capsys, "history", object_id, repo.context, "--log", "--format", "json"
    )
    assert code == 0, err
    return json.loads(out)


def test_history_log_shows_the_30_to_45_edit_with_its_author(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = log_json(capsys, history_repo, "policies.refunds")
    assert doc["id"] == "policies.refunds"
    assert [c["commit"] for c in doc["commits"]] == [
        history_repo.commits[k] for k in ("rename", "v3", "45", "v2", "first")
    ]
    edit = doc["commits"][2]
    assert edit["author"] == DANA
    assert edit["date"] == "2026-06-10T12:30:00Z"
    assert edit["subject"] == "Refunds: 45 days, not 30"
    [change] = edit["changes"]
    assert change["version"] == 2 and change["kind"] == "changed"
    assert change["path"] == "policies/refunds.v2.md"
    assert set(change["fields"]) == {"summary", "updated"}
    old, new = change["fields"]["summary"]
    assert old.startswith("30-day full refund") and new.startswith("45-day full refund")
    assert change["fields"]["updated"] == ["2026-10-02T00:00:00Z", "2026-06-10T00:00:00Z"]
    assert "-| Starter, Team (monthly) | 30 days from the charge |" in change["body_diff"]
    assert "+| Starter, Team (monthly) | 45 days from the charge |" in change["body_diff"]
    assert set(edit) == {"commit", "author", "date", "subject", "changes"}
    assert set(change) == {"version", "path", "kind", "fields", "body_diff"}


def test_history_log_kinds_and_renames(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = log_json(capsys, history_repo, "policies.refunds")
    by_commit = {c["commit"]: c["changes"] for c in doc["commits"]}
    [renamed] = by_commit[history_repo.commits["rename"]]
    assert renamed["kind"] == "changed" and renamed["version"] == 1
    assert renamed["fields"] == {"path": ["policies/refunds.v1.md", "policies/refunds-2025.md"]}
    assert renamed["body_diff"] is None
    [v3] = by_commit[history_repo.commits["v3"]]
    assert (v3["kind"], v3["version"], v3["fields"]) == ("added", 3, {})
    [v2] = by_commit[history_repo.commits["v2"]]
    assert (v2["kind"], v2["version"]) == ("added", 2)
    [v1] = by_commit[history_repo.commits["first"]]
    assert (v1["kind"], v1["version"], v1["path"]) == ("added", 1, "policies/refunds.v1.md")


def test_history_log_text_shows_old_to_new(
    history_repo: History, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "history", "policies.refunds", history_repo.context, "--log")
    assert code == 0, err
    assert f"commit {history_repo.commits['45']}" in out
    assert f"2026-06-10T12:30:00Z · {DANA}" in out
    assert "summary: '30-day full refund" in out and "→ '45-day full refund" in out
    assert "+| Starter, Team (monthly) | 45 days from the charge |" in out


def test_history_log_of_an_unknown_id_and_outside_git(
    history_repo: History, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert log_json(capsys, history_repo, "nothing.here") == {"id": "nothing.here", "commits": []}
    shutil.copytree(SAMPLE_REPO, tmp_path / "plain")
    code, _, err = run_cli(capsys, "history", "policies.refunds", tmp_path / "plain", "--log")
    assert "not inside a git repository" in one_line_error(code, err)


def test_history_log_follows_the_first_parent_through_a_merge_and_odd_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = build_history(tmp_path / "h")
    git(repo.work, "checkout", "-q", "-b", "side")
    v1 = repo.context / "policies" / "refunds-2025.md"
    _edit(v1, "title: Refund policy (2025 edition)", "title: Refund policy, 2025")
    odd = repo.context / "policies" / "\x01odd name.md"
    odd.write_text(v1.read_text(encoding="utf-8").replace("version: 1", "version: 7"), "utf-8")
    _commit(
        repo.work, "retitle \x02 \x1b[31mred", "2026-11-27T09:00:00Z", "Eve \x1b] <e@x.invalid>"
    )
    git(repo.work, "checkout", "-q", "-")
    git(
        repo.work, "merge", "-q", "--no-ff", "-m", "merge side", "side", date="2026-11-28T09:00:00Z"
    )
    doc = log_json(capsys, repo, "policies.refunds")
    top = doc["commits"][0]
    assert top["subject"] == "merge side" and top["date"] == "2026-11-28T09:00:00Z"
    kinds = {(c["version"], c["kind"], c["path"]) for c in top["changes"]}
    assert kinds == {
        (1, "changed", "policies/refunds-2025.md"),
        (7, "added", "policies/\x01odd name.md"),
    }
    [changed] = [c for c in top["changes"] if c["version"] == 1]
    assert changed["fields"] == {"title": ["Refund policy (2025 edition)", "Refund policy, 2025"]}
    assert [c["subject"] for c in doc["commits"][1:3]] == [
        "name the 2025 refund policy by its year",
        "Refund policy v3 proposal",
    ]  # the side branch's own commit is not on the first-parent line
    code, out, err = run_cli(capsys, "history", "policies.refunds", repo.context, "--log")
    assert code == 0, err
    assert "\x1b" not in out and "\x01" not in out


def test_history_log_says_when_a_version_is_removed_and_every_kind_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = build_history(tmp_path / "h")
    (repo.context / "policies" / "refunds.v3.md").unlink()
    removal = _commit(repo.work, "drop the v3 proposal", "2026-11-29T09:00:00Z")
    doc = log_json(capsys, repo, "policies.refunds")
    assert doc["commits"][0]["commit"] == removal
    [gone] = doc["commits"][0]["changes"]
    assert (gone["kind"], gone["version"], gone["fields"]) == ("removed", 3, {})
    kinds = {c["kind"] for commit in doc["commits"] for c in commit["changes"]}
    assert kinds == {kind.value for kind in LogChangeKind}
    code, out, err = run_cli(capsys, "history", "policies.refunds", repo.context, "--log")
    assert code == 0, err
    assert "  - policies.refunds@3 removed (policies/refunds.v3.md)" in out
