"""A run over the files on disk imports what it runs: not the git readers (and the
``subprocess`` they need), nor the public API module the package root re-exports, nor what
only a reload uses (a command loads once), nor what only help or a cache write uses."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from octui.cli.main import terminal_columns

SAMPLE = Path(__file__).resolve().parents[2] / "sample-repo"
NEVER = ["octui.api", "octui.load.gitrun", "octui.load.known_at", "octui.load.revisions"]
NEVER += ["octui.load.hinted", "octui.load.in_place", "octui.load.kept"]  # reloads only
NEVER += ["shutil", "textwrap", "tempfile"]  # help's width and wrapping; writing a cache

PROBE = """
import contextlib, io, json, sys
from octui.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps([code, sorted(sys.modules)]))
"""


def test_resolve_over_the_working_tree_imports_no_git_reader() -> None:
    argv = [str(SAMPLE), "--role", "support", "--as-of", "2026-03-15", "--format", "json"]
    out = subprocess.run(
        [sys.executable, "-c", PROBE, "resolve", *argv, "--no-cache"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    code, modules = json.loads(out)
    assert code == 0
    assert [m for m in NEVER if m in modules] == []


def test_the_package_root_still_exports_the_api() -> None:
    import octui
    from octui import api

    for name in ("Bundle", "ContextRepository", "Finding", "OpenContextError", "open_repository"):
        assert getattr(octui, name) is getattr(api, name)


@pytest.mark.parametrize("columns", [None, "120", "7", "0", "-3", "wide", ""])
def test_the_help_width_is_the_one_shutil_gives(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns
