"""The layouts of an audit: CSV cells that never run, inert text and Markdown, the report."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from analysis.test_audit import audit_of
from conftest import SAMPLE_REPO
from repo_builder import make_repo, obj

from octui.render.audit import render_csv, render_markdown, render_text


def test_csv_cells_never_run_as_formulas(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"=cmd.md": obj("x"), "@sum.md": obj("y")})
    rows = list(csv.reader(io.StringIO(render_csv(audit_of(root)))))
    assert [r[2] for r in rows[1:]] == ["'=cmd.md", "'@sum.md"]


def test_text_and_markdown_make_repository_text_inert(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"p.md": obj("p", authority="x\x1b]52;c;AAAA\x07[link](http://e)")})
    result = audit_of(root)
    assert "\x1b" not in render_text(result) and "\\x1b" in render_text(result)
    md = render_markdown(result)
    assert "\x1b" not in md and "[link](http" not in md and "\\[link\\](http" in md


def test_markdown_report(tmp_path: Path) -> None:
    result = audit_of(SAMPLE_REPO)
    md = render_markdown(result)
    assert md.startswith("# Audit of the context repository\n")
    assert "## Findings: 7 errors, 12 warnings" in md
    assert "  - files: `pricing/team.v1.md:17`" in md
    assert "| role | included | excluded | errors | warnings |" in md
    differing = [o for o in result.objects if o.differs]
    same = [o for o in result.objects if not o.differs]
    assert differing and same
    table = md.split("## Objects whose fate differs between roles")[1]
    assert f"({len(differing)})" in table
    assert all(f"`{o.obj.path}`" in table for o in differing)
    assert not any(f"`{o.obj.path}`" in table for o in same)
    assert render_markdown(result) == md  # deterministic
