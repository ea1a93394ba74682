"""``opencontext resolve``: the bundle as JSON and as the explain layout, its header, --strict."""

from __future__ import annotations

import json
from pathlib import Path

from git_fixture import commit, git
from repo_builder import make_repo, obj

from cli.helpers import SAMPLE_REPO, run
from octui.bundle.bundle import digest_from_bundle

SUPPORT_REFUND = ("resolve", SAMPLE_REPO, "--role", "support", "--task", "refund")


def test_resolve_json_is_pure_json(clean_repo: Path) -> None:
    proc = run("resolve", clean_repo, "--role", "support", "--task", "refund", "--format", "json")
    assert proc.returncode == 0 and proc.stderr == ""
    bundle = json.loads(proc.stdout)
    assert [o["id"] for o in bundle["objects"]] == ["mission", "policies.refunds"]
    assert digest_from_bundle(bundle) == bundle["digest"]
    assert bundle["inputs"]["role"] == "support" and bundle["inputs"]["task"] == "refund"


def test_resolve_default_output_is_the_explain_layout(clean_repo: Path) -> None:
    plain = run("resolve", clean_repo, "--role", "support", "--as-of", "2026-01-01")
    explained = run(
        "resolve", clean_repo, "--role", "support", "--as-of", "2026-01-01", "--explain"
    )
    assert plain.returncode == explained.returncode == 0
    assert plain.stdout == explained.stdout
    header, counts, *layout = plain.stdout.splitlines()
    assert header.startswith("Role: support · task: (none) · as_of: 2026-01-01T00:00:00Z (UTC)")
    assert counts == "2 included, 0 excluded, 0 warnings"
    assert layout[:2] == ["Included:", "  ✓ mission canonical"]


def test_strict_fails_with_errors_and_still_prints(erroring_repo: Path) -> None:
    loose = run(
        "resolve", erroring_repo, "--role", "support", "--format", "json", "--as-of", "2026-06-01"
    )
    assert loose.returncode == 0
    strict = run(
        "resolve",
        erroring_repo,
        "--role",
        "support",
        "--format",
        "json",
        "--strict",
        "--as-of",
        "2026-06-01",
    )
    assert strict.returncode == 1
    bundle = json.loads(strict.stdout)
    assert bundle["inputs"]["strict"] is True
    assert {w["code"] for w in bundle["warnings"] if w["severity"] == "error"} == {
        "duplicate-canonical",
        "invalid-object",
    }
    assert strict.stderr.strip() and "Traceback" not in strict.stderr
    explained = run(
        "resolve", erroring_repo, "--role", "support", "--strict", "--as-of", "2026-06-01"
    )
    assert explained.returncode == 1 and "Digest: sha256:" in explained.stdout


def test_strict_passes_without_errors(clean_repo: Path) -> None:
    proc = run("resolve", clean_repo, "--role", "support", "--strict", "--format", "json")
    assert proc.returncode == 0


def test_sample_repo_explain_layout() -> None:
    assert SAMPLE_REPO.is_dir(), "sample-repo is part of the project"
    proc = run(
        "resolve",
        SAMPLE_REPO,
        "--role",
        "support",
        "--task",
        "refund",
        "--explain",
        "--as-of",
        "2026-11-30",
    )
    assert proc.returncode == 0, proc.stderr
    header, counts, *lines = proc.stdout.splitlines()
    assert header.startswith('Role: support · task: "refund" · as_of: 2026-11-30')
    assert counts.endswith(" errors)")
    assert lines[0] == "Included:"
    heads = [i for i, line in enumerate(lines) if not line.startswith("  ")]
    assert [lines[i] for i in heads[:3]] == ["Included:", "Excluded:", "Warnings:"]
    assert lines[heads[3]].startswith("Digest: sha256:") and heads[3] == len(lines) - 1
    included = lines[1 : heads[1]]
    excluded = lines[heads[1] + 1 : heads[2]]
    assert included and all(line.startswith("  ✓ ") for line in included)
    assert "  ✓ mission canonical" in included
    assert excluded and all(line.startswith("  - ") for line in excluded)
    reasons = {line.split()[2] for line in excluded}
    assert reasons <= {
        "permission-denied",
        "classification-denied",
        "scope-exclusion",
        "not-in-scope",
        "superseded",
        "expired",
        "not-yet-valid",
        "outranked",
        "unapproved",
        "not-relevant",
        "conflict",
        "source-unavailable",
    }
    for line in excluded:
        parts = line.split(maxsplit=3)
        if parts[2] in ("permission-denied", "classification-denied"):
            assert len(parts) == 3 and "@" not in parts[1], line  # id and reason only
        else:
            assert parts[3].startswith("(") and parts[3].endswith(")"), line
    warnings = lines[heads[2] + 1 : heads[3]]
    assert all(line.startswith(("  ✗ ", "  ⚠ ", "  ! ", "    → ")) for line in warnings)


def test_sample_repo_digest_moves_with_as_of() -> None:
    def digest_at(when: str) -> str:
        proc = run(
            "resolve",
            SAMPLE_REPO,
            "--role",
            "support",
            "--task",
            "refund",
            "--format",
            "json",
            "--as-of",
            when,
        )
        assert proc.returncode == 0
        return str(json.loads(proc.stdout)["digest"])

    assert digest_at("2026-03-15") != digest_at("2026-11-30")
    assert digest_at("2026-11-30") == digest_at("2026-11-30T01:00:00+01:00")


# -- the explain header -------------------------------------------------------------------------


def test_explain_starts_with_a_header_naming_the_query_and_counts() -> None:
    proc = run(*SUPPORT_REFUND, "--as-of", "2026-11-30", "--explain")
    assert proc.returncode == 0, proc.stderr
    bundle = json.loads(run(*SUPPORT_REFUND, "--as-of", "2026-11-30", "--format", "json").stdout)
    header, counts, first = proc.stdout.splitlines()[:3]
    assert header == (
        'Role: support · task: "refund" · as_of: 2026-11-30T00:00:00Z (UTC) · source: working tree'
    )
    errors = sum(1 for w in bundle["warnings"] if w["severity"] == "error")
    assert counts == (
        f"{len(bundle['objects'])} included, {len(bundle['exclusions'])} excluded, "
        f"{len(bundle['warnings'])} warnings ({errors} errors)"
    )
    assert counts == "21 included, 33 excluded, 14 warnings (5 errors)"  # denied ids once
    assert first == "Included:"


def test_explain_header_names_options_that_change_the_bundle() -> None:
    proc = run(*SUPPORT_REFUND, "--as-of", "2026-11-30", "--include-historical", "--limit", "3")
    header = proc.stdout.splitlines()[0]
    assert header.endswith("source: working tree · historical included · limit: 3")


def test_explain_header_names_the_git_revision(tmp_path: Path) -> None:
    work = make_repo(tmp_path / "work", {"mission.md": obj("mission", layer="L0")}, None)
    git(work, "init", "-q")
    commit(work, "first", "2026-01-01T00:00:00Z")
    proc = run("resolve", work, "--role", "reader", "--rev", "HEAD", "--as-of", "2026-02-01")
    assert proc.returncode == 0, proc.stderr
    header = proc.stdout.splitlines()[0]
    assert header == (
        "Role: reader · task: (none) · as_of: 2026-02-01T00:00:00Z (UTC) · "
        "source: git revision HEAD"
    )
