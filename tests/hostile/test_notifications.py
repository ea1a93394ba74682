"""Every notification, bar and palette entry of the explorer shows repository text literally.

A role named ``support [@click=app.screenshot('pwned.svg','.')]click-me[/]`` must never
become a clickable action in a toast (clicking it would write a file into the
repository), and ANSI/OSC sequences in role names, ids, titles, paths, tasks and
revisions must stay visible escapes. Each notification is captured as Textual's toast
would render it (markup or not) and must equal the literal text, with no action meta.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hostile_util import write_repo
from textual.app import App
from textual.command import DiscoveryHit
from textual.content import Content
from textual.pilot import Pilot

from octui.core.textsafe import inert
from octui.core.timeutil import parse_instant
from octui.resolve.result import UnknownRole
from octui.tui.app import OctuiApp, create_app
from octui.tui.commands import OctuiCommands
from octui.tui.exporting import ExportRefused, check_target
from octui.tui.screens.export import ExportScreen
from octui.tui.viewcache import ViewCache

AS_OF = parse_instant("2026-06-01")
OSC52 = "\x1b]52;c;Y3VybCBldmlsfHNo\x07"
CLICK = "[@click=app.screenshot('pwned.svg','.')]click-me[/]"
ROLE = f"support {CLICK}{OSC52}\x1b[31m"
OTHER = "[b]other[/b]\x9b2J"
TASK = f"refund [@click=app.quit()]q[/] {OSC52}"
DIR = "repo[@click=app.bell()]b\x1b[2J"
PATHY = "[@click=app.screenshot('pwned.svg','.')]click-me\x1b[2J"  # no "/": a file name
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def shown(text: str) -> str:
    """How repository text must read on screen: literal, control characters escaped."""
    return inert(text, keep_newlines=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    config = (
        f"spec: 1\nroles:\n  {json.dumps(ROLE)}: {{}}\n  {json.dumps(OTHER)}: {{}}\n"
    ).encode()
    files = {
        "policies/a.md": (
            f"---\nid: policies.a\nauthority: canonical\ntitle: {json.dumps(CLICK + OSC52)}\n"
            "valid_from: 2026-01-01\nvalid_until: 2026-09-01\n---\nrefund\n"
        ).encode(),
        "policies/b.md": b"---\nid: policies.b\nauthority: approved\nsupersedes: [policies.a]\n"
        b"valid_from: 2026-07-01\n---\nrefund\n",
        f"policies/{PATHY}.md": b"---\nid: policies.c\nauthority: approved\n---\nc\n",
    }
    return write_repo(tmp_path / DIR, files, config)


class Toasts:
    """Every notification as Textual renders it in a toast (captured below our override)."""

    def __init__(self) -> None:
        self.seen: list[tuple[Content, Content]] = []

    def __call__(self, app: App[Any], message: str, **kw: Any) -> None:
        render = Content.from_markup if kw.get("markup", True) else Content
        self.seen.append((render(message), Content(kw.get("title", ""))))

    def texts(self) -> list[str]:
        return [f"{title.plain}|{body.plain}" for body, title in self.seen]

    def take(self) -> str:
        """The notifications since the last call, checked, as one text."""
        for body, title in self.seen:
            for content in (body, title):
                assert not UNSAFE.search(content.plain), content.plain
                actions = [s.style for s in content.spans if "@" in str(s.style)]
                assert not actions, actions  # no markup became an action
        text = "\n".join(self.texts())
        self.seen.clear()
        return text


@pytest.fixture
def toasts(monkeypatch: pytest.MonkeyPatch) -> Toasts:
    capture = Toasts()
    original = App.notify

    def notify(self: App[Any], message: str, **kw: Any) -> None:
        capture(self, message, **kw)
        original(self, message, **kw)

    monkeypatch.setattr(App, "notify", notify)
    return capture


def make_app(root: Path, **options: Any) -> OctuiApp:
    options.setdefault("as_of", AS_OF)
    options.setdefault("watch", False)
    options.setdefault("cursor_blink", False)
    options.setdefault("cache", False)
    return create_app(root, **options)


async def settle(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, OctuiApp)
    for _ in range(3):
        await pilot.pause()
        await app.wait_settled()
    await pilot.pause()


async def wait_workers(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await settle(pilot)


async def test_pin_toast_and_bar_show_the_role_literally(repo: Path, toasts: Toasts) -> None:
    """The reported attack: ``p`` after choosing the role; nothing can be clicked."""
    app = make_app(repo, role=ROLE, task=TASK)
    async with app.run_test(size=(200, 50), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await wait_workers(pilot)
        await pilot.pause(0.2)
        text = toasts.take()
        assert f"role {shown(ROLE)}, task {shown(repr(TASK))[:20]}" in text
        bar = str(app.query_one("#extras-bar").render())
        assert f"pinned role {shown(ROLE)}" in bar
        # What the terminal shows: the markup as text, in the toast and the bar.
        from test_explorer import svg_text

        screen = svg_text(app.export_screenshot())
        assert "[@click=app.screenshot(" in screen
        toasts_shown = list(app.screen.query("Toast"))
        assert toasts_shown
        toast = toasts_shown[0]
        content = toast.render()
        assert isinstance(content, Content)
        assert "[@click=app.screenshot('pwned.svg','.')]click-me[/]" in content.plain
        assert not [s for s in content.spans if "@click" in str(s.style)]
        # Clicking on "click-me" in the toast does nothing to the repository.
        before = sorted(p.name for p in repo.iterdir())
        region = toast.region
        rows = screen.split("\n")
        spots = [
            (x, y)
            for y in range(region.y, region.bottom)
            for x in [m.start() for m in re.finditer("click-me", rows[y])]
            if region.x <= x < region.right
        ]
        assert spots
        for x, y in spots:
            for dx in range(8):
                await pilot.click(offset=(x + dx, y))
        await pilot.pause()
        assert sorted(p.name for p in repo.iterdir()) == before
        assert not list(repo.rglob("pwned.svg"))


async def test_every_notification_path_is_literal(
    repo: Path, toasts: Toasts, tmp_path: Path
) -> None:
    app = make_app(repo, role=f"ghost{CLICK}{OSC52}", task=TASK)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        # An unknown role at start lists the declared ones.
        text = toasts.take()
        assert f"unknown role {shown(repr(f'ghost{CLICK}{OSC52}'))}" in text
        assert shown(ROLE) in text and shown(OTHER) in text

        # Pin and unpin.
        app.set_role(ROLE)
        await settle(pilot)
        await pilot.press("p")
        await wait_workers(pilot)
        assert shown(ROLE) in toasts.take()
        await pilot.press("p")
        await pilot.pause()
        assert "Unpinned." in toasts.take()

        # Jump to an id that is not there.
        app.action_jump(f"nowhere{CLICK}{OSC52}")
        assert f"{shown(f'nowhere{CLICK}{OSC52}')} is not in this resolution" in toasts.take()

        # The next / previous change of the bundle.
        await pilot.press("full_stop")
        await wait_workers(pilot)
        assert "policies." in toasts.take()
        await pilot.press("comma")
        await wait_workers(pilot)
        assert toasts.take()

        # Resolution errors carry the core's message. (The session's resolve is swapped
        # below, so the next days must not be views the prefetch made already.)
        app.feature_set.prefetch.enabled = False
        app.views = ViewCache()
        original = app.session.resolve

        def unknown(query: Any) -> Any:
            raise UnknownRole(ROLE, [OTHER])

        app.session.resolve = unknown  # type: ignore[method-assign]
        moved = app.inputs.step(days=1)
        assert moved is not None
        app.set_inputs(moved)
        await settle(pilot)
        await wait_workers(pilot)
        assert shown(repr(ROLE)) in toasts.take()

        def broken(query: Any) -> Any:
            raise ValueError(f"bad {CLICK}{OSC52}")

        app.session.resolve = broken  # type: ignore[method-assign]
        moved = app.inputs.step(days=1)
        assert moved is not None
        app.set_inputs(moved)
        await settle(pilot)
        await wait_workers(pilot)
        assert f"resolution failed: bad {shown(CLICK + OSC52)}" in toasts.take()
        app.session.resolve = original  # type: ignore[method-assign]
        moved = app.inputs.step(days=-2)
        assert moved is not None
        app.set_inputs(moved)
        await settle(pilot)

        # Export: written, exists, refused; paths are shown literally.
        out = tmp_path / f"out{PATHY}"
        out.mkdir()
        target = out / f"b{PATHY}.json"
        app.feature_set.export.export_to(target)
        await wait_workers(pilot)
        assert f"Exported|wrote {shown(str(target))}" in toasts.take()
        app.feature_set.export.export_to(target)
        await wait_workers(pilot)
        assert f"{shown(str(target))} already exists; not overwritten" in toasts.take()
        app.feature_set.export.export_to(repo / "inside.json")
        await wait_workers(pilot)
        assert f"Export refused|{shown(str(repo / 'inside.json'))} is inside" in toasts.take()

        # Revisions: the folder is not in git; an unknown revision names what was asked.
        app.feature_set.revisions.action_pick_revision()
        await wait_workers(pilot)
        assert f"{shown(str(repo))} is not inside a git repository" in toasts.take()
        app.feature_set.revisions.set_revision(f"HEAD{CLICK}{OSC52}")
        await wait_workers(pilot)
        text = toasts.take()
        assert text.startswith("Revision|")

        # A role removed from the configuration while the explorer runs.
        config = repo / "opencontext.yaml"
        config.write_text(f"spec: 1\nroles:\n  {json.dumps(OTHER)}: {{}}\n")
        app.action_reload()
        await wait_workers(pilot)
        text = toasts.take()
        assert f"role {shown(repr(ROLE))} is no longer declared; showing {shown(OTHER)}" in text
    assert not list(repo.rglob("pwned.svg"))


async def test_palette_entries_and_status_show_role_names_literally(repo: Path) -> None:
    app = make_app(repo, role=ROLE, task=TASK)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        provider = OctuiCommands(app.screen)
        prompts = [hit.prompt async for hit in provider.discover()]
        prompts += [hit.prompt async for hit in provider.search("set role")]
        for prompt in prompts:
            assert isinstance(prompt, Content)
            assert not [s for s in prompt.spans if "@" in str(s.style)]
            assert not UNSAFE.search(prompt.plain)
        plain = [p.plain for p in prompts if isinstance(p, Content)]  # all are, as asserted
        assert f"Set role: {shown(ROLE)}" in plain
        assert plain.count(f"Set role: {shown(OTHER)}") == 2  # discovered and searched
        assert all(isinstance(h, DiscoveryHit) for h in [h async for h in provider.discover()])
        status = str(app.query_one("#status").render())
        assert f"role {shown(ROLE)}" in status


async def test_export_screen_shows_hostile_paths_literally(repo: Path, tmp_path: Path) -> None:
    app = make_app(repo, role=ROLE)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        summary = str(screen.query_one("#export-summary").render())
        assert f"role {shown(ROLE)}" in summary
        field = screen.query_one("#export-path")
        field.value = str(repo / f"x{PATHY}.json")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        message = str(screen.query_one("#export-message").render())
        assert shown(str(repo / f"x{PATHY}.json")) in message
        assert "is inside the repository" in message


def test_export_through_a_symlink_loop_is_refused_with_a_message(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    with pytest.raises(ExportRefused, match="symbolic link loops"):
        check_target(loop / "bundle.json", tmp_path / "repo")


async def test_export_through_a_symlink_loop_keeps_the_explorer_running(
    repo: Path, tmp_path: Path, toasts: Toasts
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    os.symlink(b, a)
    os.symlink(a, b)
    app = make_app(repo, role=ROLE)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        screen.query_one("#export-path").value = str(a / "bundle.json")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        message = str(screen.query_one("#export-message").render())
        assert "a symbolic link loops back on itself" in message
        assert app.is_running and app.screen is screen
        # The worker path says so too (a path chosen before the loop appeared).
        app.feature_set.export.export_to(a / "bundle.json")
        await wait_workers(pilot)
        assert "Export refused|" in toasts.take()
        assert app.is_running
