"""``octui --serve``: the explorer in a browser, through ``textual-serve``.

Each browser page gets its own explorer process (``python -m octui.tui …`` with
Textual's web driver). On top of what ``textual-serve`` does, this module makes sure:

- **no session outlives its page**: when the websocket closes (the page is closed,
  reloaded, or its heartbeat stops) the app is asked to quit, then terminated, then
  killed, each after a short grace period, and reaped; the app also exits by itself
  when its server disappears (:func:`octui.tui.web.guard_web_session`);
- **the server stops cleanly** on SIGINT and SIGTERM, ending every session first;
- **nothing is fetched from elsewhere**: the page is textual-serve's own, minus its
  Google Fonts link (``serve_templates/app_index.html``); its script and fonts are
  served from the installed package;
- **the command line is never a shell string**: the app is started with an argument
  vector, so a repository path is never interpreted by a shell.

The server binds to the loopback interface unless told otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.server import Server

log = logging.getLogger("octui.serve")

TEMPLATES = Path(__file__).resolve().parent / "serve_templates"
QUIT_GRACE = 2.0
"""Seconds an app has to quit by itself before it is sent SIGTERM."""
TERM_GRACE = 2.0
"""Seconds after SIGTERM before SIGKILL."""
HEARTBEAT = 5.0
"""Seconds between websocket pings: a page that vanished without closing is noticed
within about twice this."""
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def child_command(args: Sequence[str]) -> list[str]:
    """The argument vector of one session's explorer process."""
    return [sys.executable, "-m", "octui.tui", *args]


class SessionService(AppService):
    """One browser page's explorer process, started without a shell and always ended."""

    def __init__(self, argv: Sequence[str], **kwargs: Any) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = list(argv)

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        environment = self._build_environment(width=width, height=height)
        environment.pop("NO_COLOR", None)  # the browser page is a colour terminal
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,  # its own process group: signals reach all of it
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def stop(self) -> None:
        """Ask the app to quit; terminate, then kill it if it does not; reap it."""
        task, self._task = self._task, None
        if task is None:
            return
        with contextlib.suppress(Exception):
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        with contextlib.suppress(Exception):
            await self.send_meta({"type": "quit"})
        process = self._process
        if process is not None:
            await _end_process(process)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


async def _end_process(process: asyncio.subprocess.Process) -> None:
    for sig, grace in ((None, QUIT_GRACE), (signal.SIGTERM, TERM_GRACE), (signal.SIGKILL, None)):
        if sig is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
        try:
            await asyncio.wait_for(process.wait(), grace)
            break
        except TimeoutError:
            continue
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            process.stdin.close()


class OctuiServer(Server):
    """textual-serve's server with octui's page and session handling."""

    def __init__(self, child_args: Sequence[str], *, host: str, port: int, title: str) -> None:
        self.argv = child_command(child_args)
        super().__init__(
            " ".join(self.argv),
            host=host,
            port=port,
            title=title,
            public_url=f"http://{_url_host(host)}:{port}",
            templates_path=TEMPLATES,
        )
        self.sessions: set[SessionService] = set()

    def initialize_logging(self) -> None:
        logging.basicConfig(level=logging.INFO, format="octui serve: %(message)s")

    async def on_startup(self, app: web.Application) -> None:
        print(f"octui: serving {self.title} on {self.public_url} (Ctrl+C stops)", flush=True)

    async def on_shutdown(self, app: web.Application) -> None:
        sessions = list(self.sessions)
        await asyncio.gather(*(s.stop() for s in sessions), return_exceptions=True)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT)
        width = _int(request.query.get("width"), 80)
        height = _int(request.query.get("height"), 24)
        service: SessionService | None = None
        try:
            await websocket.prepare(request)
            service = SessionService(
                self.argv,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            self.sessions.add(service)
            await service.start(width, height)
            log.info("session %s started (pid %s)", service.app_service_id[:8], service.pid)
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await websocket.close()
        except Exception as error:  # a session's failure never stops the server
            log.error("session failed: %s", error)
        finally:
            if service is not None:
                await service.stop()
                self.sessions.discard(service)
                log.info("session %s ended", service.app_service_id[:8])
        return websocket

    def serve(self, debug: bool = False) -> None:
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.request_exit)
        try:
            web.run_app(
                self._make_app(),
                host=self.host,
                port=self.port,
                handle_signals=False,
                loop=loop,
                print=lambda *args: None,
                access_log=None,
                shutdown_timeout=QUIT_GRACE + TERM_GRACE + 1,
            )
        except GracefulExit:
            pass
        finally:
            with contextlib.suppress(Exception):
                loop.close()


def _int(value: str | None, default: int) -> int:
    try:
        return max(1, min(int(value or ""), 1000))
    except ValueError:
        return default


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def serve(child_args: Sequence[str], *, host: str, port: int, title: str) -> int:
    """Serve until SIGINT/SIGTERM; returns the exit status."""
    if host not in LOOPBACK:
        print(
            f"octui: warning: serving on {host}: anyone who can reach it can read the "
            "repository and run the explorer",
            file=sys.stderr,
        )
    server = OctuiServer(child_args, host=host, port=port, title=title)
    try:
        server.serve()
    except OSError as exc:
        print(
            f"octui: error: cannot serve on {host}:{port}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    return 0
