"""Textual-free parts of the explorer: timeline layout, exports, inputs, the command line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from campaign import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from octui.analysis.history import UnknownId
from octui.core.timeutil import format_instant, parse_instant, shift
from octui.load.loader import load_repository
from octui.render.timeline import layout
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.tui.__main__ import main
from octui.tui.exporting import (
    ExportExists,
    ExportRefused,
    check_target,
    default_export_path,
    write_atomic,
)
from octui.tui.sample import default_repo, sample_repo
from octui.tui.state import Inputs
from octui.tui.widgets.inputs import parse_as_of, parse_limit, parse_min

from .conftest import SAMPLE

REPO = load_repository(SAMPLE)


def at(day: str, role: str = "support", **kw: object) -> object:
    return resolve(REPO, Query(role=role, as_of=parse_instant(day), **kw))  # type: ignore[arg-type]


# -- timeline ------------------------------------------------------------------------------


def test_timeline_lineage_edges_and_states() -> None:
    t = layout(at("2026-11-30"), "policies.refunds", 100)  # type: ignore[arg-type]
    keys = [r.obj.key for r in t.rows if r.obj is not None]
    assert keys == ["policies.refunds@1", "policies.refunds@2", "policies.refunds@3"]
    states = {r.obj.key: r.state for r in t.rows if r.obj is not None}
    assert states == {
        "policies.refunds@1": "superseded",
        "policies.refunds@2": "active",
        "policies.refunds@3": "unapproved",
    }
    edges = {(e.replacement, e.replaced): e.effective for e in t.edges}
    assert edges[("policies.refunds@2", "policies.refunds@1")] == parse_instant("2026-06-01")
    assert edges[("policies.refunds@3", "policies.refunds@2")] is None  # a draft: never
    text = "\n".join(line.text for line in t.lines)
    assert "policies.refunds@2 supersedes policies.refunds@1" in text
    assert all(len(line.text) <= 100 for line in t.lines)


def test_timeline_marker_moves_with_as_of_on_a_fixed_axis() -> None:
    march = layout(at("2026-03-15"), "policies.refunds", 120)  # type: ignore[arg-type]
    april = layout(at("2026-04-15"), "policies.refunds", 120)  # type: ignore[arg-type]
    assert (march.axis_start, march.axis_end) == (april.axis_start, april.axis_end)
    assert march.marker_column is not None and april.marker_column is not None
    assert march.marker_column < april.marker_column
    states = {r.obj.key: r.state for r in march.rows if r.obj is not None}
    assert states["policies.refunds@1"] == "active"
    assert states["policies.refunds@2"] == "not-yet-valid"


def test_timeline_denied_rows_show_only_id_and_reason() -> None:
    t = layout(at("2026-11-30"), "pricing.enterprise", 100)  # type: ignore[arg-type]
    assert t.rows and all(r.obj is None for r in t.rows)
    assert {r.state for r in t.rows} == {"classification-denied"}
    text = "\n".join(line.text for line in t.lines)
    assert "pricing/" not in text and "@" not in text  # no path, no version


def test_timeline_marks_cycle_edges() -> None:
    t = layout(at("2026-11-30", "engineering"), "decisions.2026-05-12-event-bus-sqs", 100)  # type: ignore[arg-type]
    assert t.edges and all(e.in_cycle and e.effective is None for e in t.edges)
    assert any(tag == "cycle" for line in t.lines for _, tag in line.runs)


def test_timeline_unknown_id() -> None:
    with pytest.raises(UnknownId):
        layout(at("2026-11-30"), "no.such.id", 80)  # type: ignore[arg-type]


@settings(max_examples=examples(40), deadline=None)
@given(
    width=st.integers(min_value=0, max_value=220),
    days=st.integers(min_value=-800, max_value=800),
    object_id=st.sampled_from(
        ["policies.refunds", "policies.data-retention", "mission", "policies.security"]
    ),
)
def test_timeline_never_breaks_at_any_width_or_instant(
    width: int, days: int, object_id: str
) -> None:
    from datetime import timedelta

    when = parse_instant("2026-06-01") + timedelta(days=days)
    r = resolve(REPO, Query(role="support", as_of=when, include_historical=days % 2 == 0))
    t = layout(r, object_id, width)
    widths = {len(line.text) for line in t.lines[:2]}
    assert len(widths) == 1  # axis lines are all one width
    assert t.marker_column is not None and t.marker_column >= 0


# -- exports -------------------------------------------------------------------------------


def test_export_refuses_the_repository_and_folders(tmp_path: Path) -> None:
    with pytest.raises(ExportRefused, match="inside the repository"):
        check_target(SAMPLE / "x.json", SAMPLE)
    with pytest.raises(ExportRefused, match="inside the repository"):
        check_target(SAMPLE / "policies" / ".." / "x.json", SAMPLE)
    with pytest.raises(ExportRefused, match="folder"):
        check_target(tmp_path, SAMPLE)
    with pytest.raises(ExportRefused, match="does not exist"):
        check_target(tmp_path / "missing" / "x.json", SAMPLE)
    link = tmp_path / "link"
    link.symlink_to(SAMPLE)
    with pytest.raises(ExportRefused, match="inside the repository"):
        check_target(link / "x.json", SAMPLE)


def test_export_is_atomic_and_never_overwrites_unasked(tmp_path: Path) -> None:
    target = tmp_path / "b.json"
    assert write_atomic(target, "one\n", SAMPLE) == target.resolve()
    assert target.read_text(encoding="utf-8") == "one\n"
    with pytest.raises(ExportExists):
        write_atomic(target, "two\n", SAMPLE)
    assert target.read_text(encoding="utf-8") == "one\n"
    write_atomic(target, "two\n", SAMPLE, overwrite=True)
    assert target.read_text(encoding="utf-8") == "two\n"
    assert os.listdir(tmp_path) == ["b.json"]  # no temporary file left behind


def test_default_export_path_is_outside_the_repository(tmp_path: Path) -> None:
    inside = default_export_path(SAMPLE, "support", cwd=SAMPLE / "policies")
    assert SAMPLE.resolve() not in inside.parents
    assert default_export_path(SAMPLE, "a/b", cwd=tmp_path).name == "opencontext-bundle-a_b.json"


# -- inputs --------------------------------------------------------------------------------


def test_inputs_step_and_toggle() -> None:
    start = parse_instant("2026-03-31")
    i = Inputs(role="support", as_of=start, chosen=start)
    back, forward = i.step(months=-1), i.step(days=1)
    assert back is not None and back.as_of is not None
    assert forward is not None and forward.as_of is not None
    assert format_instant(back.as_of) == "2026-02-28T00:00:00Z"
    assert format_instant(forward.as_of) == "2026-04-01T00:00:00Z"
    now = i.toggle_now()
    assert now.as_of is None and now.chosen == start
    assert now.toggle_now().as_of == start
    fresh = Inputs(role="support")
    today = fresh.toggle_now(now=parse_instant("2026-11-30T15:30:00Z"))
    assert format_instant(today.as_of) == "2026-11-30T00:00:00Z"  # type: ignore[arg-type]
    assert shift(parse_instant("2024-01-31"), months=1) == parse_instant("2024-02-29")
    q = Inputs(role="r", task="t", limit=3).query(now=start)
    assert (q.role, q.task, q.limit, q.as_of) == ("r", "t", 3, start)


def test_input_parsers() -> None:
    assert parse_as_of("now") == (True, None)
    assert parse_as_of("2026-03-15") == (True, parse_instant("2026-03-15"))
    assert parse_as_of("2026-03-15T12:00:00+02:00")[1] == parse_instant("2026-03-15T10:00:00Z")
    assert parse_as_of("March")[0] is False
    assert parse_limit("") == (True, None) and parse_limit("4") == (True, 4)
    assert parse_limit("-1")[0] is False and parse_limit("x")[0] is False
    assert parse_limit("²") == (False, None)  # a digit int() refuses must not crash
    assert parse_min("2.5") == (True, 2.5) and parse_min("nan")[0] is False


# -- command line --------------------------------------------------------------------------


def test_help_documents_the_explorer(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for word in ("REPO", "--role", "--task", "--as-of", "sample repository", "F1"):
        assert word in out


def test_unknown_role_and_bad_paths_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main([str(SAMPLE), "--role", "nobody"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "declared roles: engineering" in err
    assert main([str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main([str(SAMPLE), "--as-of", "soon"]) == 2
    assert "--as-of" in capsys.readouterr().err


def test_default_repository(tmp_path: Path) -> None:
    assert sample_repo() is not None
    assert default_repo(tmp_path) == sample_repo()
    (tmp_path / "opencontext.yaml").write_text("spec: 1\n", encoding="utf-8")
    assert default_repo(tmp_path) == tmp_path


# -- the detail pane's fields -----------------------------------------------------------------


def test_the_fields_table_is_drawn_once_per_width_and_as_rich_draws_it() -> None:
    from rich.console import Console

    from octui.tui.widgets.detail import RenderedOnce, field_rows, fields_table

    obj = REPO.objects[0]
    rows = field_rows(obj, {"path": obj.path, "source": obj.source})
    console = Console(width=50, force_terminal=True, color_system="truecolor")
    once = RenderedOnce(fields_table(rows))
    drawn = 0
    render = console.render

    def counted(renderable: Any, options: Any = None) -> Any:
        nonlocal drawn
        drawn += renderable is once.renderable
        return render(renderable, options)

    console.render = counted  # type: ignore[method-assign]
    for width in (50, 50, 30, 30, 50):
        options = console.options.update_width(width)
        assert list(render(once, options)) == list(render(fields_table(rows), options))
    assert drawn == 3  # 50, 30, then 50 again: the last width is kept
