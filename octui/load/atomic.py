"""Replacing a file of octui's own atomically: a cache, a snapshot, the settings.

Readers never see a half-written file: a temporary file in the same folder is written,
then renamed over the target. (Exports to a user's path have their own rules — refused
inside the repository, never overwritten silently: :mod:`octui.render.atomicwrite`.)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

TEMPORARY_PREFIX = ".octui-"
"""How a temporary file's name begins (the parse cache prunes those an interrupted writer
left behind)."""


def write_atomically(path: Path, fill: Callable[[BinaryIO], object]) -> bool:
    """Replace ``path`` (its folder made, private, when missing) by a temporary file beside
    it that ``fill`` writes, renamed over it. False when that failed, for any reason: ``path`` is
    then as it was and no temporary file is left behind — an unwritable cache stays cold,
    unsaved settings are not an error, and results never depend on either."""
    import tempfile  # only a write needs it: a load the caches serve never imports it

    directory = path.parent
    tmp = None
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
        os.replace(tmp, path)
        tmp = None
    except Exception:
        return False
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return True
