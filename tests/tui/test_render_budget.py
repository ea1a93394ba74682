"""The detail pane renders Markdown within a budget: content that would build more than
MARKDOWN_BLOCKS widgets (a table of 3,000 columns, thousands of paragraphs) is shown as
plain text (at most PLAIN_LINES lines) with a note, so selecting it never stalls the UI."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from textual.widgets import Static

from octui.tui.widgets.detail import (
    CONTENT_CAP,
    MARKDOWN_BLOCKS,
    PLAIN_LINES,
    DetailPane,
    markdown_blocks,
    parse_body,
)

from .conftest import make_app, settle
from .test_polish import clean_repo, object_text


def blocks(text: str) -> int:
    """The Markdown blocks of a body, as the detail pane counts them."""
    return markdown_blocks(parse_body(text))


STALL = 10.0
"""Seconds from selecting the object until the UI answers again: a guard against a stall
(5–38 s per case before the budget, well under 1 s after on an idle machine), generous
because the machines are shared; what the test really pins is that the content is shown
as plain text, not rendered as Markdown."""


def table(columns: int, rows: int) -> str:
    head = "|" + "|".join("h" for _ in range(columns)) + "|\n"
    rule = "|" + "|".join("-" for _ in range(columns)) + "|\n"
    return head + rule + ("|" + "|".join("x" for _ in range(columns)) + "|\n") * rows


HOSTILE = {
    "wide": table(3_000, 1),  # 18,006 characters: under CONTENT_CAP, 9,000 cells
    "long": table(2, 2_000),
    "paragraphs": "p\n\n" * 6_000,
}


def test_markdown_blocks_counts_what_the_widget_would_build() -> None:
    # heading, paragraph, list, and each item with its paragraph
    assert blocks("# T\n\ntext\n\n- a\n- b\n") == 7
    assert blocks(table(3, 1)) > 3 * 2
    for text in HOSTILE.values():
        assert len(text) <= CONTENT_CAP and blocks(text) > MARKDOWN_BLOCKS


@pytest.mark.parametrize("kind", sorted(HOSTILE))
async def test_content_past_the_budget_is_plain_text_and_never_stalls(
    tmp_path: Path, kind: str
) -> None:
    content = HOSTILE[kind]
    root = clean_repo(tmp_path / "repo", big=object_text("big", "Big", content))
    app = make_app(root, role="support")

    async def run() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            start = time.monotonic()
            app.action_jump("big")
            await pilot.pause()
            await pilot.press("down", "up")  # the UI answers keys again
            await pilot.pause()
            elapsed = time.monotonic() - start
            detail = app.query_one(DetailPane)
            assert detail.markdown_source == ""
            assert not detail.query_one("#content", Static).display
            plain = detail.query_one("#content-plain", Static)
            expected = "".join(content.splitlines(keepends=True)[:PLAIN_LINES])
            assert plain.display and str(plain.render()) == expected
            note = detail.content_note
            assert f"Shown as plain text: as Markdown it has {blocks(content):,}" in note
            assert "bundle holds it whole" in note
            if expected != content:
                assert f"truncated: {len(content) - len(expected):,} more characters" in note
            else:
                assert "truncated" not in note
            print(f"{kind}: UI answered after {elapsed:.2f} s")
            assert elapsed < STALL, f"the UI stalled {elapsed:.1f} s"

    await asyncio.wait_for(run(), timeout=120)


async def test_content_within_the_budget_is_still_markdown(tmp_path: Path) -> None:
    content = table(8, 20) + "\n# Heading\n\ntext\n"
    assert blocks(content) <= MARKDOWN_BLOCKS
    root = clean_repo(tmp_path / "repo", fine=object_text("fine", "Fine", content))
    app = make_app(root, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_jump("fine")
        await pilot.pause()
        detail = app.query_one(DetailPane)
        assert detail.markdown_source == content
        assert detail.query_one("#content", Static).display
        assert not detail.query_one("#content-plain", Static).display
        assert detail.content_note == ""
