"""The virtualised table at tens of thousands of rows: only visible lines are formatted."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from octui.tui.widgets.cells import Column
from octui.tui.widgets.rowtable import RowTable

N = 50_000


class TableApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.formatted: list[int] = []
        self.selected: list[Any] = []

    def on_row_table_selected(self, event: RowTable.Selected) -> None:
        self.selected.append(event.row)

    def compose(self) -> ComposeResult:
        def cells(row: int, index: int) -> tuple[tuple[str, str], ...]:
            self.formatted.append(index)
            return ((str(row), ""), (f"object-{row}", ""))

        yield RowTable([Column("#", 6, "right"), Column("id")], cells, key=lambda r: r)


async def focused(app: TableApp, pilot: Pilot[None]) -> RowTable:
    """The app's table holding ``N`` rows, focused and painted."""
    table = app.query_one(RowTable)
    table.set_rows(list(range(N)))
    table.focus()
    await pilot.pause()
    return table


async def test_fifty_thousand_rows_render_only_what_is_visible() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = await focused(app, pilot)
        assert len(set(app.formatted)) < 40  # a screenful, not 50,000
        app.formatted.clear()
        await pilot.press("end")
        await pilot.pause()
        assert table.current_row == N - 1
        assert set(app.formatted) <= set(range(N - 40, N))
        # the cursor follows its row when rows are replaced (same key, new position)
        table.move_to(1234)
        table.set_rows(list(range(1000, N)))
        assert table.current_row == 1234 and table.cursor == 234
        await pilot.press("pagedown")
        assert table.cursor > 234


async def test_click_selects_and_empty_table() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(RowTable)
        table.set_rows([])
        await pilot.pause()
        assert table.current_row is None
        table.set_rows(list(range(10)))
        await pilot.pause()
        await pilot.click(RowTable, offset=(3, 4))  # header is line 0: row index 3
        await pilot.pause()
        assert table.current_row == 3
        await pilot.click(RowTable, offset=(3, 4), times=2)
        await pilot.pause()
        assert app.selected == [3]


async def test_a_paint_works_out_the_column_widths_once() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(RowTable)
        table.set_rows(list(range(100)))
        await pilot.pause()
        worked: list[int] = []
        original = table.widths

        def counted(total: int) -> list[int]:
            worked.append(total)
            return original(total)

        table.widths = counted  # type: ignore[method-assign]
        region = table.size.region
        table.refresh()  # (no line kept from the last paint: every line drawn)
        lines = table.render_lines(region)
        assert len(lines) == region.height > 10
        assert len(worked) == 1
        assert [line.text.rstrip() for line in lines] == [
            table.render_line(y).text.rstrip() for y in range(region.height)
        ]


async def test_a_cursor_move_draws_the_two_rows_it_changes() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = await focused(app, pilot)
        app.formatted.clear()
        await pilot.press("down")
        await pilot.pause()
        assert table.cursor == 1
        assert sorted(set(app.formatted)) == [0, 1]  # the row left and the row reached
        app.formatted.clear()
        await pilot.press("pagedown")  # (past the screen: the table scrolls, all is drawn)
        await pilot.pause()
        assert len(set(app.formatted)) > 10
