"""Row keys and column widths computed in the worker thread give the same table as
computing them on refill (the UI thread then only formats what is on screen)."""

from __future__ import annotations

from campaign import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.app import App, ComposeResult

from octui.core.enums import ExclusionReason, WarningCode
from octui.core.model import Exclusion, Finding
from octui.core.textsafe import inert
from octui.load.loader import load_repository
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.tui.measure import line_width, longest, longest_line, text_width
from octui.tui.state import (
    ALL_REASONS,
    excluded_key,
    included_key,
    key_index,
    make_view,
    warning_ids,
)
from octui.tui.widgets.cells import Column
from octui.tui.widgets.results import ExcludedPane, IncludedTable, WarningsTable, one_line
from octui.tui.widgets.rowtable import RowTable

from .conftest import AS_OF, SAMPLE, make_app, settle, table_lines

STRANGE_IDS = [
    "plain-ascii-id",
    "café-crème",  # accented: one cell each
    "日本語の決定",  # wide: two cells each
    "emoji-🎉-party",
    "ctrl-\x1b[31m-red",  # escapes become visible text, wider than the raw string
    "two\nlines",
    "tab\there",
    "bidi-\u202e-override",
    "ｆｕｌｌｗｉｄｔｈ",
]


@settings(max_examples=examples(80), deadline=None)
@given(st.text(max_size=30))
def test_widths_equal_cell_len_of_the_inert_line(text: str) -> None:
    assert text_width(text) == cell_len(text)
    assert line_width(text) == cell_len(inert(text, keep_newlines=False))


def test_strange_ids_are_measured_like_cell_len() -> None:
    expected = max(cell_len(one_line(s)) for s in STRANGE_IDS)
    assert longest_line(STRANGE_IDS) == expected
    assert longest(map(one_line, STRANGE_IDS)) == expected
    assert line_width("日本語の決定") == 12 and line_width("ｆｕｌｌｗｉｄｔｈ") == 18
    assert line_width("ctrl-\x1b[31m-red") == len("ctrl-\\x1b[31m-red")
    assert line_width(None) == 0 and longest_line([]) == 0 and longest([]) == 0


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.none() | st.text(max_size=12)))
def test_the_longest_line_is_the_widest_inert_line(texts: list[str | None]) -> None:
    # all printable ASCII (measured at once, joined) or not (measured one by one)
    assert longest_line(texts) == max(map(line_width, texts), default=0)
    ascii_only = [t for t in texts if t is None or (t.isascii() and t.isprintable())]
    assert longest_line(ascii_only) == max(map(line_width, ascii_only), default=0)


def test_row_keys_name_each_object_once() -> None:
    resolution = resolve(load_repository(SAMPLE), Query(role="support", as_of=AS_OF))
    included, exclusions = resolution.included, resolution.exclusions
    assert len(included) > 1 and len(exclusions) > 1
    assert [included_key(i) for i in included] == [i.obj.path for i in included]
    assert len(set(map(included_key, included))) == len(included)
    assert [excluded_key(e) for e in exclusions] == [(e.id, e.version or 0) for e in exclusions]


def test_key_index_keeps_the_first_position_of_a_key() -> None:
    rows = ["a", "b", "a", "c", "b"]
    assert key_index(rows, lambda r: r) == {"a": 0, "b": 1, "c": 3}
    assert key_index([], lambda r: r) == {}


class StrangeApp(App[None]):
    def compose(self) -> ComposeResult:
        for name in ("computed", "given"):
            yield RowTable(
                [
                    Column("#", 3, "right"),
                    Column("id", None, min_width=4, fit=one_line),
                    Column("rest", None, min_width=6),
                ],
                lambda row, i: ((str(i), ""), (one_line(row), ""), ("tail", "")),
                key=lambda row: row,
                id=name,
            )


async def test_precomputed_widths_render_like_computed_ones_with_wide_text() -> None:
    app = StrangeApp()
    async with app.run_test(size=(80, 24)) as pilot:
        computed = app.query_one("#computed", RowTable)
        given_ = app.query_one("#given", RowTable)
        computed.set_rows(STRANGE_IDS)
        given_.set_rows(
            STRANGE_IDS,
            index=key_index(STRANGE_IDS, lambda r: r),
            widths={1: longest_line(STRANGE_IDS)},
        )
        await pilot.pause()
        natural = max(cell_len(one_line(s)) for s in STRANGE_IDS)
        assert computed.widths(80)[1] == given_.widths(80)[1] == natural
        assert table_lines(computed) == table_lines(given_)
        wide = table_lines(given_)[1 + STRANGE_IDS.index("日本語の決定")]
        assert cell_len(wide) == 80 and "日本語の決定" in wide
        # the cursor follows its key through a refill with a given index
        given_.move_to(STRANGE_IDS.index("emoji-🎉-party"))
        rest = STRANGE_IDS[3:]
        given_.set_rows(rest, index=key_index(rest, lambda r: r), widths={1: longest_line(rest)})
        assert given_.current_row == "emoji-🎉-party" and given_.cursor == 0
        # a column whose width is not given is measured (a label wider than every cell counts)
        given_.set_rows(["x"], index={"x": 0}, widths={})
        assert given_._natural == {1: cell_len("id")}


