"""``opencontext validate``: exit codes, findings with their files, no roles."""

from __future__ import annotations

import json
from pathlib import Path

from repo_builder import make_repo, obj

from cli.helpers import run


def test_validate_exit_codes_and_paths(clean_repo: Path, erroring_repo: Path) -> None:
    ok = run("validate", clean_repo)
    assert ok.returncode == 0, ok.stdout
    assert "0 errors" in ok.stdout
    bad = run("validate", erroring_repo, "--as-of", "2026-06-01")
    assert bad.returncode == 1
    assert "bad/broken.md" in bad.stdout
    assert "invalid-object" in bad.stdout and "duplicate-canonical" in bad.stdout
    assert "p1.md" in bad.stdout and "p3.md" in bad.stdout
    js = run("validate", erroring_repo, "--as-of", "2026-06-01", "--format", "json")
    assert js.returncode == 1
    doc = json.loads(js.stdout)
    paths = {p for f in doc["findings"] for p in f["paths"]}
    assert "bad/broken.md" in paths
    assert doc["errors"] == sum(1 for f in doc["findings"] if f["severity"] == "error") >= 2


def test_validate_ignores_roles(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {"s.md": obj("s", classification="restricted", supersedes=["ghost"])},
        {"roles": {"bot": {}}},
    )
    proc = run("validate", root)
    assert proc.returncode == 1 and "ghost" in proc.stdout and "s.md" in proc.stdout
