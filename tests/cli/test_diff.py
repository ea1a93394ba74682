"""``opencontext diff``: two instants, roles, tasks or git revisions compared, usage errors
and --exit-code."""

from __future__ import annotations

from typing import Any

import pytest
from git_fixture import GitSample, git_sample

from cli.helpers import SAMPLE_REPO as SAMPLE
from cli.helpers import cli_json
from octui.cli.main import main

__all__ = ["git_sample"]


def test_cli_what_changed_for_support_between_march_and_today(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = cli_json(
        capsys,
        "diff",
        str(SAMPLE),
        "--role",
        "support",
        "--as-of",
        "2026-03-15",
        "--against-as-of",
        "2026-11-30",
        "--format",
        "json",
    )
    then = cli_json(
        capsys,
        "resolve",
        str(SAMPLE),
        "--role",
        "support",
        "--as-of",
        "2026-03-15",
        "--format",
        "json",
    )
    now = cli_json(
        capsys,
        "resolve",
        str(SAMPLE),
        "--role",
        "support",
        "--as-of",
        "2026-11-30",
        "--format",
        "json",
    )
    assert doc["a"]["digest"] == then["digest"] and doc["b"]["digest"] == now["digest"]
    assert {"id": "policies.refunds", "before": [1], "after": [2]} in doc["versions"]
    included_then = {(o["id"], o["version"]) for o in then["objects"]}
    included_now = {(o["id"], o["version"]) for o in now["objects"]}
    moved_in = {
        (c["id"], c["version_after"]) for c in doc["objects"] if "now-included" in c["changes"]
    }
    moved_out = {
        (c["id"], c["version_before"]) for c in doc["objects"] if "now-excluded" in c["changes"]
    }
    assert moved_in == included_now - included_then
    assert moved_out == included_then - included_now
    added_codes = {(w["code"], tuple(w["ids"])) for w in doc["warnings"]["added"]}
    assert ("stale", ("procedures.refund",)) in added_codes


def test_cli_against_role_task_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    doc = cli_json(
        capsys,
        "diff",
        str(SAMPLE),
        "--role",
        "support",
        "--as-of",
        "2026-11-30",
        "--against-role",
        "public-bot",
        "--against-task",
        "privacy",
        "--format",
        "json",
    )
    assert doc["a"]["role"] == "support" and doc["b"]["role"] == "public-bot"
    assert doc["b"]["task"] == "privacy" and doc["a"]["task"] == ""
    assert main(["diff", str(SAMPLE), "--role", "support"]) == 2
    assert "--against" in capsys.readouterr().err
    assert main(["diff", str(SAMPLE), "--role", "support", "--against-role", "nobody"]) == 2
    assert "unknown role" in capsys.readouterr().err
    code = main(
        ["diff", str(SAMPLE), "--role", "support", "--against-role", "sales", "--exit-code"]
    )
    capsys.readouterr()
    assert code == 1


def test_cli_diff_two_commits_ago_against_the_working_tree(
    capsys: pytest.CaptureFixture[str], git_sample: GitSample
) -> None:
    doc = cli_json(
        capsys,
        "diff",
        str(git_sample.context),
        "--role",
        "support",
        "--as-of",
        "2026-11-30",
        "--rev",
        "HEAD~2",
        "--against-rev",
        "working-tree",
        "--format",
        "json",
    )
    assert doc["a"]["rev"] == "HEAD~2" and doc["b"]["rev"] is None
    by_id: dict[str, list[dict[str, Any]]] = {}
    for c in doc["objects"]:
        by_id.setdefault(c["id"], []).append(c)
    assert {"id": "policies.refunds", "before": [1], "after": [2]} in doc["versions"]
    assert sorted(c["changes"][0] for c in by_id["policies.refunds"]) == ["added", "now-excluded"]
    # Edited in place from v1 to v2 between the revisions: a version change, not add + remove.
    security = by_id["policies.security"]
    assert len(security) == 1 and "version" in security[0]["changes"]
    assert security[0]["version_before"] == 1 and security[0]["version_after"] == 2
    # Deleted at HEAD; the uncommitted file exists only on disk.
    assert by_id["policies.outage-credit-2026-q1"][0]["changes"] == ["removed"]
    assert by_id["policies.uncommitted"][0]["changes"] == ["added"]
    support_hours = by_id["policies.support-hours"][0]
    assert "fields" in support_hours["changes"] and "summary" in support_hours["changed_fields"]
    refund_proc = next(c for c in by_id["procedures.refund"] if c["version_before"] == 1)
    assert "stale" in refund_proc["changes"] and "updated" in refund_proc["changed_fields"]
