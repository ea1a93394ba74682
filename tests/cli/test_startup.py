"""What a command loads before it answers: only what it uses (the analyses behind other
commands are imported by those commands), and the mistakes they raise are still one line."""

from __future__ import annotations

import ast
import json
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


ENTRY = """
import atexit, sys
atexit.register(lambda: print("the interpreter shut down", file=sys.stderr))
from octui.cli.main import entry
entry()
"""


def by_entry(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    """The command line run as ``opencontext`` runs it (:func:`octui.cli.main.entry`)."""
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *map(str, argv)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def test_opencontext_ends_at_once_with_every_byte_written_and_its_exit_code() -> None:
    """The process ends without the interpreter's shutdown (which freed the repository and
    its resolution object by object), after writing and flushing all it had to say."""
    query = ("--role", "support", "--as-of", "2026-03-15", "--format", "json")
    ended = by_entry("resolve", SAMPLE_REPO, *query)
    assert ended.returncode == 0, ended.stderr
    assert ended.stderr == ""  # no shutdown: what the command made was never freed
    in_process = run("resolve", SAMPLE_REPO, *query)

    def strip(text: str) -> dict[str, object]:
        return {k: v for k, v in json.loads(text).items() if k not in ("bundle_id", "generated_at")}

    assert len(ended.stdout) > 30_000 and strip(ended.stdout) == strip(in_process.stdout)
    strict = by_entry("resolve", SAMPLE_REPO, "--role", "support", "--strict")
    assert strict.returncode == 1 and "strict:" in strict.stderr
    assert "the interpreter shut down" not in strict.stderr
    mistake = by_entry("resolve", SAMPLE_REPO, "--role", "nobody")
    assert mistake.returncode == 2 and len(mistake.stderr.splitlines()) == 1


def test_main_in_a_process_of_its_own_keeps_nothing() -> None:
    """A caller of ``main`` (a test, a host program) keeps running: nothing is held for it."""
    probe = (
        "import gc, io, contextlib, sys\n"
        "from octui.cli.main import main\n"
        "from octui.load.assemble import Repository\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(sys.argv[1:])\n"
        "gc.unfreeze()  # the held heap: get_objects() does not list what is frozen\n"
        "gc.collect()\n"
        "print(sum(isinstance(o, Repository) for o in gc.get_objects()))\n"
    )
    argv = ["resolve", str(SAMPLE_REPO), "--role", "support", "--as-of", "2026-03-15"]
    proc = subprocess.run(
        [sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=120
    )
    assert proc.stdout.strip() == "0", proc.stderr
