"""Scale measures never change results and never leak: the held heap, the fast JSON writer,
the token tables kept in the parse cache."""

from __future__ import annotations

import enum
import gc
import json
import os
import sys
import tempfile
import weakref
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from campaign import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from octui.bundle import jsonout as fastjson
from octui.bundle.bundle import bundle_dict
from octui.core import tokens
from octui.core.model import ContextObject
from octui.load import parse_cache as cache
from octui.load.heap import release_heap
from octui.load.parse_cache import ParseStore
from octui.resolve.graph import strongly_connected
from octui.resolve.result import Query
from octui.session import Session
from octui.synth.repository import write_repository


class _Cycle:
    """Cyclic garbage: only the collector can free it."""

    def __init__(self) -> None:
        self.me = self


def test_a_loaded_repository_is_held_out_of_collector_passes(tmp_path: Path) -> None:
    write_repository(tmp_path / "repo", 60, seed=3)
    session = Session(tmp_path / "repo")
    repo = session.load()
    tracked = {id(o) for o in gc.get_objects()}  # what full passes walk (not the frozen)
    assert gc.get_freeze_count() > 0
    assert id(repo.objects) not in tracked
    assert not any(id(o.tags) in tracked for o in repo.objects if o.tags)


def test_releasing_the_held_heap_hands_it_back_to_the_collector(tmp_path: Path) -> None:
    write_repository(tmp_path / "repo", 60, seed=3)
    session = Session(tmp_path / "repo")
    session.load()
    garbage = _Cycle()
    alive = weakref.ref(garbage)
    session.load()  # holds the heap, the cycle with it
    del garbage
    gc.collect()
    assert alive() is not None  # held: no pass looks at it
    release_heap()  # what every load does first
    gc.collect()
    assert alive() is None


# -- the JSON writer: orjson where it agrees with the standard library, byte for byte ---------


def _standard(value: object) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"


def _fast(value: object) -> str:
    try:
        return fastjson.dumps_indent2(value)
    except (TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"


class _Level(enum.IntEnum):
    ONE = 1


class _Colour(enum.Enum):
    RED = "red"


class _Name(str):
    pass


EDGES: list[object] = [
    2**64,
    2**63,
    -(2**63) - 1,
    -(2**63),
    2**64 - 1,
    10**40,
    "\ud800",
    {"a": "lone \udfff surrogate"},
    {1: "a"},
    {True: 1},
    {None: 1},
    {1.5: 1},
    {_Name("k"): 1},
    1e-7,
    1e-5,
    1e-4,
    1e16,
    1e15,
    1e22,
    123456789012345680.0,
    5e-324,
    1.7976931348623157e308,
    -0.0,
    0.1,
    float("nan"),
    float("inf"),
    [float("-inf")],
    _Level.ONE,
    _Colour.RED,
    _Name("x"),
    datetime(2026, 1, 1, tzinfo=UTC),
    {"set": {1}},
    b"bytes",
]


@pytest.mark.parametrize("value", EDGES, ids=[repr(v)[:40] for v in EDGES])
def test_what_orjson_refuses_or_writes_differently_is_written_as_json_does(value: object) -> None:
    assert _fast(value) == _standard(value)


def test_a_deep_value_is_written_as_json_does() -> None:
    deep: list[object] = []
    for _ in range(400):  # deeper than orjson's limit
        deep = [deep, {"k": 1.5}]
    assert _fast(deep) == _standard(deep)


def test_every_code_point_is_escaped_as_json_does() -> None:
    points = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    assert fastjson.orjson_agrees(points)
    assert fastjson.dumps_indent2(points) == _standard(points)
    assert fastjson.dumps_indent2({"".join(points): "".join(points)}) == _standard(
        {"".join(points): "".join(points)}
    )


def test_floats_orjson_spells_like_repr_keep_the_fast_path() -> None:
    assert fastjson.orjson_agrees({"confidence": 0.75, "n": [1, 2.5, None, True]})
    assert not fastjson.orjson_agrees({"x": 1e-7})  # orjson: 1e-7, json: 1e-07
    assert not fastjson.orjson_agrees({"x": float("nan")})  # orjson: null, json: ValueError


def test_a_bundle_is_written_by_orjson_and_equals_the_standard_library(tmp_path: Path) -> None:
    write_repository(tmp_path / "repo", 80, seed=5)
    session = Session(tmp_path / "repo")
    session.load()
    query = Query(role="leadership", as_of=datetime(2026, 6, 1, tzinfo=UTC), task="refund")
    bundle = bundle_dict(session.resolve(query))
    assert fastjson.orjson_agrees(bundle)  # the fast path is taken: this test is about it
    assert fastjson.dumps_indent2(bundle) == _standard(bundle)


# -- token tables: kept in one place, persisted with the parse cache -------------------------


def test_the_parse_cache_keeps_each_objects_token_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 0)
    write_repository(tmp_path / "repo", 150, seed=4)
    Session(tmp_path / "repo", store=ParseStore(tmp_path / "repo", tmp_path / "c")).load()
    store = ParseStore(tmp_path / "repo", tmp_path / "c")
    calls = []
    original = tokens.token_table

    def counted(o: ContextObject) -> tokens.TokenTable:
        calls.append(o)
        return original(o)

    monkeypatch.setattr(tokens, "token_table", counted)
    warm = Session(tmp_path / "repo", store=store)
    repo = warm.load()
    assert store.hits > 100 and calls == []  # every table came from the cache
    for obj in repo.objects:
        assert repo.tokens.get(obj) == original(obj)  # and equals the computed one


