"""Where the explorer's exports go. The writer itself (atomic, never inside the repository,
no silent overwrite) is :mod:`octui.atomicwrite`, re-exported here.

Textual-free so it can be tested directly.
"""

from __future__ import annotations

import os
from pathlib import Path

from octui.atomicwrite import ExportExists, ExportRefused, check_target, write_atomic


def default_export_path(
    repo_root: str | Path, role: str | None, cwd: str | Path | None = None
) -> Path:
    """``opencontext-bundle-<role>.json`` in the current folder, or beside the repository
    when the current folder is inside it."""
    here = Path(cwd or os.getcwd()).resolve()
    root = Path(repo_root).resolve()
    folder = root.parent if (here == root or root in here.parents) else here
    safe_role = "".join(c if c.isalnum() or c in "-_." else "_" for c in (role or "all"))
    return folder / f"opencontext-bundle-{safe_role}.json"


__all__ = ["ExportExists", "ExportRefused", "check_target", "default_export_path", "write_atomic"]
