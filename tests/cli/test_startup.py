"""What a command loads before it answers: only what it uses (the analyses behind other
commands are imported by those commands), and the mistakes they raise are still one line."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from cli.helpers import SAMPLE_REPO, one_error_line, run

PROBE = """
import contextlib, io, sys
from octui.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(code, sorted(m for m in sys.modules if m.startswith(("octui.analysis", "octui.synth"))))
"""


def modules_after(*argv: str | Path) -> tuple[str, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *map(str, argv)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    code, _, modules = proc.stdout.strip().partition(" ")
    return code, ast.literal_eval(modules)  # the list of names the probe printed


def test_resolve_imports_no_analysis_of_another_command() -> None:
    code, modules = modules_after(
        "resolve", SAMPLE_REPO, "--role", "support", "--as-of", "2026-03-15", "--format", "json"
    )
    assert code == "0"
    assert modules == []


def test_validate_imports_no_analysis_of_another_command() -> None:
    code, modules = modules_after("validate", SAMPLE_REPO, "--as-of", "2026-03-15")
    assert code in ("0", "1")
    assert modules == []


def test_an_unknown_id_is_still_one_line_and_exit_2() -> None:
    line = one_error_line(run("history", "no.such.id", SAMPLE_REPO))
    assert "no.such.id" in line


def test_an_unverifiable_bundle_is_still_one_line_and_exit_2(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_text("not json", encoding="utf-8")
    one_error_line(run("verify", bundle, SAMPLE_REPO))
