"""Pilot tests of the explorer's polish: honest status, readable tables, bounded detail,
inert repository text, a clock that moves, a first paint before the first load, and a
discoverable detail on small terminals."""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.widgets import Static

from octui.core.timeutil import parse_instant
from octui.session import Session
from octui.tui.app import OctuiApp
from octui.tui.widgets.detail import CONTENT_CAP, FIELD_CAP, DetailPane
from octui.tui.widgets.results import ExcludedPane, ReasonCounts, count_parts, fit_parts
from octui.tui.widgets.status import StatusBar
from octui.tui.widgets.timeline import TimelinePane

from .conftest import AS_OF, SAMPLE, make_app, screen_text, settle, wait_for


def status_text(app: OctuiApp) -> str:
    return str(app.query_one(StatusBar).render())


def status_spans(app: OctuiApp) -> list[tuple[str, str]]:
    """``(text, style)`` of every styled run in the status bar."""
    content: Any = app.query_one(StatusBar).render()
    plain = str(content)
    return [(plain[s.start : s.end], str(s.style)) for s in content.spans]


async def test_status_strict_off_says_off_and_counts_errors() -> None:
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view is not None and app.view.errors > 0
        text = status_text(app)
        assert "strict off" in text
        assert f"{app.view.errors} errors" in text
        assert "FAIL" not in text and "PASS" not in text
        assert app.view.digest.removeprefix("sha256:")[:8] in text
        assert "as_of 2026-11-30" in text and "in" in text and "out" in text


