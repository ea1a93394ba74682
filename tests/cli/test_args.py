"""The arguments every command that reads a repository shares (octui/cli/args.py): the same
``--rev``, ``--known-at``, ``--no-cache``, ``--as-of`` and ``--format`` everywhere."""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

from octui.cli.main import build_parser, main, named_command
from octui.load import parse_cache
from octui.load.parse_cache import ParseStore
from octui.synth.repository import write_repository

READS_A_REPOSITORY = ("resolve", "validate", "history", "diff", "changes", "audit")


@pytest.fixture(scope="module")
def synth_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough files for the parse cache to keep a file."""
    root = tmp_path_factory.mktemp("synth") / "repo"
    write_repository(root, 150, seed=3)
    return root


def run_cli(*argv: str | Path) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in argv])
    return code, out.getvalue()


#: Each command's arguments after REPO.
ARGS = {
    "diff": ["--role", "support", "--as-of", "2026-01-01", "--against-as-of", "2026-12-01"],
    "changes": ["--role", "support", "--as-of", "2026-01-01", "--until", "2026-12-31"],
}


@pytest.mark.parametrize("command", ["diff", "changes"])
def test_no_cache_neither_reads_nor_writes_the_parse_cache(
    command: str, synth_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OCTUI_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(parse_cache, "RACY_NS", 0)  # files written just now are cached too
    opened: list[Path] = []

    class Spy(ParseStore):
        def __init__(self, root: str | Path, directory: Path, *, snapshots: bool = False) -> None:
            opened.append(Path(root))
            super().__init__(root, directory, snapshots=snapshots)

    monkeypatch.setattr(parse_cache, "ParseStore", Spy)
    argv: list[str | Path] = [command, synth_repo, *ARGS[command]]
    code, no_cache = run_cli(*argv, "--no-cache")
    assert code == 0 and opened == [] and not (tmp_path / "xdg").exists()  # nothing written
    code, cold = run_cli(*argv)  # without --no-cache the command reads through the cache
    stored = sorted((tmp_path / "xdg" / "octui").glob("*.pickle"))  # the parses
    assert code == 0 and opened == [synth_repo] and len(stored) == 1
    code, cold = run_cli(*argv)  # served by the parse cache whole: the snapshot is kept too
    stored = sorted((tmp_path / "xdg" / "octui").glob("*.pickle"))
    assert code == 0 and len(stored) == 2
    before = [(p.read_bytes(), p.stat().st_mtime_ns) for p in stored]
    opened.clear()
    code, again = run_cli(*argv, "--no-cache")  # a cache exists now: still neither read ...
    assert code == 0 and opened == []
    assert [(p.read_bytes(), p.stat().st_mtime_ns) for p in stored] == before  # ... nor written
    assert no_cache == cold == again


def test_every_command_that_reads_a_repository_takes_the_shared_options() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in READS_A_REPOSITORY:
        command: argparse.ArgumentParser = sub.choices[name]
        flags = {flag for action in command._actions for flag in action.option_strings}
        assert {"--rev", "--known-at", "--no-cache", "--as-of", "--format"} <= flags, name
        assert command.get_default("repo") == ".", name  # REPO: the current folder


LINES = [
    ["resolve", "repo", "--role", "support", "--task", "refund", "--format", "json"],
    ["validate", "repo", "--format", "json", "--color", "never"],
    ["audit", "repo", "--as-of", "2026-03-15"],
    ["diff", "repo", "--role", "support", "--rev", "HEAD~1"],
    ["resolve", "repo", "--role", "support", "--version"],  # a root option after a command
    ["resolve", "repo", "--no-such-option"],
    ["resolve", "--help"],
    ["synth", "--help"],
]


@pytest.mark.parametrize("line", LINES, ids=[" ".join(line) for line in LINES])
def test_a_command_parsed_by_its_parser_alone_parses_as_by_the_whole(
    line: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """main() builds only the parser of the command a line names: the same arguments, the
    same errors and help, word for word."""
    assert named_command(line) == line[0]
    answers = []
    for parser in (build_parser(), build_parser(named_command(line))):
        try:
            parsed = vars(parser.parse_args(line))
            parsed.pop("root_parser")
            parsed.pop("run")
            code: object = None
        except SystemExit as exc:
            parsed, code = {}, exc.code
        out = capsys.readouterr()
        answers.append((parsed, code, out.out, out.err))
    assert answers[0] == answers[1]


def test_a_line_naming_no_command_or_completion_gets_the_whole_parser() -> None:
    assert named_command([]) is None
    assert named_command(["--help"]) is None
    assert named_command(["resolv"]) is None
    assert named_command(["completion", "bash"]) is None  # it prints the whole parser
