"""``opencontext synth``: writes a repository, refuses a used folder."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from octui.cli.main import main
from octui.synth.repository import write_repository


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _written(root: Path, n: int, seed: int) -> Path:
    write_repository(root, n, seed)
    return root


def test_cli_writes_a_repository_and_refuses_a_used_folder(tmp_path: Path) -> None:
    out = tmp_path / "new"
    code, stdout, _ = run_cli("synth", str(out), "--objects", "40", "--seed", "2")
    assert code == 0 and "40" in stdout
    assert (out / "opencontext.yaml").is_file()
    assert files_of(out) == files_of(_written(tmp_path / "again", 40, 2))
    code, _, stderr = run_cli("synth", str(out), "--objects", "40")
    assert code == 2 and len(stderr.strip().splitlines()) == 1 and str(out) in stderr
    with pytest.raises(SystemExit) as exc:
        run_cli("synth", str(tmp_path / "x"), "--objects", "0")
    assert exc.value.code == 2
    assert not (tmp_path / "x").exists()
