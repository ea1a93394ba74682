"""The explorer against hostile repositories: canaries in every pane, inert text, and
recovery while the files change under it.

Every pane is checked through what the terminal would show (the SVG screenshot turned
back into text) after visiting every tab and selecting every row, so the detail pane and
the timeline render each included object, each exclusion and each warning in turn.
"""

from __future__ import annotations

import asyncio
import html
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from campaign import examples
from hostile_util import write_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_canaries import CONFIG as CANARY_CONFIG
from test_canaries import denied, readable
from test_fuzz import DENIALS, ROLES, repositories
from textual.pilot import Pilot

from octui.core.timeutil import parse_instant
from octui.load.loader import load_repository
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.tui.app import OctuiApp, create_app
from octui.tui.widgets.detail import DetailPane
from octui.tui.widgets.results import ExcludedPane, IncludedTable, WarningsTable
from octui.tui.widgets.rowtable import RowTable

AS_OF = parse_instant("2026-06-01")
SIZE = (200, 60)
EXPLORER_EXAMPLES = examples(6)
"""Generated repositories opened in the explorer per run (each a headless session of a few
seconds); a campaign (``OCTUI_FUZZ_SCALE``) opens more, drawn at random."""
CANARY = re.compile(r"canary\w*", re.IGNORECASE)


def make_app(root: Path, **options: Any) -> OctuiApp:
    options.setdefault("as_of", AS_OF)
    options.setdefault("watch", False)
    options.setdefault("cursor_blink", False)
    return create_app(root, **options)


async def settle(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, OctuiApp)
    for _ in range(3):
        await pilot.pause()
        await app.wait_settled()
    await pilot.pause()


async def wait_for(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 40) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.05)


def svg_text(svg: str) -> str:
    """The characters of an SVG screenshot, row by row (markup-free, as displayed)."""
    rows: dict[float, dict[int, str]] = {}
    pattern = r'<text class="[^"]*-r\d+" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>'
    for m in re.finditer(pattern, svg, re.S):
        column = round(float(m.group(1)) / 12.2)
        body = html.unescape(m.group(3)).replace("\xa0", " ")
        row = rows.setdefault(float(m.group(2)), {})
        for i, ch in enumerate(body):
            row[column + i] = ch
    return "\n".join(
        "".join(row.get(i, " ") for i in range(max(row) + 1 if row else 0)).rstrip()
        for _, row in sorted(rows.items())
    )


async def every_screen(pilot: Pilot[Any]) -> list[str]:
    """The screen after each tab and each selected row in it (detail + timeline)."""
    app = pilot.app
    assert isinstance(app, OctuiApp)
    screens = [svg_text(app.export_screenshot())]
    for key, widget_type in (("1", IncludedTable), ("2", ExcludedPane), ("3", WarningsTable)):
        await pilot.press(key)
        await settle(pilot)
        widget = app.query_one(widget_type)
        table = widget if isinstance(widget, RowTable) else widget.query_one(RowTable)
        count = len(table.rows)
        table.focus()
        await pilot.pause()
        for _ in range(count):
            await settle(pilot)
            screens.append(svg_text(app.export_screenshot()))
            await pilot.press("down")
        await settle(pilot)
        screens.append(svg_text(app.export_screenshot()))
    return screens


# -- canaries ---------------------------------------------------------------------------------


@pytest.fixture
def canary_repos(tmp_path: Path) -> tuple[Path, Path]:
    # the same folder name: the header names the repository, and only the denied
    # objects may differ between the two
    a = write_repo(tmp_path / "a" / "repo", readable() | denied("canaryalpha"), CANARY_CONFIG)
    b = write_repo(tmp_path / "b" / "repo", readable() | denied("canarybravo", 1), CANARY_CONFIG)
    return a, b


@pytest.mark.parametrize("historical", [False, True])
async def test_every_pane_shows_denied_objects_as_id_and_reason_only(
    canary_repos: tuple[Path, Path], historical: bool
) -> None:
    captured: list[list[str]] = []
    for root in canary_repos:
        app = make_app(root, role="support", task="refund", include_historical=historical)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screens = await every_screen(pilot)
            # The denied ids themselves, selected directly.
            for ref in ("policies.secret", "policies.limited"):
                app.action_jump(ref)
                await settle(pilot)
                detail = app.query_one(DetailPane)
                assert detail.field_rows == []
                screens.append(svg_text(app.export_screenshot()))
        for screen in screens:
            assert not CANARY.findall(screen), CANARY.findall(screen)
            assert "ghost.nowhere" not in screen and "@7" not in screen and "@8" not in screen
        assert any("policies.secret" in s and "classification-denied" in s for s in screens)
        captured.append([s.replace(str(root), "REPO") for s in screens])
    # Rewriting the denied objects changes nothing on any screen.
    strip = re.compile(r"\d+(\.\d+)? ?(ms|s)\b")  # timings in the status bar
    assert [strip.sub("", s) for s in captured[0]] == [strip.sub("", s) for s in captured[1]]


