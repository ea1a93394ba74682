"""Versions, entry points and shell completion, through the installed commands."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import octui
from octui.cli.completion import SHELLS, completion_script
from octui.cli.main import build_parser

BIN = Path(sys.executable).parent
VERSION = metadata.version("octui")


def run(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv), capture_output=True, text=True, timeout=120, check=False, cwd=cwd
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([str(BIN / "opencontext"), "--version"], f"opencontext {VERSION}\n"),
        ([str(BIN / "octui"), "--version"], f"octui {VERSION}\n"),
        ([sys.executable, "-m", "octui", "--version"], f"octui {VERSION}\n"),
    ],
    ids=["opencontext", "octui", "python -m octui"],
)
def test_version_prints_the_installed_version_and_exits_0(
    argv: list[str], expected: str, tmp_path: Path
) -> None:
    proc = run(*argv, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
    assert proc.stderr == ""
    assert re.fullmatch(r"\S+ [0-9]+\.[0-9]+\.[0-9]+.*\n", proc.stdout)


def test_the_version_is_written_once() -> None:
    assert octui.__version__ == VERSION


def test_python_dash_m_octui_runs_the_explorer_parser(tmp_path: Path) -> None:
    proc = run(sys.executable, "-m", "octui", "--help", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: octui ")
    assert "--as-of" in proc.stdout


def test_the_wheel_metadata_declares_an_spdx_license() -> None:
    meta = metadata.metadata("octui")
    assert meta["License-Expression"] == "MIT"
    assert "MIT License" in (Path(__file__).parent.parent / "LICENSE").read_text()


# -- completion ---------------------------------------------------------------------------------


def commands_and_flags() -> dict[str, list[str]]:
    """Every sub-command of the real parser and its option strings."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: [s for a in child._actions for s in a.option_strings]
        for name, child in sub.choices.items()
    }


def test_the_parser_has_the_commands_the_completion_must_offer() -> None:
    names = set(commands_and_flags())
    assert {"resolve", "validate", "history", "completion", "schema"} <= names


@pytest.mark.parametrize("shell", SHELLS)
def test_completion_names_every_command_and_flag(shell: str) -> None:
    proc = run(str(BIN / "opencontext"), "completion", shell)
    assert proc.returncode == 0, proc.stderr
    script = proc.stdout
    assert script == completion_script(build_parser(), shell)
    for name, flags in commands_and_flags().items():
        assert re.search(rf"\b{re.escape(name)}\b", script), (shell, name)
        for flag in flags:
            spelled = flag.lstrip("-") if shell == "fish" else flag  # fish: -l include-historical
            assert spelled in script, (shell, name, flag)
    assert "--version" in script or "-l version" in script


def test_completion_rejects_an_unknown_shell() -> None:
    proc = run(str(BIN / "opencontext"), "completion", "powershell")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def bash_complete(script: Path, words: list[str], cwd: Path) -> list[str]:
    """What bash offers for the last of ``words`` with the generated script loaded."""
    array = " ".join(f"'{w}'" for w in words)
    program = (
        f"source '{script}'; COMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; "
        'COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; '
        '_shtab_opencontext; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stdout.splitlines() if line]


def test_bash_completes_commands_flags_choices_and_folders(tmp_path: Path) -> None:
    script = tmp_path / "opencontext.bash"
    script.write_text(completion_script(build_parser(), "bash"))
    (tmp_path / "my-repo").mkdir()
    (tmp_path / "my-file.txt").write_text("")
    assert bash_complete(script, ["opencontext", "res"], tmp_path) == ["resolve"]
    assert bash_complete(script, ["opencontext", "resolve", "--inc"], tmp_path) == [
        "--include-historical"
    ]
    assert bash_complete(script, ["opencontext", "resolve", "--format", ""], tmp_path) == [
        "text",
        "json",
    ]
    assert bash_complete(script, ["opencontext", "schema", "b"], tmp_path) == ["bundle"]
    assert bash_complete(script, ["opencontext", "validate", "my"], tmp_path) == ["my-repo"]


def need_shell(name: str) -> str:
    """The shell's path; .ci/run installs zsh and fish, so CI never skips these."""
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed (.ci/run installs it)")
        pytest.skip(f"{name} is not installed")
    return found


def test_zsh_reads_the_zsh_script(tmp_path: Path) -> None:
    zsh = need_shell("zsh")
    script = tmp_path / "_opencontext"
    script.write_text(completion_script(build_parser(), "zsh"))
    proc = run(zsh, "-n", str(script))
    assert proc.returncode == 0, proc.stderr


def test_fish_completes_with_the_fish_script(tmp_path: Path) -> None:
    fish = need_shell("fish")
    script = tmp_path / "opencontext.fish"
    script.write_text(completion_script(build_parser(), "fish"))
    assert run(fish, "-n", str(script)).returncode == 0

    def offered(line: str) -> list[str]:
        proc = run(fish, "--no-config", "-c", f"source '{script}'; complete -C '{line}'")
        assert proc.returncode == 0, proc.stderr
        return [row.split("\t")[0] for row in proc.stdout.splitlines()]

    assert offered("opencontext res") == ["resolve"]
    assert offered("opencontext resolve --inc") == ["--include-historical"]
    assert offered("opencontext schema ") == ["config", "object", "bundle"]
