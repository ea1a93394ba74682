"""Where the explorer's exports go. The writer itself (atomic, never inside the repository,
no silent overwrite) is :mod:`octui.render.atomicwrite`, re-exported here.

Textual-free so it can be tested directly.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from octui.render.atomicwrite import ExportExists, ExportRefused, check_target, write_atomic


def _safe(text: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in text)


def instant_slug(when: datetime) -> str:
    """``2026-03-15`` at midnight UTC, else ``2026-03-15T0930Z`` (no ``:`` in a file name)."""
    u = when.astimezone(UTC)
    day = f"{u.year:04d}-{u.month:02d}-{u.day:02d}"
    if u.hour or u.minute or u.second or u.microsecond:
        return f"{day}T{u.hour:02d}{u.minute:02d}Z"
    return day


def export_name(role: str | None, as_of: datetime | None = None, digest: str | None = None) -> str:
    """``opencontext-bundle-<role>[-<as_of>][-<short digest>].json``: one file name per
    bundle, so exports of different roles, instants or contents never collide."""
    parts = [_safe(role or "all")]
    if as_of is not None:
        parts.append(instant_slug(as_of))
    if digest:
        parts.append(_safe(digest.removeprefix("sha256:")[:8]))
    return f"opencontext-bundle-{'-'.join(parts)}.json"


def default_export_path(
    repo_root: str | Path,
    role: str | None,
    cwd: str | Path | None = None,
    *,
    as_of: datetime | None = None,
    digest: str | None = None,
) -> Path:
    """:func:`export_name` in the current folder, or beside the repository when the
    current folder is inside it."""
    here = Path(cwd or os.getcwd()).resolve()
    root = Path(repo_root).resolve()
    folder = root.parent if (here == root or root in here.parents) else here
    return folder / export_name(role, as_of, digest)


__all__ = [
    "ExportExists",
    "ExportRefused",
    "check_target",
    "default_export_path",
    "export_name",
    "instant_slug",
    "write_atomic",
]