# -- terminal safety -------------------------------------------------------------------------

OSC52 = "\x1b]52;c;Y3VybCBldmlsfHNo\x07"
HOSTILE = "[red]x[/red] [link=https://evil.example]click[/link] " + OSC52 + "\x1b[31mRED\x9b2J"


@pytest.fixture
def hostile_repo(tmp_path: Path) -> Path:
    import json

    q = json.dumps
    config = b"spec: 1\nroles:\n  support: {clearance: restricted}\n"
    front = (
        f"title: {q(HOSTILE)}\nsummary: {q(HOSTILE)}\nowner: {q(HOSTILE)}\ntype: {q(HOSTILE)}\n"
        f"tags: [{q(HOSTILE)}]\n{q('[bold]k' + OSC52)}: 1\n"
    )
    files = {
        "policies/a.md": (
            f"---\nid: policies.a\nauthority: {q(HOSTILE)}\n{front}supersedes: [policies.b]\n"
            f"---\n{HOSTILE}\n[blink]body[/blink]\n"
        ).encode(),
        "policies/b.md": f"---\nid: policies.b\nauthority: canonical\n{front}---\nb\n".encode(),
        "policies/[red]p[/red].md": b"---\nid: policies.c\nauthority: approved\n---\nc\n",
        "policies/bad.md": f"---\nid: {q('bad' + OSC52)}\n---\n".encode(),
    }
    return write_repo(tmp_path / "repo", files, config)


async def test_markup_and_escapes_are_shown_literally(hostile_repo: Path) -> None:
    app = make_app(hostile_repo, role="support", task="[red]x")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screens = await every_screen(pilot)
        svgs = []
        for ref in ("policies.a", "policies.b", "policies.c"):
            app.action_jump(ref)
            await settle(pilot)
            svgs.append(app.export_screenshot())
            screens.append(svg_text(svgs[-1]))
    joined = "\n".join(screens)
    # Markup is text: the brackets are on screen, nothing was styled away.
    assert "[red]x[/red]" in joined
    assert "[link=https://evil.example]click[/link]" in joined
    assert "[blink]body[/blink]" in joined
    assert "policies/[red]p[/red].md" in joined
    # Control sequences are visible escapes, never raw.
    assert "\\x1b]52;c;Y3VybCBldmlsfHNo\\x07" in joined
    for svg in svgs:
        assert "\x1b" not in svg and "\x07" not in svg and "\x9b" not in svg
        assert "evil.example" not in re.sub(r"<text[^>]*>.*?</text>", "", svg, flags=re.S)


# -- the explorer under change -------------------------------------------------------------------


@pytest.fixture
def live_repo(tmp_path: Path) -> Path:
    files = {
        "policies/a.md": b"---\nid: policies.a\nauthority: canonical\n---\nA\n",
        "policies/b.md": b"---\nid: policies.b\nauthority: approved\n---\nB\n",
        "notes/n.md": b"---\nid: notes.n\nauthority: observed\n---\nN\n",
    }
    return write_repo(tmp_path / "repo", files, b"spec: 1\nroles:\n  support: {}\n")


def included(app: OctuiApp) -> set[str]:
    return set() if app.view is None else {i.obj.id for i in app.view.included}


