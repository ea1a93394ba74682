"""The public Python API, used only through ``import octui``, agrees with the CLI byte for byte."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from git_fixture import GitSample, git_sample

import octui

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_REPO = PROJECT_ROOT / "sample-repo"
OPENCONTEXT = Path(sys.executable).parent / "opencontext"
ROLES = ["engineering", "leadership", "public-bot", "sales", "support"]
AS_OF = "2026-03-15"

__all__ = ["git_sample"]  # the fixture, imported for pytest


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OPENCONTEXT), *map(str, args), "--no-cache"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=120,
    )


_PER_RUN = re.compile(r'^  "(bundle_id|generated_at)": "[^"]*",\n', re.MULTILINE)


def without_per_run_keys(text: str) -> str:
    """The bundle text without the two keys that differ between any two runs."""
    stripped, count = _PER_RUN.subn("", text)
    assert count == 2, text[:200]
    return stripped


@pytest.fixture(scope="module")
def sample() -> octui.ContextRepository:
    return octui.open_repository(SAMPLE_REPO)


def test_the_public_names_are_exported() -> None:
    for name in ("open_repository", "ContextRepository", "Bundle", "Finding", "OpenContextError"):
        assert name in octui.__all__
        assert getattr(octui, name).__module__ == "octui.api"
    assert (Path(octui.__file__).parent / "py.typed").is_file()


def test_the_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    example = (
        "import octui\n"
        'repo = octui.open_repository("sample-repo")\n'
        'bundle = repo.resolve("support", task="refund")\n'
        "for obj in bundle.objects:\n"
        '    print(obj["id"], obj["authority"], obj["title"])\n'
        "print(bundle.digest)\n"
    )
    import os

    here = os.getcwd()
    os.chdir(PROJECT_ROOT)
    try:
        exec(compile(example, "README.md", "exec"), {})
    finally:
        os.chdir(here)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("mission canonical ")
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", lines[-1])


@pytest.mark.parametrize("role", ROLES)
def test_digest_and_json_equal_the_cli(sample: octui.ContextRepository, role: str) -> None:
    bundle = sample.resolve(role, task="refund", as_of=AS_OF)
    proc = cli(
        "resolve",
        SAMPLE_REPO,
        "--role",
        role,
        "--task",
        "refund",
        "--as-of",
        AS_OF,
        "--format",
        "json",
    )
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert bundle.digest == printed["digest"]
    assert without_per_run_keys(bundle.to_json()) == without_per_run_keys(proc.stdout)
    assert bundle.objects == printed["objects"]
    assert bundle.exclusions == printed["exclusions"]
    assert bundle.warnings == printed["warnings"]
    assert bundle.inputs == printed["inputs"]
    assert bundle.as_of == printed["as_of"] == "2026-03-15T00:00:00Z"
    assert bundle.role == role
    assert bundle.ids() == [o["id"] for o in printed["objects"]]


def test_every_option_reaches_the_resolver(sample: octui.ContextRepository) -> None:
    bundle = sample.resolve(
        "sales",
        task="pricing sso",
        as_of="2026-10-15",
        limit=2,
        min_relevance=1.5,
        include_historical=True,
        strict=True,
    )
    proc = cli(
        "resolve",
        SAMPLE_REPO,
        "--role",
        "sales",
        "--task",
        "pricing sso",
        "--as-of",
        "2026-10-15",
        "--limit",
        "2",
        "--min-relevance",
        "1.5",
        "--include-historical",
        "--strict",
        "--format",
        "json",
    )
    assert without_per_run_keys(bundle.to_json()) == without_per_run_keys(proc.stdout)
    assert bundle.inputs == {
        "role": "sales",
        "task": "pricing sso",
        "limit": 2,
        "min_relevance": 1.5,
        "include_historical": True,
        "strict": True,
    }
    assert bundle.failed == (proc.returncode == 1)


def test_changing_what_a_bundle_returns_changes_nothing(sample: octui.ContextRepository) -> None:
    bundle = sample.resolve("support", task="refund", as_of=AS_OF)
    text = bundle.to_json()
    bundle.objects[0]["id"] = "tampered"
    bundle.exclusions.clear()
    bundle.to_dict()["warnings"].clear()
    assert bundle.to_json() == text
    assert bundle.objects[0]["id"] == "mission"
    assert json.loads(text)["digest"] == bundle.digest


def test_each_spelling_of_an_instant_resolves_the_same(sample: octui.ContextRepository) -> None:
    digests = {
        sample.resolve("support", as_of=when).digest
        for when in (
            "2026-03-15",
            "2026-03-15T00:00:00Z",
            "2026-03-15T01:00:00+01:00",
            date(2026, 3, 15),
            datetime(2026, 3, 15),  # naive: UTC
            datetime(2026, 3, 15, tzinfo=UTC),
        )
    }
    assert len(digests) == 1


def test_without_as_of_it_resolves_now(sample: octui.ContextRepository) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    as_of = datetime.fromisoformat(sample.resolve("support").as_of.replace("Z", "+00:00"))
    assert before <= as_of <= datetime.now(UTC)


def finding_json(f: octui.Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity,
        "ids": list(f.ids),
        "message": f.message,
        "hint": f.hint,
        "paths": list(f.paths),
        "line": f.line,
    }


def test_validate_reports_what_the_cli_reports(sample: octui.ContextRepository) -> None:
    findings = sample.validate(as_of=AS_OF)
    proc = cli("validate", SAMPLE_REPO, "--as-of", AS_OF, "--format", "json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert [finding_json(f) for f in findings] == report["findings"]
    assert sum(f.is_error for f in findings) == report["errors"] > 0
    assert {f.code for f in findings} >= {"unknown-field", "supersession-cycle"}
    with pytest.raises(AttributeError):
        findings[0].code = "stale"  # type: ignore[misc]


def test_roles_are_the_declared_ones(sample: octui.ContextRepository) -> None:
    assert sample.roles == ROLES


def test_a_revision_is_read_from_git(git_sample: GitSample) -> None:
    old = octui.open_repository(git_sample.context, rev="HEAD~2")
    now = octui.open_repository(git_sample.context)
    assert old.rev == "HEAD~2"
    late = "2026-12-31"  # the uncommitted object is in effect by then
    assert "policies.uncommitted" not in old.resolve("leadership", as_of=late).ids()
    assert "policies.uncommitted" in now.resolve("leadership", as_of=late).ids()
    proc = cli(
        "resolve",
        git_sample.context,
        "--role",
        "support",
        "--as-of",
        AS_OF,
        "--rev",
        "HEAD~2",
        "--format",
        "json",
    )
    assert old.resolve("support", as_of=AS_OF).digest == json.loads(proc.stdout)["digest"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: octui.open_repository(PROJECT_ROOT / "octui"), "not an OpenContext repository"),
        (lambda: octui.open_repository(SAMPLE_REPO, rev="no-such-rev"), "no-such-rev"),
        (lambda: octui.open_repository(SAMPLE_REPO).resolve("ceo"), "declared roles: engineering"),
        (lambda: octui.open_repository(SAMPLE_REPO).resolve("support", as_of="soon"), "'soon'"),
        (lambda: octui.open_repository(SAMPLE_REPO).resolve("support", limit=-1), "limit"),
        (lambda: octui.open_repository(SAMPLE_REPO).validate(as_of="2026-02-30"), "2026-02-30"),
    ],
    ids=["not-a-repo", "bad-rev", "unknown-role", "bad-instant", "negative-limit", "bad-date"],
)
def test_mistakes_raise_one_public_error(call: Any, message: str) -> None:
    with pytest.raises(octui.OpenContextError) as caught:
        call()
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_bad_configuration_is_an_open_context_error(tmp_path: Path) -> None:
    (tmp_path / "opencontext.yaml").write_text("freshness: {default: 90days}\n")
    with pytest.raises(octui.OpenContextError, match=r"freshness\.default"):
        octui.open_repository(tmp_path)
