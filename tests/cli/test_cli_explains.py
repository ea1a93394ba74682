"""The command line explains itself: the explain header, history's wording, help that fits
80 columns, colour only on a terminal, and "did you mean" for a mistyped role or id."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import sys
from pathlib import Path

import pytest
from git_fixture import commit, git
from repo_builder import make_repo, obj

from cli.test_cli import COMMAND, SAMPLE_REPO, _commands, one_error_line, run
from octui.core.enums import ColorMode
from octui.core.suggest import did_you_mean
from octui.load.loader import load_repository
from octui.render.ansi import colour_enabled, paint_marks, strip_sgr

SGR = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


SUPPORT_REFUND = ("resolve", SAMPLE_REPO, "--role", "support", "--task", "refund")


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


# -- history ------------------------------------------------------------------------------------


def test_sample_repo_refunds_v3_is_a_draft() -> None:
    """The wording below depends on this fact of the sample repository."""
    v3 = [o for o in load_repository(SAMPLE_REPO).objects if o.key == "policies.refunds@3"]
    assert [str(o.status) for o in v3] == ["draft"]


def test_history_closes_a_superseded_window_and_says_when_edges_take_effect() -> None:
    proc = run("history", "policies.refunds", SAMPLE_REPO, "--as-of", "2026-11-30")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert (
        lines[0] == "History of policies.refunds at 2026-11-30T00:00:00Z (UTC) (whole repository)"
    )
    v1 = next(i for i, line in enumerate(lines) if line.startswith("  policies.refunds@1 "))
    assert lines[v1] == (
        "  policies.refunds@1  canonical  2025-10-01 → 2026-06-01  superseded  "
        "policies/refunds.v1.md"
    )
    assert lines[v1 + 1] == "      declared: 2025-10-01 → open"
    assert "      superseded by policies.refunds@2 — in effect from 2026-06-01" in lines
    assert "      supersedes policies.refunds@1 — in effect from 2026-06-01" in lines
    never = "never in effect (the replacement is a draft)"
    assert f"      superseded by policies.refunds@3 — {never}" in lines
    assert f"      supersedes policies.refunds@2 — {never}" in lines
    # nothing reads as if a superseded version were still in effect
    assert not any("→ open  superseded" in line for line in lines)
    assert not any(line.strip() == "superseded by policies.refunds@3" for line in lines)


def test_history_json_keeps_declared_window_and_adds_edge_instants() -> None:
    proc = run(
        "history", "policies.refunds", SAMPLE_REPO, "--as-of", "2026-11-30", "--format", "json"
    )
    rows = {r["version"]: r for r in json.loads(proc.stdout)["lineage"]}
    assert rows[1]["valid_until"] is None  # the declared window is unchanged
    assert rows[1]["edges"] == ["superseded by policies.refunds@2"]
    assert rows[1]["superseded_from"] == "2026-06-01T00:00:00Z"
    assert rows[1]["edge_effects"] == [
        {
            "edge": "superseded by policies.refunds@2",
            "takes_effect": True,
            "effective_from": "2026-06-01T00:00:00Z",
            "in_cycle": False,
        }
    ]
    assert rows[2]["superseded_from"] is None  # v3 is a draft: it never supersedes v2
    draft_edge = next(e for e in rows[2]["edge_effects"] if "@3" in e["edge"])
    assert draft_edge["takes_effect"] is False and draft_edge["effective_from"] is None


def test_history_window_ends_at_valid_until_when_that_comes_first(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "a.md": obj("p", version=1, valid_from="2026-01-01", valid_until="2026-03-01"),
            "b.md": obj("p", version=2, valid_from="2026-04-01", supersedes=["p@1"]),
            "c.md": obj("q", version=1, valid_from="2026-01-01", valid_until="2026-12-01"),
            "d.md": obj("q", version=2, valid_from="2026-04-01", supersedes=["q@1"]),
        },
        {"roles": {"bot": {}}},
    )
    p = run("history", "p", root, "--as-of", "2026-06-01").stdout.splitlines()
    assert p[1].startswith("  p@1  canonical  2026-01-01 → 2026-03-01  expired")
    assert not p[2].startswith("      declared:")  # the declared window is the one shown
    q = run("history", "q", root, "--as-of", "2026-06-01").stdout.splitlines()
    assert q[1].startswith("  q@1  canonical  2026-01-01 → 2026-04-01  superseded")
    assert q[2] == "      declared: 2026-01-01 → 2026-12-01"


def test_history_cycle_edges_are_marked_ignored(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "a.md": obj("a", created="2026-01-01", supersedes=["b"]),
            "b.md": obj("b", created="2026-02-01", supersedes=["a"]),
        },
        None,
    )
    out = run("history", "a", root, "--as-of", "2026-06-01").stdout
    assert "      supersedes b@1 (in a cycle; ignored)\n" in out
    assert "in effect from" not in out


# -- help ---------------------------------------------------------------------------------------


def _help(*args: str, columns: int = 80) -> str:
    proc = run(*args, "--help", env={**os.environ, "COLUMNS": str(columns)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("columns", [80, 100])
def test_every_help_fits_the_terminal(columns: int) -> None:
    for command in ["", *_commands()]:
        text = _help(*([command] if command else []), columns=columns)
        long = [line for line in text.splitlines() if len(line) > columns]
        assert not long, (command, long)


def test_wrapped_examples_are_still_whole_commands() -> None:
    text = _help("diff")
    examples = text.split("examples:\n", 1)[1]
    joined = examples.replace(" \\\n      ", " ").splitlines()
    assert all(line.startswith("  opencontext diff ") for line in joined), joined
    assert (
        "  opencontext diff sample-repo --role support --task refund --against-task discount "
        "--format json"
    ) in joined
    assert "--against-as-of \\\n" not in examples  # an option stays with its value


def test_every_option_is_described() -> None:
    for command in _commands():
        text = _help(command).split("options:\n", 1)[1].split("\n\n", 1)[0]
        entries = re.split(r"\n(?=  -)", text.rstrip("\n"))
        bare = [e for e in entries if "\n" not in e and len(re.split(r"\s{2,}", e.strip())) < 2]
        assert not bare, (command, bare)


def test_changes_help_reads_cleanly() -> None:
    text = _help("changes")
    assert "as the repository was" not in text  # no "read the repository as the repository"
    assert "read the repository as it was at this git" in text
    assert "a duration counted from --as-of (90d)" in " ".join(text.split())


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
    for command in _commands():
        assert "--color {never,auto,always}" in _help(command), command


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
