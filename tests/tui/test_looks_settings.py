"""Looks and settings: --theme, the remembered theme and role, readable light colours, NO_COLOR."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment

from octui.core.timeutil import parse_instant
from octui.tui import settings as settings_mod
from octui.tui.__main__ import main
from octui.tui.looks import READABLE_LIGHT, STATUS_COLOURS
from octui.tui.settings import load_settings, remember_role, save_settings
from octui.tui.widgets.rowtable import RowTable

from .conftest import SAMPLE, make_app, screen_text, settle

MARCH = parse_instant("2026-03-15")


def saved() -> dict[str, Any]:
    path = settings_mod.settings_path()
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


# -- the settings file ------------------------------------------------------------------


def test_settings_live_in_the_overridden_folder(_own_settings: Path) -> None:
    assert settings_mod.settings_path() == _own_settings / "settings.json"
    assert remember_role(SAMPLE, "sales")
    assert saved() == {"roles": {str(SAMPLE.resolve()): "sales"}}


@pytest.mark.parametrize(
    "content", ["", "{", "[1, 2]", '{"theme": 3, "roles": [1]}', '{"roles": {"a": 1}}', "\xff"]
)
def test_a_bad_settings_file_reads_as_empty_and_is_repaired(content: str) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8", "surrogateescape") if content != "\xff" else b"\xff")
    assert load_settings() == settings_mod.Settings()
    assert remember_role(SAMPLE, "sales")
    assert load_settings().role_for(SAMPLE) == "sales"


def test_an_unwritable_settings_folder_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("OCTUI_CONFIG_DIR", str(blocker / "sub"))
    assert not save_settings(settings_mod.Settings(theme="nord"))
    assert load_settings() == settings_mod.Settings()


# -- theme ------------------------------------------------------------------------------


async def test_theme_flag_applies_for_this_run_only() -> None:
    app = make_app(theme="textual-light")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.theme == "textual-light"
        assert not app.current_theme.dark
    assert "theme" not in saved()


def test_unknown_theme_is_a_one_line_error_listing_the_themes() -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([str(SAMPLE), "--theme", "gospel"])
    assert code == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("octui: error: unknown theme 'gospel'; themes: ")
    assert "textual-light" in lines[0] and "nord" in lines[0]


async def test_theme_chosen_in_the_explorer_is_remembered() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.theme = "nord"  # what the palette's theme command does
        await pilot.pause()
        await pilot.pause()
    assert saved()["theme"] == "nord"
    again = make_app()
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert again.theme == "nord"
    # --theme wins for its run, and does not replace the saved choice
    flagged = make_app(theme="textual-light")
    async with flagged.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert flagged.theme == "textual-light"
    assert saved()["theme"] == "nord"


# -- the role the explorer opens on -----------------------------------------------------


async def test_opens_on_the_first_declared_role_not_the_first_sorted(repo_factory: Any) -> None:
    root = repo_factory(
        {"docs/a.md": {"id": "a"}},
        config={
            "roles": {
                "zeta": {"scope": {"include": ["**"]}},
                "alpha": {"scope": {"include": ["**"]}},
            }
        },
    )
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.inputs.role == "zeta"
        assert app.view is not None and app.view.query.role == "zeta"


async def test_reopens_on_the_last_role_used_for_this_repository(repo_copy: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.inputs.role == "support"
        app.set_role("sales")
        await settle(pilot)
    assert saved()["roles"] == {str(SAMPLE.resolve()): "sales"}
    again = make_app()
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert again.inputs.role == "sales"
        assert again.view is not None and again.view.query.role == "sales"
    other = make_app(repo_copy)  # another repository: its own first declared role
    async with other.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert other.inputs.role == "support"
    explicit = make_app(role="leadership")  # --role still wins
    async with explicit.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert explicit.inputs.role == "leadership"


async def test_a_remembered_role_no_longer_declared_is_ignored_quietly() -> None:
    remember_role(SAMPLE, "retired-role")
    app = make_app()
    notices: list[str] = []
    notify = app.notify

    def spy(message: str, *args: Any, **kwargs: Any) -> None:
        notices.append(message)
        notify(message, *args, **kwargs)

    app.notify = spy  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.inputs.role == "support"
    assert not any("retired-role" in n for n in notices)


# -- readable colours -------------------------------------------------------------------


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


async def test_status_colours_are_readable_on_every_light_theme() -> None:
    from rich.color import Color as RichColor
    from textual.color import Color

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        light = [  # ansi-light is made of the terminal's own colours: its palette is the user's
            name
            for name, t in app.available_themes.items()
            if not t.dark and not str(t.primary).startswith("ansi_")
        ]
        assert "textual-light" in light
        assert app.ansi_theme_light is READABLE_LIGHT
        worst: list[tuple[float, str, str, str]] = []
        for name in light:
            app.theme = name
            await pilot.pause()
            variables = app.get_css_variables()
            for surface in ("background", "surface", "panel"):
                parsed = Color.parse(variables[surface])
                bg = parsed.rgb
                for colour in STATUS_COLOURS:
                    triplet = RichColor.parse(colour).get_truecolor(READABLE_LIGHT)
                    fg = (triplet.red, triplet.green, triplet.blue)
                    worst.append((_contrast(fg, bg), name, surface, colour))
        assert min(worst)[0] >= 4.5, min(worst)


async def test_cell_colours_give_way_to_the_cursor() -> None:
    """A blue not-yet-valid on the (blue) cursor row was unreadable."""
    app = make_app(role="support", theme="textual-light")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_jump("policies.ai-assistant-disclosure")
        await pilot.pause()
        table = app.main.query_one("#excluded-table", RowTable)
        cursor_line = table.cursor - round(table.scroll_y) + 1
        segments: list[Segment] = list(table.render_line(cursor_line))
        reason = next(s for s in segments if "not-yet-valid" in s.text)
        name = next(s for s in segments if "policies.ai" in s.text)  # (its middle may be cut)
        assert reason.style is not None and name.style is not None
        assert reason.style.color == name.style.color  # the cursor's foreground, not blue
        # off the cursor the reason keeps its colour
        table.move_to(0 if table.cursor else 1)
        await pilot.pause()
        segments = list(table.render_line(cursor_line))
        reason = next(s for s in segments if "not-yet-valid" in s.text)
        assert reason.style is not None and reason.style.color is not None
        assert reason.style.color.name == "blue"


# -- NO_COLOR ---------------------------------------------------------------------------


async def test_no_color_pin_differences_have_glyphs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(role="support", as_of=MARCH)
    async with app.run_test(size=(130, 40)) as pilot:
        assert app.no_color
        await settle(pilot)
        await pilot.press("p")
        for _ in range(3):
            await settle(pilot)
            await app.workers.wait_for_complete()
        app.set_as_of(parse_instant("2026-11-30"))
        for _ in range(3):
            await settle(pilot)
            await app.workers.wait_for_complete()
        await pilot.pause()
        text = screen_text(app)
        included = app.main.query_one("#included-table", RowTable)
        keys = [r.obj.key for r in included.rows]
        new_row = keys.index("policies.refunds@2") + 1
        unchanged = keys.index("mission@1") + 1
        lines = text.splitlines()
        assert any(line.lstrip().startswith(f"+{new_row} ") for line in lines), text
        assert not any(line.lstrip().startswith(f"+{unchanged} ") for line in lines)
        assert "+6 in" in text and "-3 out" in text and "changed" in text
        assert " in " in text and " out " in text and " warn" in text  # labelled counts
        # the Excluded pane marks what left the bundle (−) and what changed in place (~)
        await pilot.press("2")
        await pilot.pause()
        excluded = app.main.query_one("#excluded-table", RowTable)
        marked = [excluded.row_cells(r, i)[0][0][:2] for i, r in enumerate(excluded.rows)]
        assert "- " in marked and "~ " in marked, marked
        assert app.feature_set.compare.marks  # the marks the glyphs stand for


def test_a_theme_name_from_a_settings_file_is_never_trusted_blindly() -> None:
    save_settings(settings_mod.Settings(theme="no-such-theme"))

    async def run() -> str:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            return str(app.theme)

    assert asyncio.run(run()) == "textual-dark"
