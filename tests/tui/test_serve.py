"""``octui --serve`` without a browser: sessions always end, arguments never meet a shell."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("CI") != "true":  # the test extra installs it: CI never skips these
    pytest.importorskip("textual_serve")

from octui.tui import serve as serve_mod
from octui.tui.__main__ import main
from octui.tui.serve import SessionService
from octui.tui.web import guard_web_session

from .conftest import SAMPLE, make_app, settle

STUBBORN = """
import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.stdout.write("__GANGLION__\\n"); sys.stdout.flush()
while True:
    time.sleep(0.05)  # ignores the quit packet, SIGTERM and stdin closing
"""


def service(argv: list[str]) -> SessionService:
    async def sink(_: Any) -> None:
        return None

    async def close() -> None:
        return None

    from textual_serve.download_manager import DownloadManager

    return SessionService(
        argv,
        write_bytes=sink,
        write_str=sink,
        close=close,
        download_manager=DownloadManager(),
    )


async def test_a_session_that_ignores_quit_and_sigterm_is_still_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(serve_mod, "QUIT_GRACE", 0.5)
    monkeypatch.setattr(serve_mod, "TERM_GRACE", 0.5)
    session = service([sys.executable, "-c", STUBBORN])
    await session.start(80, 24)
    await asyncio.sleep(0.5)
    pid = session.pid
    assert pid is not None and Path(f"/proc/{pid}").exists()
    started = time.monotonic()
    try:
        await asyncio.wait_for(session.stop(), 10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)  # never leave it behind, even when the test fails
    assert time.monotonic() - started < 5
    assert session._process is not None and session._process.returncode is not None
    assert not Path(f"/proc/{pid}").exists()  # ended and reaped, no zombie


async def test_session_arguments_never_go_through_a_shell(tmp_path: Path) -> None:
    out = tmp_path / "argv.txt"
    hostile = f"repo; touch {tmp_path / 'pwned'} $(touch {tmp_path / 'pwned2'})"
    script = (
        "import sys; open(sys.argv[1], 'w').write(sys.argv[2]); sys.stdout.write('__GANGLION__\\n')"
    )
    session = service([sys.executable, "-c", script, str(out), hostile])
    await session.start(80, 24)
    for _ in range(100):
        if out.exists() and out.read_text():
            break
        await asyncio.sleep(0.05)
    await session.stop()
    assert out.read_text() == hostile
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()


def test_serve_forwards_the_explorer_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_serve(args: list[str], *, host: str, port: int, title: str) -> int:
        seen.update(args=args, host=host, port=port, title=title)
        return 0

    monkeypatch.setattr(serve_mod, "serve", fake_serve)
    code = main(["--serve", str(SAMPLE), "--role", "sales", "--task", "-x refund", "--port", "9"])
    assert code == 0
    assert seen["host"] == "127.0.0.1"  # loopback unless asked
    assert seen["port"] == 9
    assert seen["args"] == [str(SAMPLE.resolve()), "--role=sales", "--task=-x refund"]
    assert serve_mod.child_command(seen["args"])[:3] == [sys.executable, "-m", "octui.tui"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--serve", "--role", "ghost"], "unknown role 'ghost'"),
        (["--serve", "--port", "70000"], "--port: expected 1-65535"),
        (["--serve", "--theme", "nope"], "unknown theme 'nope'"),
    ],
)
def test_serve_checks_its_arguments_before_listening(argv: list[str], message: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([str(SAMPLE), *argv])
    assert code == 2
    assert message in err.getvalue() and len(err.getvalue().splitlines()) == 1


async def test_a_web_session_ends_when_its_server_is_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        parent = [12345]
        monkeypatch.setattr(os, "getppid", lambda: parent[0])
        guard_web_session(app, interval=0.05)
        await pilot.pause(0.2)
        assert app.is_running
        parent[0] = 1  # re-parented: the server died
        for _ in range(40):
            if not app.is_running:
                break
            await pilot.pause(0.05)
        assert not app.is_running


async def test_export_in_a_browser_is_delivered_not_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from textual.app import App

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(App, "is_web", property(lambda self: True))
    delivered: list[tuple[str, dict[str, Any]]] = []

    def deliver_text(self: App[Any], file: Any, **kwargs: Any) -> str:
        delivered.append((file.read(), kwargs))
        return "key"

    monkeypatch.setattr(App, "deliver_text", deliver_text)
    monkeypatch.setattr("octui.tui.app.guard_web_session", lambda app: None)
    app = make_app(role="support")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        text, options = delivered[0]
        sent, shown = json.loads(text), json.loads(app.bundle_text())
        assert sent["digest"] == shown["digest"] == app.view.digest  # type: ignore[union-attr]
        assert sent["objects"] == shown["objects"]
        short = app.view.digest.removeprefix("sha256:")[:8]  # type: ignore[union-attr]
        # named after the role, as_of and the short digest, as on a terminal
        assert options["save_filename"] == f"opencontext-bundle-support-2026-11-30-{short}.json"
        assert options["mime_type"] == "application/json"
        assert type(app.screen).__name__ != "ExportScreen"
    assert list(tmp_path.iterdir()) == []


def test_serve_without_the_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "octui.tui.serve", None)  # as if textual-serve were absent
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([str(SAMPLE), "--serve"])
    assert code == 2
    assert "pip install 'octui[serve]'" in err.getvalue()
    assert len(err.getvalue().splitlines()) == 1