async def test_status_strict_on_says_fail_in_red() -> None:
    app = make_app(role="support", task="refund", strict=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = status_text(app)
        assert "strict FAIL" in text and "off" not in text
        assert any(run == "FAIL" and "red" in style for run, style in status_spans(app))


async def test_status_strict_on_passes_without_errors(tmp_path: Any) -> None:
    root = tmp_path / "clean"
    (root / "docs").mkdir(parents=True)
    (root / "opencontext.yaml").write_text(
        "roles:\n  support:\n    scope:\n      include: ['**']\n", encoding="utf-8"
    )
    (root / "docs" / "a.md").write_text(
        "---\nid: a\nversion: 1\nauthority: canonical\nstatus: active\ntitle: A\n"
        "type: policy\nowner: me\nlayer: L3\nclassification: public\n"
        "created: 2026-01-01\nupdated: 2026-01-01\n---\nbody\n",
        encoding="utf-8",
    )
    app = make_app(root, role="support", strict=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view is not None
        assert app.view.errors == 0, app.view.resolution.warnings
        text = status_text(app)
        assert "strict PASS" in text
        assert any(run == "PASS" and "green" in style for run, style in status_spans(app))


async def test_ids_and_details_share_the_width_at_120_columns() -> None:
    """Included ids fit in full; on Excluded the id and the detail share what the reason
    leaves, the wider giving way first (a detail cut to ``no in…`` said nothing), and an
    id too long keeps its start and its end."""
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view is not None
        longest_in = max((i.obj.id for i in app.view.included), key=len)
        assert longest_in in screen_text(app)
        await pilot.press("2")
        await settle(pilot)
        table = app.query_one(ExcludedPane).table
        widths = table.widths(table.scrollable_content_region.width)
        assert widths[3] >= 20  # the detail reads as words
        assert abs(widths[0] - widths[3]) <= 1 or widths[0] >= max(len(e.id) for e in table.rows)
        text = screen_text(app)
        for ex in table.rows[: table.scrollable_content_region.height - 1]:
            if len(ex.id) <= widths[0]:
                assert ex.id in text
            else:
                front = widths[0] // 2
                back = widths[0] - 1 - front
                assert ex.id[:front] + "…" + ex.id[len(ex.id) - back :] in text


async def test_reason_counts_fit_beside_the_filter() -> None:
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert app.view is not None
        counts = app.query_one("#reason-counts", ReasonCounts)
        lines = str(counts.render()).split("\n")
        assert 1 <= len(lines) <= 2
        assert all(len(line) <= counts.content_size.width for line in lines)
        shown = [p for line in lines for p in line.split(" · ") if not p.endswith(" more")]
        more = [
            int(p.split()[0][1:])
            for line in lines
            for p in line.split(" · ")
            if p.endswith(" more")
        ]
        parts = count_parts(app.view.reason_counts)
        assert shown == parts[: len(shown)]
        assert len(shown) + sum(more) == len(parts)
        denied = sum(n for r, n in app.view.reason_counts.items() if r.is_denial)
        assert parts[0] == f"denied {denied}"


def test_fit_parts_never_splits_and_accounts_for_everything() -> None:
    parts = [f"reason-{i} {i * 7}" for i in range(12)]
    for width in range(12, 140, 7):
        lines = fit_parts(parts, width)
        assert 1 <= len(lines) <= 2
        pieces = [p for line in lines for p in line.split(" · ")]
        more = sum(int(p.split()[0][1:]) for p in pieces if p.endswith(" more"))
        shown = [p for p in pieces if not p.endswith(" more")]
        assert shown == parts[: len(shown)] and len(shown) + more == len(parts)
        assert all(len(line) <= width for line in lines if " · " in line)


def clean_repo(root: Path, **objects: str) -> Path:
    """A small valid repository: one role reading everything; ``objects`` maps id → body."""
    (root / "docs").mkdir(parents=True)
    (root / "opencontext.yaml").write_text(
        "roles:\n  support:\n    scope:\n      include: ['**']\n", encoding="utf-8"
    )
    for object_id, text in objects.items():
        (root / "docs" / f"{object_id}.md").write_text(text, encoding="utf-8")
    return root


def object_text(object_id: str, title: str = "A", content: str = "body\n") -> str:
    return (
        f"---\nid: {object_id}\nversion: 1\nauthority: canonical\nstatus: active\n"
        f"title: {title}\ntype: policy\nowner: me\nlayer: L3\nclassification: public\n"
        f"created: 2026-01-01\nupdated: 2026-01-01\n---\n{content}"
    )


async def test_detail_caps_huge_field_values_and_content(tmp_path: Path) -> None:
    title = "T" * 500_000  # a file holds at most 1 MiB
    content = "".join(f"Paragraph {i} of a very long document.\n\n" for i in range(12_000))
    root = clean_repo(tmp_path / "huge", huge=object_text("huge", title, content))
    app = make_app(root, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view is not None and [i.obj.id for i in app.view.included] == ["huge"]
        app.action_jump("huge")
        await pilot.pause()
        detail = app.query_one(DetailPane)
        shown = dict(detail.field_rows)["title"]
        assert shown.startswith("T" * FIELD_CAP)
        assert shown.endswith(f"… {500_000 - FIELD_CAP:,} more characters")
        assert len(shown) < FIELD_CAP + 50
        # 20,000 characters of it are over 400 paragraphs: plain text, not Markdown
        assert detail.markdown_source == ""
        plain = str(detail.query_one("#content-plain", Static).render())
        assert plain.startswith("Paragraph 0 ")
        assert len(plain) <= CONTENT_CAP and content.startswith(plain)
        note = detail.content_note
        assert f"{len(content) - len(plain):,} more characters" in note
        assert "content truncated" in note and "bundle holds it whole" in note
        assert "Shown as plain text" in note


async def test_detail_shows_small_objects_whole(tmp_path: Path) -> None:
    root = clean_repo(tmp_path / "small", small=object_text("small", "Short", "# Hi\n\ntext\n"))
    app = make_app(root, role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_jump("small")
        await pilot.pause()
        detail = app.query_one(DetailPane)
        assert dict(detail.field_rows)["title"] == "Short"
        assert detail.markdown_source == "# Hi\n\ntext\n"
        assert detail.content_note == ""
        # rendered as Markdown: the heading without its mark, then the paragraph
        console = Console(width=40, record=True)
        console.print(detail.query_one("#content", Static).content)
        assert console.export_text().split() == ["Hi", "text"]


async def test_control_characters_in_role_names_are_shown_as_escapes(tmp_path: Path) -> None:
    import json

    names = ["sup\x1bport", "ops\x07bell"]
    root = tmp_path / "ctl"
    (root / "docs").mkdir(parents=True)
    config = "roles:\n" + "".join(
        f"  {json.dumps(n)}:\n    scope:\n      include: ['**']\n" for n in names
    )
    (root / "opencontext.yaml").write_text(config, encoding="utf-8")
    (root / "docs" / "a.md").write_text(object_text("a"), encoding="utf-8")
    app = make_app(root, role="ghost")  # unknown: a notification lists the declared roles
    notices: list[str] = []
    notify = app.notify

    def spy(message: str, *args: Any, **kwargs: Any) -> None:
        notices.append(message)
        notify(message, *args, **kwargs)

    app.notify = spy  # type: ignore[method-assign]
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert app.inputs.role == "sup\x1bport"  # the first declared
        assert any("declared roles: sup\\x1bport, ops\\x07bell" in n for n in notices)
        await pilot.press("r")  # open the role list
        await pilot.pause(0.3)
        listing = screen_text(app)
        assert "ops\\x07bell" in listing and "sup\\x1bport" in listing
        commands = [title for title, _, _ in app.palette_commands()]
        assert "Set role: sup\\x1bport" in commands


class SlowSession(Session):
    """A session whose first load waits until the test releases it."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.release = threading.Event()

    def load(self, changed: Any = None) -> Any:
        assert self.release.wait(20), "the test never released the load"
        return super().load(changed)


async def test_first_paint_shows_loading_until_the_first_result() -> None:
    session = SlowSession(SAMPLE)
    app = make_app(SAMPLE, role="support", session=session)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)
        assert app.view is None and not session.release.is_set()  # still loading
        assert "loading sample-repo…" in status_text(app)
        text = screen_text(app)
        assert "loading sample-repo…" in text
        assert "(no objects in the bundle)" not in text
        await pilot.press("2")  # the Excluded pane claims nothing either while loading
        await pilot.pause()
        text = screen_text(app)
        assert "loading sample-repo…" in text
        assert "nothing excluded" not in text
        session.release.set()
        await wait_for(pilot, lambda: app.view is not None)
        await settle(pilot)
        await pilot.press("1")
        await pilot.pause()
        assert app.view is not None
        assert "loading" not in status_text(app)
        assert app.view.digest.removeprefix("sha256:")[:8] in status_text(app)
        text = screen_text(app)
        assert "loading sample-repo…" not in text
        assert app.view.included[0].obj.id in text


class FakeClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


async def test_now_moves_forward_when_the_minute_changes() -> None:
    clock = FakeClock(parse_instant("2026-11-30T10:00:05Z"))
    app = make_app(role="support", as_of=None, clock=clock, clock_check=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view is not None and app.view.query.as_of == clock.now
        assert "as_of now 2026-11-30 10:00" in status_text(app)
        generation = app.generation
        clock.now = parse_instant("2026-11-30T10:00:50Z")  # same minute: nothing to redo
        await pilot.pause(0.3)
        assert app.generation == generation
        clock.now = parse_instant("2026-11-30T10:01:02Z")
        await wait_for(pilot, lambda: app.view is not None and app.view.query.as_of == clock.now)
        await settle(pilot)
        assert "as_of now 2026-11-30 10:01" in status_text(app)
        timeline = app.query_one(TimelinePane)
        assert timeline.view is app.view  # the marker is drawn at the new instant


async def test_a_chosen_instant_does_not_follow_the_clock() -> None:
    clock = FakeClock(parse_instant("2026-11-30T10:00:05Z"))
    app = make_app(role="support", clock=clock, clock_check=0.05)  # as_of 2026-11-30
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        generation = app.generation
        clock.now = parse_instant("2026-11-30T10:05:00Z")
        await pilot.pause(0.3)
        assert app.generation == generation
        assert app.view is not None and app.view.query.as_of == AS_OF


async def test_detail_and_timeline_are_discoverable_at_80x24() -> None:
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.narrow
        footer = screen_text(app).splitlines()[-1]
        assert "d Detail" in footer  # offered where a new user looks first
        side = app.query_one("#side")
        assert not side.region.width  # hidden on a narrow terminal ...
        await pilot.press("d")  # ... until asked for
        await pilot.pause()
        assert side.region.width > 0
        assert app.query_one(DetailPane).region.height > 0
        assert app.query_one(TimelinePane).region.height > 0
        assert "Timeline" in screen_text(app) and "included at rank 1" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert not side.region.width
        await pilot.press("down", "enter")  # Enter on a row opens it too
        await pilot.pause()
        assert side.region.width > 0 and "included at rank 2" in screen_text(app)
        await pilot.press("escape", "f1")
        await pilot.pause()
        help_text = screen_text(app)
        assert "Enter on a row opens" in help_text


async def test_wide_footer_keeps_the_palette_and_the_detail_key() -> None:
    """Wide, the detail is always beside the results, and d goes into it (to scroll it
    from the keyboard), so the footer offers both d and the palette."""
    app = make_app(role="support", task="refund")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        footer = screen_text(app).splitlines()[-1]
        assert "palette" in footer and "d Detail" in footer
        assert app.query_one("#side").region.width > 0
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "d Detail" in footer


async def test_status_names_the_error_count_once_and_fits_120_columns() -> None:
    app = make_app(role="engineering")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.view is not None and app.view.errors > 1
        text = status_text(app)
        assert "err)" not in text  # the count is not repeated beside the warnings
        assert text.count(f"{app.view.errors} errors") == 1
        assert len(text.strip()) <= 118  # one line at 120 columns (padding 1 each side)


async def test_a_stale_objects_detail_says_when_its_window_ran_out_and_from_what() -> None:
    """``! stale`` names the day the object stopped being fresh and what that day counts
    from: identity.brand was updated 2025-12-01 and is reviewed every 6 months (180 days)."""
    app = make_app(role="support")  # as_of 2026-11-30: past 2026-05-30
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.action_jump("identity.brand")
        await pilot.pause(0.2)
        why = " ".join(app.query_one(DetailPane).why_text.split())
        assert "included at rank" in why and "identity.brand v1" in why
        assert "! stale (fresh until 2026-05-30: updated 2025-12-01 + 180d)" in why
