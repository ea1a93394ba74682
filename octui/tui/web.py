"""What the explorer does differently when it runs in a browser (``octui --serve``).

Textual's web driver replaces the terminal: the app's process is a child of the
server, talking to it over pipes. Two things change:

- an export is delivered to the viewer's browser as a download
  (:meth:`App.deliver_text`), never written on the server's disk;
- the session ends itself when its server is gone: the driver does not notice a
  closed pipe, and an orphaned explorer would keep redrawing for nobody.
"""

from __future__ import annotations

import io
import os
from typing import Any

ORPHAN_CHECK = 1.0
"""Seconds between checks that the serving process is still there."""


def deliver_bundle(app: Any, text: str, filename: str) -> str | None:
    """Send the bundle to the browser as a download named ``filename``."""
    key: str | None = app.deliver_text(
        io.StringIO(text),
        save_filename=filename,
        open_method="download",
        encoding="utf-8",
        mime_type="application/json",
    )
    app.notify(f"sent {filename} to your browser", title="Exported", markup=False)
    return key


def guard_web_session(app: Any, interval: float = ORPHAN_CHECK) -> None:
    """Exit when the parent (the server) goes away: the child is then re-parented."""
    parent = os.getppid()

    def check() -> None:
        if os.getppid() != parent:
            app.exit()

    app.set_interval(interval, check, name="octui-orphan-check")