async def test_explorer_recovers_while_the_repository_changes(live_repo: Path) -> None:
    config = (live_repo / "opencontext.yaml").read_bytes()
    app = make_app(live_repo, role="support", watch=True, poll_interval=0.1)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert included(app) == {"policies.a", "policies.b", "notes.n"}

        # Files and a folder deleted.
        (live_repo / "policies" / "b.md").unlink()
        shutil.rmtree(live_repo / "notes")
        await wait_for(pilot, lambda: included(app) == {"policies.a"})

        # Config broken: an error screen naming the file, the explorer still alive.
        (live_repo / "opencontext.yaml").write_bytes(b"roles: [\n")
        # (a poll may catch the file half-written first: wait for the final state)
        await wait_for(pilot, lambda: app.error is not None and "invalid YAML" in app.error[2])
        assert app.error is not None and "opencontext.yaml" in " ".join(app.error)
        await settle(pilot)
        shown = svg_text(app.export_screenshot())
        assert "invalid YAML" in shown

        # Config removed, then restored: recovered, no restart.
        (live_repo / "opencontext.yaml").unlink()
        await wait_for(pilot, lambda: app.error is not None and "Not an" in app.error[0])
        (live_repo / "opencontext.yaml").write_bytes(config)
        await wait_for(pilot, lambda: app.error is None and included(app) == {"policies.a"})

        # 2,000 files added while it runs.
        for i in range(2000):
            folder = live_repo / "bulk" / f"d{i % 20}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"o{i}.md").write_bytes(
                f"---\nid: bulk.o{i}\nauthority: observed\n---\nx\n".encode()
            )
        (live_repo / "bulk" / "broken.md").write_bytes(b"---\nid: [\n---\n")
        await wait_for(pilot, lambda: len(included(app)) == 2001, timeout=60)
        await settle(pilot)
        assert app.error is None
        assert app.view is not None
        assert any(w.code.value == "invalid-object" for w in app.view.resolution.warnings)

        # Still responsive: a keystroke re-resolves.
        await pilot.press("t", *"o1999")
        await settle(pilot)
        assert app.inputs.task == "o1999"
        assert app.view is not None and app.view.included[0].obj.id == "bulk.o1999"

        # And they all go away again.
        shutil.rmtree(live_repo / "bulk")
        await wait_for(pilot, lambda: included(app) == {"policies.a"}, timeout=30)


async def test_explorer_never_writes_into_the_repository(live_repo: Path) -> None:
    from hostile_util import snapshot

    before = snapshot(live_repo)
    app = make_app(live_repo, role="support")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await every_screen(pilot)
        for key in ("h", "s", "right_square_bracket", "right_curly_bracket", "n", "ctrl+r"):
            await pilot.press(key)
            await settle(pilot)
    assert snapshot(live_repo) == before


# -- fuzzing the explorer --------------------------------------------------------------------


@settings(
    max_examples=EXPLORER_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(files=repositories(), role=st.sampled_from(ROLES), historical=st.booleans())
def test_explorer_survives_generated_repositories(
    files: dict[str, bytes], role: str, historical: bool
) -> None:
    """Random repositories (cycles, dangling links, broken files, hostile text): the explorer
    raises nothing, and no screen shows a token of an object denied to the role."""
    with tempfile.TemporaryDirectory() as tmp:
        root = write_repo(Path(tmp) / "repo", files, config=None)
        query = Query(role=role, as_of=AS_OF, include_historical=historical)
        res = resolve(load_repository(root), query)
        hidden = [
            o.title.split()[0]
            for o in res.repository.objects
            if o.title and getattr(res.fates[o.uid], "reason", None) in DENIALS
        ]

        async def run() -> list[str]:
            app = make_app(root, role=role, include_historical=historical)
            async with app.run_test(size=(160, 40)) as pilot:
                await settle(pilot)
                assert app.error is None and app.view is not None
                screens = await every_screen(pilot)
                for key in ("s", "right_curly_bracket", "left_square_bracket"):
                    await pilot.press(key)
                    await settle(pilot)
                    screens.append(svg_text(app.export_screenshot()))
            return screens

        screens = asyncio.run(run())
    for screen in screens:
        for token in hidden:
            assert token not in screen
        assert "Traceback" not in screen


async def test_error_screen_shows_hostile_config_text_literally(tmp_path: Path) -> None:
    import json

    name = "[red]x[/red]" + OSC52
    config = f"spec: 1\nroles:\n  {json.dumps(name)}: {{clearance: secret}}\n".encode()
    root = write_repo(tmp_path / "repo", {"a.md": b"---\nid: a\n---\n"}, config)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.error is not None
        svg = app.export_screenshot()
        shown = svg_text(svg)
    # the name is not one that reads as itself on one line: quoted and escaped, and
    # shown literally (no markup read, no escape sequence sent)
    assert "roles.'[red]x[/red]\\x1b]52;c;Y3VybCBldmlsfHNo\\x07'.clearance" in shown
    assert "unknown level 'secret'" in shown
    assert "\x1b" not in svg and "\x07" not in svg


async def test_hostile_role_names_are_shown_literally(tmp_path: Path) -> None:
    import json

    names = ["[red]x[/red]", "b[link=h]c[/link]", "x[/]"]
    config = "spec: 1\nroles:\n" + "".join(f"  {json.dumps(n)}: {{}}\n" for n in names)
    root = write_repo(tmp_path / "repo", {"a.md": b"---\nid: a\n---\n"}, config.encode())
    app = make_app(root, role="ghost")  # unknown: a notification lists the declared roles
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert app.view is not None and app.inputs.role == "[red]x[/red]"
        await pilot.press("r")  # open the role list
        await pilot.pause(0.3)
        listing = svg_text(app.export_screenshot())
    for name in names:
        assert name in listing
