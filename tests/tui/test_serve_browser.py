"""``octui --serve`` driven by a real headless browser (Debian's chromium, over the Chrome
DevTools Protocol with aiohttp's websocket client — aiohttp comes with textual-serve).

Everything talks to 127.0.0.1 only; the page's requests are recorded and must all stay
there. Without chromium the test is skipped on a developer's machine and fails in CI.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from .conftest import SAMPLE

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or ""
if not CHROMIUM:
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI needs chromium for the browser test (.ci/run installs it)")
    pytest.skip("chromium is not installed", allow_module_level=True)

aiohttp = (
    pytest.importorskip("aiohttp") if os.environ.get("CI") != "true" else __import__("aiohttp")
)

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--window-size=1400,900",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
]

CAPTURE = """
window.__octuiText = "";
(() => {
  const Original = window.WebSocket;
  const decoder = new TextDecoder();
  function Capturing(url, protocols) {
    const ws = protocols === undefined ? new Original(url) : new Original(url, protocols);
    ws.addEventListener("message", (event) => {
      if (event.data instanceof ArrayBuffer) {
        window.__octuiText += decoder.decode(new Uint8Array(event.data), {stream: true});
      }
    });
    return ws;
  }
  Capturing.prototype = Original.prototype;
  Object.assign(Capturing, Original);
  window.WebSocket = Capturing;
})();
"""
"""Records what the server sends the page's terminal (the terminal draws on a canvas)."""

ESCAPES = re.compile(r"\x1b\[[0-9;?<>=$ ]*[ -/]*[@-~]|\x1b[\]P_^].*?(?:\x07|\x1b\\)|\x1b.", re.S)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def children_of(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


async def wait_until(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


@contextmanager
def octui_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    log = (tmp_path / "server.log").open("wb")
    work = tmp_path / "server-cwd"
    work.mkdir()
    env = {**os.environ, "OCTUI_CONFIG_DIR": str(tmp_path / "config")}
    server = subprocess.Popen(
        [sys.executable, "-m", "octui.tui", "--serve", "--port", str(port), str(SAMPLE)],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=work,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                raise AssertionError((tmp_path / "server.log").read_text())
            time.sleep(0.1)
        yield server, port
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        log.close()


class DevTools:
    """A minimal Chrome DevTools Protocol client (flattened target sessions)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            data = json.loads(message.data)
            if "id" in data and data["id"] in self.pending:
                self.pending.pop(data["id"]).set_result(data)
            else:
                self.events.append(data)

    async def send(self, method: str, session: str | None = None, **params: Any) -> Any:
        self.next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        await self.ws.send_str(json.dumps(message))
        reply = await asyncio.wait_for(future, 30)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    async def evaluate(self, session: str, expression: str) -> Any:
        result = await self.send(
            "Runtime.evaluate", session, expression=expression, returnByValue=True
        )
        return result["result"].get("value")


@asynccontextmanager
async def browser(tmp_path: Path) -> AsyncIterator[DevTools]:
    profile = tmp_path / "chromium-profile"
    proc = subprocess.Popen(
        [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        active = profile / "DevToolsActivePort"
        await wait_until(
            lambda: active.exists() and len(active.read_text().split()) == 2,
            30,
            "chromium's DevTools port",
        )
        port, path = active.read_text().split()
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(f"ws://127.0.0.1:{port}{path}", max_msg_size=0) as ws,
        ):
            tools = DevTools(ws)
            try:
                yield tools
            finally:
                with suppress(Exception):
                    await asyncio.wait_for(tools.send("Browser.close"), 5)
                tools.reader.cancel()
        await asyncio.to_thread(proc.wait, 10)
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


async def open_page(tools: DevTools, url: str, downloads: Path) -> tuple[str, str]:
    target = (await tools.send("Target.createTarget", url="about:blank"))["targetId"]
    session = (await tools.send("Target.attachToTarget", targetId=target, flatten=True))[
        "sessionId"
    ]
    await tools.send("Network.enable", session)
    await tools.send("Page.enable", session)
    await tools.send("Page.addScriptToEvaluateOnNewDocument", session, source=CAPTURE)
    await tools.send(
        "Browser.setDownloadBehavior",
        behavior="allow",
        downloadPath=str(downloads),
        eventsEnabled=True,
    )
    await tools.send("Page.navigate", session, url=url)
    return target, session


async def screen(tools: DevTools, session: str) -> str:
    raw = await tools.evaluate(session, "window.__octuiText || ''")
    return ESCAPES.sub("", raw or "")


async def press(tools: DevTools, session: str, key: str) -> None:
    await tools.evaluate(session, "document.querySelector('.xterm-helper-textarea').focus(); true")
    code = f"Digit{key}" if key.isdigit() else f"Key{key.upper()}"
    for kind in ("keyDown", "keyUp"):
        params: dict[str, Any] = {"type": kind, "key": key, "code": code}
        if kind == "keyDown":
            params["text"] = key
        await tools.send("Input.dispatchKeyEvent", session, **params)


async def test_explorer_in_a_headless_browser(tmp_path: Path) -> None:
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with octui_server(tmp_path) as (server, port):
        async with browser(tmp_path) as tools:
            url = f"http://127.0.0.1:{port}/"
            target, session = await open_page(tools, url, downloads)

            # the Included table is drawn (the sample opens on support, its first role)
            async def included_shown() -> bool:
                text = await screen(tools, session)
                return "1 Included" in text and "mission" in text and "role support" in text

            await wait_until(included_shown, 30, "the Included table")
            sessions = children_of(server.pid)
            assert len(sessions) == 1, sessions
            app_pid = sessions[0]

            # 2 shows the Excluded table: its reasons arrive only after the key
            before = len(await screen(tools, session))
            await press(tools, session, "2")

            async def excluded_shown() -> bool:
                text = (await screen(tools, session))[before:]
                return "not-in-scope" in text and "classification-denied" in text

            await wait_until(excluded_shown, 20, "the Excluded table")

            # x (export) delivers the bundle to the browser, not onto the server
            await press(tools, session, "x")
            # named after the role, as_of and the short digest
            pattern = "opencontext-bundle-support-*.json"
            await wait_until(
                lambda: any(p.stat().st_size > 0 for p in downloads.glob(pattern)),
                20,
                "the exported bundle in the browser's downloads",
            )
            await wait_until(lambda: not list(downloads.glob("*.crdownload")), 10, "download")
            (bundle,) = downloads.glob(pattern)
            data = json.loads(bundle.read_text(encoding="utf-8"))
            assert data["inputs"]["role"] == "support"
            assert data["objects"]
            assert not list((tmp_path / "server-cwd").iterdir())  # nothing on the server

            # everything the page fetched came from the octui server
            urls = [
                e["params"]["request"]["url"]
                for e in tools.events
                if e.get("method") == "Network.requestWillBeSent"
            ]
            assert urls, "no request was recorded"
            assert all(u.startswith((url, f"ws://127.0.0.1:{port}/")) for u in urls), urls

            # closing the page ends its app process within a few seconds
            await tools.send("Target.closeTarget", targetId=target)
            await wait_until(lambda: not alive(app_pid), 8, "the session's process to end")
            assert children_of(server.pid) == []

            # a second page, then SIGTERM: the server ends its session and stops cleanly
            target, session = await open_page(tools, url, downloads)
            await wait_until(included_shown, 30, "the Included table (second page)")
            (app_pid,) = children_of(server.pid)
            server.send_signal(signal.SIGTERM)
            code = await asyncio.to_thread(server.wait, 15)
            assert code == 0, (tmp_path / "server.log").read_text()
            assert not alive(app_pid)
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log
