"""``opencontext changes``: the agenda over a span or a duration, at a revision, usage errors
and its help."""

from __future__ import annotations

from typing import Any

import pytest
from git_fixture import GitSample, git_sample

from cli.helpers import SAMPLE_REPO as SAMPLE
from cli.helpers import cli_json, help_text
from octui.cli.main import main

__all__ = ["git_sample"]


def test_changes_help_reads_cleanly() -> None:
    text = help_text("changes")
    assert "as the repository was" not in text  # no "read the repository as the repository"
    assert "read the repository as it was at this git" in text
    assert "a duration counted from --as-of (90d)" in " ".join(text.split())


def test_cli_changes_in_the_next_90_days(capsys: pytest.CaptureFixture[str]) -> None:
    doc = cli_json(
        capsys,
        "changes",
        str(SAMPLE),
        "--role",
        "support",
        "--as-of",
        "2026-11-30",
        "--until",
        "90d",
        "--format",
        "json",
    )
    assert doc["until"] == "2027-02-28T00:00:00Z" and doc["since"] == "2026-11-30T00:00:00Z"
    same = cli_json(
        capsys,
        "changes",
        str(SAMPLE),
        "--role",
        "support",
        "--as-of",
        "2026-11-30",
        "--until",
        "2027-02-28",
        "--format",
        "json",
    )
    assert same["changes"] == doc["changes"]
    assert doc["changes"] and all(c["upcoming"] for c in doc["changes"])
    for change in doc["changes"]:
        at = cli_json(
            capsys,
            "resolve",
            str(SAMPLE),
            "--role",
            "support",
            "--as-of",
            change["first_instant"],
            "--format",
            "json",
        )
        assert at["digest"] == change["digest_after"]
    jan = next(c for c in doc["changes"] if c["at"] == "2027-01-01T00:00:00Z")
    assert any(
        o["id"] == "policies.ai-assistant-disclosure" and "now-included" in o["changes"]
        for o in jan["objects"]
    )


def test_cli_changes_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "changes",
                str(SAMPLE),
                "--role",
                "support",
                "--as-of",
                "2026-11-30",
                "--until",
                "2026-01-01",
            ]
        )
        == 2
    )
    assert "--until" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["changes", str(SAMPLE), "--role", "support", "--until", "soon"])
    assert exc.value.code == 2 and "duration" in capsys.readouterr().err
    code = main(
        [
            "changes",
            str(SAMPLE),
            "--role",
            "support",
            "--as-of",
            "2026-11-30",
            "--since",
            "30d",
            "--until",
            "30d",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "2026-11-12T14:32:00Z" in out and "(past)" in out


def test_cli_changes_at_a_revision(
    capsys: pytest.CaptureFixture[str], git_sample: GitSample
) -> None:
    ctx = str(git_sample.context)
    then = cli_json(
        capsys,
        "changes",
        ctx,
        "--role",
        "support",
        "--as-of",
        "2026-03-15",
        "--until",
        "2026-12-31",
        "--rev",
        "HEAD~2",
        "--format",
        "json",
    )
    now = cli_json(
        capsys,
        "changes",
        ctx,
        "--role",
        "support",
        "--as-of",
        "2026-03-15",
        "--until",
        "2026-12-31",
        "--format",
        "json",
    )
    assert then["rev"] == "HEAD~2"
    # Two commits ago nobody had written refund policy v2: June 1st was no change for support.
    june_then = [c for c in then["changes"] if c["at"] == "2026-06-01T00:00:00Z"]
    june_now = [c for c in now["changes"] if c["at"] == "2026-06-01T00:00:00Z"]

    def refunds(cs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [o for c in cs for o in c["objects"] if o["id"] == "policies.refunds"]

    assert refunds(june_now) and not refunds(june_then)