async def test_explorer_tables_match_computing_widths_on_refill() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        assert app.view is not None
        included = app.query_one("#included-table", IncludedTable)
        excluded = app.query_one(ExcludedPane)
        warnings = app.query_one("#warnings-table", WarningsTable)
        tables: list[tuple[str, RowTable]] = [
            ("tab-included", included),
            ("tab-excluded", excluded.table),
            ("tab-warnings", warnings),
        ]
        for tab, table in tables:
            app.action_show_tab(tab)
            await pilot.pause()
            assert len(table.rows) > 1
            table.move_to(1)
            await pilot.pause()
            before = (dict(table._natural), dict(table._index), table_lines(table))
            assert len(before[2]) > 2 and any(line.strip() for line in before[2][1:])
            table.set_rows(list(table.rows))  # measured and indexed here, the old way
            assert (dict(table._natural), dict(table._index), table_lines(table)) == before
        assert included._natural and excluded.table._natural and warnings._natural


async def test_warning_ids_are_whole_when_they_fit_and_cut_in_their_middle_when_not() -> None:
    """The Warnings tab's ids column is measured as the other id columns are: a short id is
    shown whole, a long one keeps its start and its end (its start alone would name a folder,
    ``procedures.…``), and the message shares the line with it instead of taking it all."""
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        warnings = app.query_one("#warnings-table", WarningsTable)
        app.action_show_tab("tab-warnings")
        await pilot.pause()
        shown = table_lines(warnings)
        security = next(
            line for line in shown if "broken-reference" in line and "policies.s" in line
        )
        assert " policies.security " in security
        ambiguous = next(line for line in shown if "conflict-ambiguous" in line)
        cell = ambiguous.split("conflict-ambiguous", 1)[1].split()[0]
        assert cell.startswith("procedures.") and "…" in cell and cell.endswith("escalation")
        widths = warnings.widths(warnings.size.width)
        assert widths[2] >= 16 and widths[3] >= 16  # neither takes the whole line


def test_warning_ids_are_measured_alike_in_the_worker_and_by_the_table() -> None:
    """The worker measures the raw ids with :func:`longest_line` (their width once made
    inert on one line); the table, when it measures them itself, measures its column's
    ``fit``: the same width, escapes and wide characters included."""
    fit = WarningsTable().columns[2].fit
    assert fit is not None
    for text in STRANGE_IDS:
        w = Finding(WarningCode.STALE, (text, "plain"), "message")
        assert text_width(fit(w)) == longest_line([warning_ids(w)]), text


def test_view_partitions_exclusions_by_reason_in_order() -> None:
    resolution = resolve(load_repository(SAMPLE), Query(role="support", as_of=AS_OF))
    view = make_view(resolution, 1)
    assert view.included_rows is not None and view.warning_rows is not None
    assert list(view.included_rows.rows) == resolution.included
    assert view.included_rows.index == key_index(resolution.included, included_key)
    assert view.included_rows.id_width == max(
        cell_len(one_line(i.obj.id)) for i in resolution.included
    )
    # the Warnings tab lists errors first, each severity keeping the bundle's order
    errors = [w for w in resolution.warnings if w.severity == "error"]
    others = [w for w in resolution.warnings if w.severity != "error"]
    assert view.warning_rows.rows == errors + others
    reasons = {e.reason.value for e in resolution.exclusions}
    assert len(reasons) > 1
    assert set(view.excluded_rows) == reasons | {ALL_REASONS}
    for reason, prepared in view.excluded_rows.items():
        expected: list[Exclusion] = [
            e
            for e in resolution.exclusions
            if reason == ALL_REASONS or e.reason is ExclusionReason(reason)
        ]
        assert list(prepared.rows) == expected
        assert prepared.index == key_index(expected, excluded_key)
        assert prepared.id_width == max(cell_len(one_line(e.id)) for e in expected)
    assert view.errors == sum(1 for w in resolution.warnings if w.severity == "error")
