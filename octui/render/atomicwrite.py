"""Writing an export to a file: atomic, never inside the repository, no silent overwrite.

Used by the CLI (``audit --output``) and the explorer's exports alike.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path


class ExportRefused(Exception):
    """The target cannot or must not be written; the message says why."""


class ExportExists(ExportRefused):
    """The target exists and overwriting was not confirmed."""


def check_target(path: str | Path, repo_root: str | Path) -> Path:
    """The absolute target, refused when it is inside the repository or a folder."""
    target = Path(path).expanduser()
    if not str(path).strip():
        raise ExportRefused("no file name given")
    target = Path(os.path.abspath(target))
    try:
        parent = target.parent.resolve()
        root = Path(repo_root).resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop is a RuntimeError before 3.13
        raise ExportRefused(f"cannot use folder {target.parent}: {_why(exc)}") from None
    resolved = parent / target.name
    if resolved == root or root in resolved.parents:
        raise ExportRefused(
            f"{resolved} is inside the repository being read ({root}); choose a path outside it"
        )
    if resolved.is_dir():
        raise ExportRefused(f"{resolved} is a folder; give a file name")
    if not parent.is_dir():
        raise ExportRefused(f"folder {parent} does not exist")
    return resolved


def write_atomic(
    path: str | Path, text: str, repo_root: str | Path, *, overwrite: bool = False
) -> Path:
    """Write ``text`` (UTF-8) to ``path`` via a temporary file in the same folder.

    Without ``overwrite`` an existing file is refused (and the check is race-free: the
    temporary file is hard-linked into place, which fails if the name exists).
    """
    target = check_target(path, repo_root)
    if target.exists() and not overwrite:
        raise ExportExists(f"{target} already exists")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise ExportRefused(f"cannot write {target}: {_why(exc)}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if overwrite:
            os.replace(tmp, target)
        else:
            try:
                os.link(tmp, target)
            except FileExistsError:
                raise ExportExists(f"{target} already exists") from None
            except OSError:  # filesystems without hard links: fall back to a checked rename
                if target.exists():
                    raise ExportExists(f"{target} already exists") from None
                os.replace(tmp, target)
    except OSError as exc:
        raise ExportRefused(f"cannot write {target}: {_why(exc)}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return target


def _why(exc: Exception) -> str:
    """The reason of an OS error in words ("Too many levels of symbolic links")."""
    if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
        return "a symbolic link loops back on itself"
    return getattr(exc, "strerror", None) or str(exc)
