"""What the explorer says about its own doings: what a reload found, where a screenshot went.

Both are told in words through the app's literal ``notify``: ``reloaded: 1 file changed
(policies/refunds.md)``; ``saved ~/Downloads/octui_….svg`` (or the temporary folder, and
why, when ``~/Downloads`` is not a writable folder).
"""

from __future__ import annotations

import os
import tempfile
from datetime import datetime
from pathlib import Path

from octui.core.textsafe import inert
from octui.load.fingerprint import Fingerprint
from octui.tui.host import Host


def changed_paths(old: Fingerprint, new: Fingerprint) -> list[str]:
    """The files that differ between two session fingerprints (config first, then paths)."""
    if not (old.scanned and new.scanned):  # no or a bad configuration on one side
        return ["opencontext.yaml"] if old != new else []
    assert old.keys is not None and new.keys is not None
    out = ["opencontext.yaml"] if old.config != new.config else []
    before = {key[0]: key for key in old.keys}
    after = {key[0]: key for key in new.keys}
    out += [p for p in sorted(before.keys() | after.keys()) if before.get(p) != after.get(p)]
    if (old.problems, old.unavailable) != (new.problems, new.unavailable) and not out:
        out.append("(unreadable files or sources)")
    return out


def reload_note(paths: list[str]) -> str:
    """``reloaded: 1 file changed (policies/refunds.md)``, ``reloaded: 3 files changed``."""
    if not paths:
        return "reloaded: no file changed"
    n = len(paths)
    note = f"reloaded: {n} file{'s' if n != 1 else ''} changed"
    if n <= 3:
        note += " (" + ", ".join(paths) + ")"
    return note


def screenshot_folder(home: Path | None = None) -> tuple[Path, str | None]:
    """Where a screenshot goes: ``~/Downloads`` when it is a writable folder, else the
    system's temporary folder; the second value says why ``~/Downloads`` was not used."""
    downloads = (home or Path.home()) / "Downloads"
    if downloads.is_dir() and os.access(downloads, os.W_OK):
        return downloads, None
    why = f"{downloads} is not writable" if downloads.is_dir() else f"{downloads} does not exist"
    return Path(tempfile.gettempdir()), why


def _safe_name(text: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in text)


def save_screenshot(app: Host, filename: str | None, time_format: str | None) -> None:
    """Save a screenshot in ``~/Downloads`` or (when that is not a writable folder) the
    temporary folder — and say where, and why there."""
    folder, why = screenshot_folder()
    stamp = datetime.now().strftime(time_format or "%Y-%m-%dT%H_%M_%S")
    name = filename or f"{_safe_name(app.title)}_{stamp}.svg"
    try:
        written = app.save_screenshot(name, str(folder))
    except OSError as exc:
        app.notify(
            inert(f"screenshot not saved in {folder}: {exc.strerror or exc}"),
            severity="error",
            title="Screenshot",
        )
        return
    note = f"saved {written}" + (f" ({why})" if why else "")
    app.notify(inert(note), title="Screenshot")


__all__ = ["changed_paths", "reload_note", "save_screenshot", "screenshot_folder"]
