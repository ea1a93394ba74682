"""Running ``opencontext`` as the installed script, for the tests of tests/cli."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from octui.cli.main import COMMANDS, main

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


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


def command_names() -> list[str]:
    """Every subcommand's name, sorted."""
    return sorted(name for name, _ in COMMANDS)


def help_text(*args: str, columns: int = 80) -> str:
    """``opencontext ARGS --help`` at a terminal ``columns`` wide."""
    proc = run(*args, "--help", env={**os.environ, "COLUMNS": str(columns)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    """``opencontext ARGV`` run in this process: it must exit 0; its stdout as JSON."""
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)
