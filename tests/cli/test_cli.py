"""The command line through the installed entry point: exit codes, output purity, errors."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repo_builder import make_repo, obj

from octui.bundle.bundle import digest_from_bundle
from octui.cli.main import build_parser

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE_REPO = PROJECT_ROOT / "sample-repo"
_SCRIPT = Path(sys.executable).parent / "opencontext"
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "octui.cli.main"]


def run(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's parse cache goes to a folder of this test, not the user's cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


CONFIG = {"roles": {"support": {"clearance": "internal"}, "sales": {}}}


@pytest.fixture
def clean_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "clean",
        {
            "mission.md": obj("mission", layer="L0", title="Mission"),
            "policies/refunds.md": obj("policies.refunds", title="Refunds"),
        },
        CONFIG,
    )


@pytest.fixture
def erroring_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "errors",
        {
            "p1.md": obj("policies.refunds", version=1, created="2026-01-01"),
            "p2.md": obj("policies.refunds", version=2, created="2026-02-01"),
            "p3.md": obj(
                "policies.refunds",
                version=3,
                created="2026-03-01",
                supersedes=["policies.refunds@2"],
            ),
            "bad/broken.md": "---\nid: [\n---\n",
        },
        CONFIG,
    )


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


def test_repo_defaults_to_current_folder(clean_repo: Path) -> None:
    proc = run("resolve", "--role", "support", "--format", "json", cwd=clean_repo)
    assert proc.returncode == 0
    assert len(json.loads(proc.stdout)["objects"]) == 2


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


def test_config_error_one_line_names_file_and_key(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {}, "authority:\n  tie_breakers: [version, recency]\n")
    commands: list[list[str | Path]] = [
        ["resolve", root, "--role", "x"],
        ["validate", root],
        ["history", "a", root],
    ]
    for args in commands:
        proc = run(*args)
        line = one_error_line(proc)
        assert str(root / "opencontext.yaml") in line
        assert "authority.tie_breakers" in line and "recency" in line
        assert proc.stdout == ""


def test_unknown_role_lists_declared(clean_repo: Path) -> None:
    line = one_error_line(run("resolve", clean_repo, "--role", "marketing"))
    assert "marketing" in line and "sales, support" in line


def test_not_a_repository(tmp_path: Path) -> None:
    commands: list[list[str | Path]] = [
        ["resolve", tmp_path, "--role", "x"],
        ["validate", tmp_path],
        ["history", "x", tmp_path],
    ]
    for args in commands:
        line = one_error_line(run(*args))
        assert "not an OpenContext repository" in line and str(tmp_path) in line


@pytest.mark.parametrize("when", ["yesterday", "2026-13-01", "2026-02-30", "01/03/2026", ""])
def test_bad_as_of(clean_repo: Path, when: str) -> None:
    line = one_error_line(run("resolve", clean_repo, "--role", "support", "--as-of", when))
    assert "--as-of" in line


def test_usage_errors_exit_2(clean_repo: Path) -> None:
    one_error_line(run("resolve", clean_repo))  # --role is required
    one_error_line(run("resolve", clean_repo, "--role", "support", "--limit", "-1"))
    one_error_line(run("resolve", clean_repo, "--role", "support", "--min-relevance", "nan"))
    one_error_line(run("resolve", clean_repo, "--role", "support", "--explain", "--format", "json"))
    proc = run()
    assert proc.returncode == 2


def _commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def test_every_command_help_shows_examples() -> None:
    commands = _commands()
    assert {"resolve", "validate", "history"} <= set(commands)
    for command in commands:
        proc = run(command, "--help")
        assert proc.returncode == 0, command
        assert "examples:" in proc.stdout, command
        assert f"opencontext {command}" in proc.stdout.split("examples:", 1)[1], command
    top = run("--help")
    assert top.returncode == 0 and all(c in top.stdout for c in commands)


def test_validate_exit_codes_and_paths(clean_repo: Path, erroring_repo: Path) -> None:
    ok = run("validate", clean_repo)
    assert ok.returncode == 0, ok.stdout
    assert "0 errors" in ok.stdout
    bad = run("validate", erroring_repo, "--as-of", "2026-06-01")
    assert bad.returncode == 1
    assert "bad/broken.md" in bad.stdout
    assert "invalid-object" in bad.stdout and "duplicate-canonical" in bad.stdout
    assert "p1.md" in bad.stdout and "p3.md" in bad.stdout
    js = run("validate", erroring_repo, "--as-of", "2026-06-01", "--format", "json")
    assert js.returncode == 1
    doc = json.loads(js.stdout)
    paths = {p for f in doc["findings"] for p in f["paths"]}
    assert "bad/broken.md" in paths
    assert doc["errors"] == sum(1 for f in doc["findings"] if f["severity"] == "error") >= 2


def test_validate_ignores_roles(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {"s.md": obj("s", classification="restricted", supersedes=["ghost"])},
        {"roles": {"bot": {}}},
    )
    proc = run("validate", root)
    assert proc.returncode == 1 and "ghost" in proc.stdout and "s.md" in proc.stdout


def test_history_oldest_first(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "c.md": obj("p", version=3, valid_from="2026-09-01", supersedes=["p@2"]),
            "a.md": obj("p", version=1, valid_from="2026-01-01"),
            "b.md": obj("p", version=2, valid_from="2026-04-01", supersedes=["p@1"]),
            "s.md": obj("p", version=4, valid_from="2026-10-01", classification="restricted"),
        },
        {"roles": {"bot": {}}},
    )
    proc = run("history", "p", root, "--as-of", "2026-06-01")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("  p@")]
    assert [line.split()[0] for line in lines] == ["p@1", "p@2", "p@3", "p@4"]
    assert "superseded" in lines[0] and "active" in lines[1] and "not-yet-valid" in lines[2]
    js = json.loads(run("history", "p", root, "--as-of", "2026-06-01", "--format", "json").stdout)
    assert [r["version"] for r in js["lineage"]] == [1, 2, 3, 4]
    # a role that may not read version 4 sees only id and state for it
    bot = json.loads(run("history", "p", root, "--role", "bot", "--format", "json").stdout)
    assert bot["lineage"][-1] == {"id": "p", "state": "classification-denied"}
    assert one_error_line(run("history", "nothing", root))


def test_history_follows_lineage_across_ids(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "old.md": obj("decisions.pg", created="2026-02-01", superseded_by="decisions.pg-ha"),
            "new.md": obj("decisions.pg-ha", created="2026-08-01"),
        },
    )
    proc = run("history", "decisions.pg-ha", root, "--as-of", "2026-09-01")
    keys = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("  decisions")]
    assert keys == ["decisions.pg@1", "decisions.pg-ha@1"]


def test_tz_and_locale_do_not_change_output(clean_repo: Path) -> None:
    outs = []
    for tz, lc in (("UTC", "C.UTF-8"), ("Pacific/Kiritimati", "C"), ("America/Adak", "POSIX")):
        env = dict(os.environ, TZ=tz, LC_ALL=lc, PYTHONIOENCODING="utf-8")
        proc = run("resolve", clean_repo, "--role", "support", "--as-of", "2026-03-01", env=env)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout)
    assert outs[0] == outs[1] == outs[2]


# -- the sample repository ---------------------------------------------------------------------


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


def test_commands_never_write_into_the_repository(clean_repo: Path) -> None:
    def snapshot() -> list[tuple[str, int, int]]:
        return sorted(
            (str(p.relative_to(clean_repo)), p.stat().st_size, p.stat().st_mtime_ns)
            for p in clean_repo.rglob("*")
        )

    before = snapshot()
    for args in (
        ["resolve", clean_repo, "--role", "support", "--format", "json"],
        ["resolve", "--role", "support"],
        ["validate", clean_repo],
        ["history", "mission", clean_repo],
    ):
        assert run(*args, cwd=clean_repo).returncode == 0
    assert snapshot() == before
