"""Every exclusion reason of the closed set is tested (each step's in tests/resolve/steps/,
named after the step), and an unavailable source's."""

from __future__ import annotations

from pathlib import Path

from repo_builder import (
    included_keys,
    make_repo,
    obj,
    resolve_at,
    the_exclusion,
    warnings_with,
)

from octui.core.enums import ExclusionReason, Severity

R = ExclusionReason


# -- source-unavailable --------------------------------------------------------------------------


def test_source_unavailable_exclusion_and_warning(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a.md": obj("a")},
        {
            "sources": [
                {"name": "main", "path": "."},
                {"name": "archive", "path": "archive/missing"},
            ]
        },
    )
    res = resolve_at(root)
    ex = the_exclusion(res, "archive")
    assert ex.reason is R.SOURCE_UNAVAILABLE and ex.version is None
    assert ex.detail and "archive/missing" in ex.detail
    w = warnings_with(res, "source-unavailable")
    assert len(w) == 1 and w[0].ids == ("archive",) and w[0].severity is Severity.ERROR
    assert w[0].hint
    assert included_keys(res) == ["a@1"]


def test_source_that_is_a_file_is_unavailable(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a.md": obj("a"), "notes.yaml": obj("notes")},
        {"sources": [{"name": "main", "path": "."}, {"name": "n", "path": "notes.yaml"}]},
    )
    res = resolve_at(root)
    assert the_exclusion(res, "n").reason is R.SOURCE_UNAVAILABLE


def test_every_reason_is_covered_by_this_module() -> None:
    """By this module or a step's (tests/resolve/steps/)."""
    here = Path(__file__)
    files = [here, *sorted((here.parent / "steps").glob("test_s*.py"))]
    source = "".join(f.read_text(encoding="utf-8") for f in files)
    for reason in ExclusionReason:
        assert f"R.{reason.name}" in source, reason