def test_a_reload_keeps_unchanged_tables_and_recomputes_the_edited_one(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_repository(root, 60, seed=4)
    session = Session(root)
    first = session.load()
    before = {o.path: first.tokens.get(o) for o in first.objects}
    target = next(o for o in first.objects if o.path.endswith(".md"))
    path = root / target.path
    path.write_text(path.read_text(encoding="utf-8") + "\nzqxnewword appears\n", encoding="utf-8")
    (root / "aaa-first.md").write_text(  # renumbers every object after it
        "---\nid: aaa.first\nauthority: canonical\n---\nBody.\n", encoding="utf-8"
    )
    again = session.load()
    for obj in again.objects:
        table = again.tokens.get(obj)
        assert table == tokens.token_table(obj)
        if obj.path == target.path:
            assert tokens.token_mask(table, "zqxnewword") == tokens.CONTENT_BIT
        elif obj.path in before:
            assert table is before[obj.path]  # kept, not recomputed
    assert len(again.tokens) == len(again.objects)


# -- cycles: nodes without edges skip the walk, numbered exactly as the walk numbers them -----


def _tarjan(graph: list[list[int]]) -> list[int]:
    """The plain recursive Tarjan: components numbered in order of completion."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    component = [-1] * len(graph)
    stack: list[int] = []
    count = [0, 0]

    def visit(node: int) -> None:
        index[node] = low[node] = count[0]
        count[0] += 1
        stack.append(node)
        for child in graph[node]:
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif component[child] < 0:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            while True:
                top = stack.pop()
                component[top] = count[1]
                if top == node:
                    break
            count[1] += 1

    for start in range(len(graph)):
        if start not in index:
            visit(start)
    return component


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(1, 30).flatmap(
        lambda n: st.lists(st.lists(st.integers(0, n - 1), max_size=3), min_size=n, max_size=n)
    )
)
def test_strongly_connected_numbers_components_as_tarjan_does(graph: list[list[int]]) -> None:
    assert strongly_connected(graph) == _tarjan(graph)


def test_a_replaced_repository_and_its_cache_are_freed_without_the_collector(
    tmp_path: Path,
) -> None:
    """The loaded heap is held out of the collector's passes, so what a reload replaces must
    be freed by reference counting alone: the resolution cache makes no reference cycle."""
    root = tmp_path / "repo"
    write_repository(root, 60, seed=4)
    session = Session(root)
    session.load()
    query = Query(role="support", as_of=datetime(2026, 6, 1, tzinfo=UTC), task="refund")
    session.resolve(query)
    assert session.repository is not None
    assert session.cache is not None
    old_memo = weakref.ref(session.cache)
    target = next(p for p in sorted(root.rglob("*.md")) if p.name != "README.md")
    target.write_text(target.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    gc.disable()
    try:
        session.load()
        session.resolve(query)
        assert old_memo() is None
    finally:
        gc.enable()


def test_the_memo_keeps_the_facts_of_the_most_recent_roles_only(tmp_path: Path) -> None:
    from octui.bundle.bundle import digest
    from octui.resolve import cache as pipeline
    from octui.resolve.engine import resolve

    write_repository(tmp_path / "repo", 120, seed=6)
    session = Session(tmp_path / "repo")
    repo = session.load()
    roles = sorted(repo.config.roles)
    assert len(roles) > pipeline.ROLES
    when = datetime(2026, 6, 1, tzinfo=UTC)
    for role in [*roles, roles[0]]:
        query = Query(role=role, as_of=when, task="refund")
        memoised = session.resolve(query)
        assert digest(memoised) == digest(resolve(repo, query))  # no cache: the same
    assert session.cache is not None
    kept = [*roles[-(pipeline.ROLES - 1) :], roles[0]]
    assert session.cache.roles.keys() == kept


# -- the benchmark's explorer figures: timed inside the app, per kind of key -----------------


def test_the_keystroke_figures_are_per_kind_and_timed_inside_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from octui.devtools import bench_common, explorer_figures

    monkeypatch.setattr(explorer_figures, "IDLE_SECONDS", 0.2)
    monkeypatch.setattr(explorer_figures, "QUIET", 0.15)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    user = tmp_path / "user-config"  # the user's own settings: a saved theme and a role
    user.mkdir()
    monkeypatch.setenv("OCTUI_CONFIG_DIR", str(user))
    saved = '{"theme": "nord", "roles": {"/elsewhere": "sales"}}'
    (user / "settings.json").write_text(saved, encoding="utf-8")
    write_repository(tmp_path / "repo", 60, seed=3)
    data = explorer_figures.tui_worker(
        tmp_path / "repo", bench_common.ROLE, bench_common.instant(bench_common.AS_OF)
    )
    # the session kept its settings to itself, and gives the user's folder back
    assert (user / "settings.json").read_text(encoding="utf-8") == saved
    assert os.environ["OCTUI_CONFIG_DIR"] == str(user)
    keys = data["keys"]
    assert set(keys) == set(explorer_figures.KINDS)
    for kind, figures in keys.items():
        assert data["effects"][kind] > 0, kind  # every kind of key changed what is shown
        assert figures["n"] > 0
        assert 0 <= figures["echo_median_ms"] <= figures["shown_median_ms"]
        assert figures["shown_max_ms"] <= figures["settled_max_ms"]
    # resolving keys wait for a resolution the cursor never waits for: not one constant
    assert len({figures["shown_median_ms"] for figures in keys.values()}) > 1
    assert data["task_shown"] == explorer_figures.TYPED_TASK
    assert data["first_screen"] is not None and data["first_screen"] > 0
    row: dict[str, object] = {"reasons": {}}
    explorer_figures.row_figures(row, [data])
    assert row["key_ms"] == max(figures["shown_max_ms"] for figures in keys.values())
    assert row["key_worst_ms"] == row["key_ms"]  # one session: its worst key is the worst
    assert row["idle_whole_checks"] == 0  # no periodic whole-tree check in a 0.2 s window
    assert row["watch"] == "events"  # what the watcher did, not what is installed
    assert data["prefetch_views"] > 0 and data["prefetch_cpu_s"] > 0  # reported apart from idle
    assert row["reasons"] == {}


def test_repeated_explorer_sessions_keep_each_figure_of_the_best_session_and_the_spread() -> None:
    """With ``--repeat``, the explorer's figures are the best session's, as the session's
    timings are (a shared machine only adds time): per kind of key the lowest median and the
    lowest worst; the single worst key of any session and each session's figures are kept."""
    from octui.devtools import explorer_figures

    def answer(first: float, idle: float, keys: dict[str, tuple[float, float]]) -> dict[str, Any]:
        return {
            "first_screen": first,
            "first_screen_parsed": 12 if first > 1 else 0,
            "idle_cpu_pct": idle,
            "idle_whole_checks": 0,
            "prefetch_cpu_s": first / 10,
            "prefetch_views": 25,
            "watch": "events",
            "effects": {kind: 1 for kind in keys},
            "keys": {
                kind: {"n": 3, "shown_median_ms": median, "shown_max_ms": worst}
                for kind, (median, worst) in keys.items()
            },
        }

    answers = [
        answer(1.2, 0.09, {"cursor": (23.0, 57.1), "tab": (36.0, 41.0)}),
        answer(0.9, 0.07, {"cursor": (22.0, 30.0), "tab": (41.0, 48.0)}),
        answer(1.0, 0.08, {"cursor": (24.0, 31.0), "tab": (35.0, 44.0)}),
    ]
    row: dict[str, Any] = {"reasons": {}}
    explorer_figures.row_figures(row, answers)
    assert row["keys"]["cursor"] == {"n": 3, "shown_median_ms": 22.0, "shown_max_ms": 30.0}
    assert row["keys"]["tab"] == {"n": 3, "shown_median_ms": 35.0, "shown_max_ms": 41.0}
    assert row["key_ms"] == 41.0  # the tab's best worst, beyond the cursor's best worst
    assert row["key_worst_ms"] == 57.1  # not hidden: the single worst key of any session
    assert [r["key_ms"] for r in row["explorer_runs"]] == [57.1, 48.0, 44.0]
    assert row["first_screen_s"] == 0.9 and row["first_screen_parsed"] == 0
    assert row["idle_cpu_pct"] == 0.07 and row["watch"] == "events"
    assert row["reasons"] == {}
    answers[2]["effects"]["tab"] = 0  # a kind that did nothing in one session is said so
    row = {"reasons": {}}
    explorer_figures.row_figures(row, answers)
    assert "keys.tab" in row["reasons"]


def test_a_key_is_timed_from_its_event_to_the_paint_after_its_last_step() -> None:
    from types import SimpleNamespace

    from octui.tui.appclock import AppClock

    clock = AppClock.__new__(AppClock)
    clock.keys = [SimpleNamespace(time=10.0)]
    clock.paints = [10.004, 10.050, 10.120, 10.400]
    clock.steps = [10.100]  # e.g. apply_view of the new resolution
    key = clock.key((0, 0, 0), cpu=42.0)
    assert round(key.echo) == 4
    assert round(key.shown) == 120
    assert round(key.settled) == 400
    assert key.cpu == 42.0


def test_the_bench_runs_by_the_name_the_issue_gives_it() -> None:
    """``python -m octui.bench`` is the benchmark: the same command line."""
    import subprocess
    import sys

    shown = subprocess.run(
        [sys.executable, "-m", "octui.bench", "--help"], capture_output=True, text=True
    )
    assert shown.returncode == 0, shown.stderr
    assert "--sizes" in shown.stdout and "--no-tui" in shown.stdout


def test_the_bench_refuses_sizes_written_with_spaces(capsys: pytest.CaptureFixture[str]) -> None:
    """``--sizes 1000 10000`` is a mistake, not a run of 1000 alone that drops the rest
    (and every option after it)."""
    from octui.devtools import bench

    with pytest.raises(SystemExit) as exited:
        bench.main(["--sizes", "1000", "10000", "--no-tui"])
    assert exited.value.code == 2
    assert "comma-separated" in capsys.readouterr().err


def test_the_bench_measures_processes_that_read_octuis_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every measured child may read and write bytecode, even where the environment forbids
    writing it (octui's source would be compiled again in every run), and ``compiled``
    writes a package's bytecode where Python looks for it before any child runs."""
    import importlib.util

    from octui.devtools.bench_common import child_env, compiled

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = child_env(tmp_path, 1000)
    assert "PYTHONDONTWRITEBYTECODE" not in env
    package = tmp_path / "pkg"
    package.mkdir()
    modules = [package / "__init__.py", package / "mod.py"]
    for module in modules:
        module.write_text("VALUE = 1\n", encoding="utf-8")
    assert compiled(env, str(package))
    for module in modules:
        assert Path(importlib.util.cache_from_source(str(module))).is_file()


def _warm_answer(scale: float, peak: float, mismatches: list[str]) -> dict[str, object]:
    """A ``warm`` worker's answer whose timings are ``scale`` times one run's."""
    seconds = {
        "task": [0.010, 0.012, 0.011],
        "role": [0.030, 0.050, 0.040],
        "as_of": [0.020, 0.025, 0.022],
        "edit_body": [0.050, 0.060, 0.055],
        "edit_field": [0.070, 0.080, 0.090],
        "edit_scan_body": [0.2, 0.2, 0.2],
        "edit_scan_field": [0.3, 0.3, 0.3],
    }
    answer: dict[str, object] = {k: [v * scale for v in vs] for k, vs in seconds.items()}
    return answer | {
        "peak_mb": peak,
        "prepare": 0.5 * scale,
        "reparsed": 6,
        "mismatches": mismatches,
    }


def test_the_session_figures_keep_the_best_run_and_the_worst_peak_and_every_mismatch() -> None:
    """With ``--repeat``, each session timing is the best run's (its median, and its worst
    query), as the cold figures are; the peak is the highest run's, every run's medians are
    kept, and one run's mismatch makes the row not identical."""
    from octui.devtools.bench_session import session_figures

    row: dict[str, object] = {}
    slow, fast = _warm_answer(2.0, 580.0, []), _warm_answer(1.0, 575.0, [])
    session_figures(row, [slow, fast], True)
    assert (row["task_ms"], row["role_ms"], row["as_of_ms"]) == (11.0, 40.0, 22.0)
    assert row["role_max_ms"] == 50.0 and row["edit_ms"] == 80.0
    assert row["prepare_ms"] == 500.0 and row["session_peak_mb"] == 580
    assert [run["role"] for run in row["session_runs"]] == [80.0, 40.0]  # type: ignore[attr-defined]
    assert row["identical"] is True and row["mismatches"] == []

    row = {}
    session_figures(row, [fast, _warm_answer(1.0, 570.0, ["role=sales"])], True)
    assert row["identical"] is False and row["mismatches"] == ["role=sales"]


def test_both_io_floors_read_the_same_object_files(tmp_path: Path) -> None:
    """The tight I/O floor (``os.scandir``) and the one the issue measured (``pathlib``)
    walk to the same files, the loader's: hidden entries, the root's configuration and
    folders named like files left out, a nested ``opencontext.yaml`` read as an object."""
    from octui.devtools.bench_cold import (
        io_floor,
        io_floor_pathlib,
        object_files,
        pathlib_object_files,
    )

    write_repository(tmp_path / "repo", 40, seed=5)
    root = tmp_path / "repo"
    (root / ".hidden").mkdir()
    (root / ".hidden" / "x.md").write_text("---\nid: x\n---\n")
    (root / "folder.md").mkdir()
    (root / "folder.md" / "inside.md").write_text("---\nid: y\n---\n")
    (root / "folder.md" / "opencontext.yaml").write_text("id: z\n")  # the loader reads it
    tight = object_files(root)
    issue = [p for p in pathlib_object_files(root) if not p.is_dir()]
    assert sorted(map(str, issue)) == sorted(tight) and len(tight) > 40
    assert str(root / "folder.md" / "inside.md") in tight
    assert not any("/.hidden/" in p for p in tight)
    assert str(root / "folder.md" / "opencontext.yaml") in tight  # only the root's is config
    assert str(root / "opencontext.yaml") not in tight
    assert io_floor(root) >= 0 and io_floor_pathlib(root) >= 0


def _row(objects: int, scale: float) -> dict[str, object]:
    """A benchmark row whose every growth figure and floor is ``scale`` times one base."""
    figures = {
        "cold_s": 1.0,
        "cached_s": 0.3,
        "task_ms": 5.0,
        "role_ms": 24.0,
        "as_of_ms": 14.0,
        "edit_body_ms": 13.0,
        "edit_field_ms": 18.0,
        "session_peak_mb": 135.0,
        "floor_csafeloader_s": 1.1,
        "floor_io_s": 0.1,
        "floor_io_pathlib_s": 0.27,
    }
    return {"objects": objects, "identical": True, "reasons": {}} | {
        k: v * scale for k, v in figures.items()
    }


def test_the_growth_of_every_target_figure_is_judged_with_the_floors_beside_it() -> None:
    """Each step between two sizes judges the worst growth per doubling of every figure the
    growth target covers (not only the cold run), and shows how the floors grew."""
    from octui.devtools import bench

    small, big = _row(10_000, 1.0), _row(20_000, 2.1)
    line = bench.growth_verdict(small, big)
    assert "growth 10,000 → 20,000: worst cold 2.100×" in line and line.count("2.100") == 9
    assert "holds" in line and "DOES NOT HOLD" not in line and "the floors 2.10–2.10×" in line
    big["as_of_ms"] = 14.0 * 2.3
    line = bench.growth_verdict(small, big)
    assert "worst new as_of 2.300× per doubling (target ≤ 2.2) DOES NOT HOLD" in line
    # 10k → 50k is 2.32 doublings: 5.8× in all is 2.13× per doubling
    assert round(bench.per_doubling(small, _row(50_000, 5.8), "role_ms") or 0, 2) == 2.13
    assert bench.per_doubling(small, big | {"role_ms": None}, "role_ms") is None


def test_the_report_reads_earlier_runs_rows_and_refuses_anything_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--report`` measures nothing: it prints the table and the verdicts, the growth
    across files included, of rows earlier ``--json`` runs wrote; a file holding anything
    else, or a size given twice, is a one-line error naming the file and line."""
    import json

    from octui.devtools import bench

    rows = [_row(1_000, 0.1), _row(10_000, 1.0), _row(50_000, 5.8)]
    first, huge = tmp_path / "run.json", tmp_path / "run-100k.json"
    first.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    huge.write_text(json.dumps(_row(100_000, 12.0)) + "\n", encoding="utf-8")
    assert bench.main(["--report", str(first), str(huge)]) == 0
    out = capsys.readouterr().out
    assert "| 100,000 |" in out
    assert "growth 10,000 → 50,000: worst cold 2.132×" in out
    assert "growth 50,000 → 100,000: worst cold 2.069×" in out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rows[0]) + "\n[bench 10:00:00] a log line\n", encoding="utf-8")
    for argv, why in (
        ([str(bad)], f"{bad}:2: not a row of the benchmark's --json output"),
        ([str(first), str(first)], f"{first}:1: 1,000 objects again (first at {first}:1)"),
        ([str(tmp_path / "none.json")], "cannot be read"),
    ):
        with pytest.raises(SystemExit) as exited:
            bench.main(["--report", *argv])
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err


def test_the_agenda_figures_are_the_commands_and_the_explorers() -> None:
    """The benchmark's agenda is timed twice against one resolution: as ``changes`` makes
    it (every point's digests) and as the explorer makes it (the same points, no digest);
    with ``--repeat``, each time the best run's."""
    from octui.devtools.bench_session import agenda_figures

    row: dict[str, object] = {}
    slow = {"resolution": 0.3, "agenda": 1.3, "agenda_explorer": 0.5, "points": 180}
    fast = {"resolution": 0.2, "agenda": 1.0, "agenda_explorer": 0.45, "points": 180}
    agenda_figures(row, [slow, fast])
    assert (row["agenda_s"], row["agenda_ratio"]) == (1.0, 5.0)
    assert (row["agenda_explorer_s"], row["agenda_explorer_ratio"]) == (0.45, 2.2)
    assert row["agenda_points"] == 180 and row["agenda_resolution_s"] == 0.2


def test_the_growth_run_interleaves_the_sizes_and_keeps_each_ones_best_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--growth`` writes every size's repository, then measures in rounds, each size in
    turn within a round, and keeps each figure's best round: a machine twice as slow in
    the first round (a drift the plain benchmark would put between its sizes) leaves the
    growth octui's own, 2× per doubling here."""
    import octui.synth.repository as synth
    from octui.devtools import bench, bench_growth

    calls: list[tuple[int, str]] = []
    rounds_seen: dict[int, int] = {}

    def slowness(size: int) -> float:  # the first round of each size ran twice as slow
        return 2.0 if rounds_seen[size] == 1 else 1.0

    def floors(row: dict[str, Any], repo: Path, repeat: int) -> None:
        size = row["objects"]
        rounds_seen[size] = rounds_seen.get(size, 0) + 1
        calls.append((size, "floors"))
        scale = size / 1000 * slowness(size)
        row.update(files=size, floor_csafeloader_s=1.1 * scale, floor_io_s=0.1 * scale)
        row["floor_io_pathlib_s"] = 0.27 * scale

    def whole(row: dict[str, Any], repo: Path, env: dict[str, str], repeat: int) -> bool:
        size = row["objects"]
        calls.append((size, "cold"))
        row.update(cold_s=size / 1000 * slowness(size), cached_s=0.3 * size / 1000)
        return True

    def worker(kind: str, repo: Path, env: dict[str, str]) -> dict[str, object]:
        size = int(repo.name.split("-")[1])
        calls.append((size, kind))
        peak = 100.0 * size / 1000 * (1.1 if rounds_seen[size] == 1 else 1.0)
        return _warm_answer(size / 1000 * slowness(size), peak, [])

    monkeypatch.setattr(synth, "write_repository", lambda path, n, seed: path.mkdir())
    monkeypatch.setattr(bench_growth, "compiled", lambda env: True)
    monkeypatch.setattr(bench_growth, "floor_figures", floors)
    monkeypatch.setattr(bench_growth, "cold_figures", whole)
    monkeypatch.setattr(bench_growth, "run_worker", worker)
    rows = bench_growth.measure_growth([1000, 2000], tmp_path, 1, 2)
    one_round = [(size, step) for size in (1000, 2000) for step in ("floors", "cold", "warm")]
    assert calls == one_round * 2
    small, big = rows
    assert small["cold_s"] == 1.0 and big["cold_s"] == 2.0  # each the best round's
    assert small["floor_csafeloader_s"] == 1.1 and big["floor_io_pathlib_s"] == 0.54
    assert [run["cold_s"] for run in small["whole_runs"]] == [2.0, 1.0]
    assert small["role_ms"] == 40.0 and big["role_ms"] == 80.0
    assert big["session_peak_mb"] == 220 and small["identical"] is True  # the highest
    line = bench.growth_verdict(small, big)
    assert "2.000× per doubling (target ≤ 2.2) holds" in line and "floors 2.00–2.00×" in line

    calls.clear()
    rounds_seen.clear()

    def made(prefix: str) -> str:
        (tmp_path / "again").mkdir()
        return str(tmp_path / "again")

    monkeypatch.setattr(tempfile, "mkdtemp", made)
    assert bench.main(["--growth", "--sizes", "1000,2000", "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    assert "growth 1,000 → 2,000: worst" in out and "holds" in out
    assert "| 2,000 |" in out and "keystroke" not in out  # only what the growth covers
    assert not (tmp_path / "again").exists()  # the repositories are removed
    for argv, why in (
        (["--sizes", "1000"], "--growth: give at least two sizes"),
        (["--sizes", "1000,2000", "--repeat", "1"], "--growth: give at least two rounds"),
    ):
        with pytest.raises(SystemExit) as exited:
            bench.main(["--growth", *argv])
        assert exited.value.code == 2
        assert why in capsys.readouterr().err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's inherited peak")
def test_a_workers_peak_memory_is_its_own_not_the_benchmarks(tmp_path: Path) -> None:
    """A worker reports its own peak memory, not the benchmark's: Linux carries a parent's
    peak into its child across ``fork`` and ``exec`` (``ru_maxrss``), and the benchmark
    holds the repositories it has written (with ``--growth``, every one of them)."""
    from octui.devtools.bench_cold import peak_of, resolve_argv
    from octui.devtools.bench_common import child_env, run_child

    repo = tmp_path / "org"
    write_repository(repo, 40, 1)
    held = b"x" * (400 << 20)  # what the benchmark holds when it starts the worker
    result = run_child(resolve_argv(repo, "--no-cache"), child_env(tmp_path, 40))
    assert result["code"] == 0, result["err"]
    assert 0 < peak_of(result) < 200 < len(held) >> 20
