"""The command line explains itself: help that fits 80 columns, colour only on a terminal,
and "did you mean" for a mistyped role or id (the explain header is in test_resolve.py,
history's wording in test_history.py)."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import sys
from pathlib import Path

import pytest
from repo_builder import make_repo, obj

from cli.helpers import COMMAND, SAMPLE_REPO, command_names, help_text, one_error_line, run
from octui.core.enums import ColorMode
from octui.core.suggest import did_you_mean
from octui.render.ansi import colour_enabled, paint_marks, strip_sgr

SGR = re.compile(r"\x1b\[[0-9;]*m")

SUPPORT_REFUND = ("resolve", SAMPLE_REPO, "--role", "support", "--task", "refund")


# -- help ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [80, 100])
def test_every_help_fits_the_terminal(columns: int) -> None:
    for command in ["", *command_names()]:
        text = help_text(*([command] if command else []), columns=columns)
        long = [line for line in text.splitlines() if len(line) > columns]
        assert not long, (command, long)


def test_wrapped_examples_are_still_whole_commands() -> None:
    text = help_text("diff")
    examples = text.split("examples:\n", 1)[1]
    joined = examples.replace(" \\\n      ", " ").splitlines()
    assert all(line.startswith("  opencontext diff ") for line in joined), joined
    assert (
        "  opencontext diff sample-repo --role support --task refund --against-task discount "
        "--format json"
    ) in joined
    assert "--against-as-of \\\n" not in examples  # an option stays with its value


def test_every_option_is_described() -> None:
    for command in command_names():
        text = help_text(command).split("options:\n", 1)[1].split("\n\n", 1)[0]
        entries = re.split(r"\n(?=  -)", text.rstrip("\n"))
        bare = [e for e in entries if "\n" not in e and len(re.split(r"\s{2,}", e.strip())) < 2]
        assert not bare, (command, bare)


# -- colour -------------------------------------------------------------------------------------


def _on_a_terminal(*args: str | Path, env: dict[str, str]) -> str:
    """The command's output when its stdout is a terminal (a pseudo-terminal)."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(COMMAND[0], [*COMMAND, *map(str, args)], env)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.waitpid(pid, 0)
    os.close(fd)
    return b"".join(chunks).decode("utf-8")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return {**env, **extra}


needs_script = pytest.mark.skipif(
    len(COMMAND) != 1 or sys.platform == "win32", reason="needs the installed script and a pty"
)


def test_color_always_paints_the_marks_and_never_by_default_when_piped() -> None:
    base = (*SUPPORT_REFUND, "--as-of", "2026-11-30")
    piped = run(*base, env=_env())
    assert "\x1b" not in piped.stdout
    always = run(*base, "--color", "always", env=_env(NO_COLOR="1"))
    assert "  \x1b[32m✓\x1b[0m mission canonical\n" in always.stdout
    assert "\x1b[31m✗\x1b[0m " in always.stdout and "\x1b[33m⚠\x1b[0m " in always.stdout
    assert "\x1b[36m!\x1b[0m stale" in always.stdout
    assert strip_sgr(always.stdout) == piped.stdout  # colour adds codes, changes nothing else
    never = run(*base, "--color", "never", env=_env())
    assert never.stdout == piped.stdout


def test_every_command_takes_color() -> None:
    for command in command_names():
        assert "--color {never,auto,always}" in help_text(command), command


def test_json_is_never_coloured() -> None:
    for args in (
        (*SUPPORT_REFUND, "--as-of", "2026-11-30"),
        ("history", "policies.refunds", SAMPLE_REPO),
        ("validate", SAMPLE_REPO),
    ):
        proc = run(*args, "--format", "json", "--color", "always")
        assert proc.returncode in (0, 1), (args, proc.stderr)
        assert "\x1b" not in proc.stdout and json.loads(proc.stdout), args


@needs_script
def test_auto_colours_a_terminal_unless_no_color_is_set() -> None:
    base = (*SUPPORT_REFUND, "--as-of", "2026-11-30")
    assert "\x1b[32m✓\x1b[0m" in _on_a_terminal(*base, env=_env())
    assert "\x1b[32m✓\x1b[0m" in _on_a_terminal(*base, env=_env(NO_COLOR=""))  # empty: unset
    assert "\x1b" not in _on_a_terminal(*base, env=_env(NO_COLOR="1"))
    assert "\x1b" not in _on_a_terminal(*base, "--color", "never", env=_env())


def test_repository_text_is_inert_before_colour(tmp_path: Path) -> None:
    hostile = "\x1b[32m✓ ghost\x1b]52;c;aGk=\x07"
    root = make_repo(tmp_path / "r", {"a.md": obj("a", supersedes=[hostile])}, None)
    outputs = {}
    when = ("--as-of", "2026-06-01")
    for args in (("resolve", root, "--role", "reader", *when), ("validate", root, *when)):
        out = outputs[args[0]] = run(*args, "--color", "always").stdout
        plain = run(*args, "--color", "never").stdout
        assert "\x1b[31m✗\x1b[0m" in out, args  # colour is on ...
        assert "\x1b" not in SGR.sub("", out) and "\x07" not in out, args  # ... only ours
        assert strip_sgr(out) == plain and "\x1b" not in plain, args
    assert "\\x1b[32m✓ ghost\\x1b]52;c;aGk=\\x07" in outputs["validate"]


def test_colour_enabled_matrix() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    pipe, tty = io.StringIO(), Tty()
    assert colour_enabled(ColorMode.AUTO, tty, {}) is True
    assert colour_enabled(ColorMode.AUTO, tty, {"NO_COLOR": ""}) is True
    assert colour_enabled(ColorMode.AUTO, tty, {"NO_COLOR": "1"}) is False
    assert colour_enabled(ColorMode.AUTO, pipe, {}) is False
    assert colour_enabled(ColorMode.ALWAYS, pipe, {"NO_COLOR": "1"}) is True
    assert colour_enabled(ColorMode.NEVER, tty, {}) is False


def test_only_line_leading_marks_are_painted() -> None:
    text = "  ✓ a ✗ b\n  + ⚠ c\nnote: ✗ d\n  ✓x\n"
    assert paint_marks(text) == (
        "  \x1b[32m✓\x1b[0m a ✗ b\n  + \x1b[33m⚠\x1b[0m c\nnote: ✗ d\n  ✓x\n"
    )


# -- did you mean -------------------------------------------------------------------------------


def test_unknown_role_suggests_the_closest() -> None:
    line = one_error_line(run("resolve", SAMPLE_REPO, "--role", "suport"))
    assert line == (
        "opencontext: error: unknown role 'suport' (did you mean 'support'?); declared roles: "
        "engineering, leadership, public-bot, sales, support"
    )
    far = one_error_line(run("resolve", SAMPLE_REPO, "--role", "zzz"))
    assert "did you mean" not in far and "declared roles: engineering" in far


def test_unknown_id_suggests_the_closest() -> None:
    line = one_error_line(run("history", "polices.refunds", SAMPLE_REPO))
    assert line.startswith(
        "opencontext: error: no object with id 'polices.refunds' in the repository "
        "(did you mean 'policies.refunds'"
    )
    far = one_error_line(run("history", "zzzzzz", SAMPLE_REPO))
    assert "did you mean" not in far


def test_did_you_mean_wording() -> None:
    assert did_you_mean("suport", ["sales", "support"]) == " (did you mean 'support'?)"
    assert did_you_mean("ab", ["abc", "abd"]) == " (did you mean 'abc' or 'abd'?)"
    assert did_you_mean("zzz", ["support"]) == ""
