"""The command line through the installed entry point (octui/cli/main.py): exit codes, errors
as one line, help with examples, output that no time zone, locale or folder changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from repo_builder import make_repo

from cli.helpers import command_names, one_error_line, run


def test_repo_defaults_to_current_folder(clean_repo: Path) -> None:
    proc = run("resolve", "--role", "support", "--format", "json", cwd=clean_repo)
    assert proc.returncode == 0
    assert len(json.loads(proc.stdout)["objects"]) == 2


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


def test_every_command_help_shows_examples() -> None:
    commands = command_names()
    assert {"resolve", "validate", "history"} <= set(commands)
    for command in commands:
        proc = run(command, "--help")
        assert proc.returncode == 0, command
        assert "examples:" in proc.stdout, command
        assert f"opencontext {command}" in proc.stdout.split("examples:", 1)[1], command
    top = run("--help")
    assert top.returncode == 0 and all(c in top.stdout for c in commands)


def test_tz_and_locale_do_not_change_output(clean_repo: Path) -> None:
    outs = []
    for tz, lc in (("UTC", "C.UTF-8"), ("Pacific/Kiritimati", "C"), ("America/Adak", "POSIX")):
        env = dict(os.environ, TZ=tz, LC_ALL=lc, PYTHONIOENCODING="utf-8")
        proc = run("resolve", clean_repo, "--role", "support", "--as-of", "2026-03-01", env=env)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout)
    assert outs[0] == outs[1] == outs[2]


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
