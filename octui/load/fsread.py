"""Reading one file of an untrusted working tree: inside the root, not hidden, regular, bounded.

Every file the tools read from a repository — its objects and ``opencontext.yaml`` —
goes through :func:`read_inside`:

- the path is resolved first (symbolic links inside the root are followed) and must stay
  inside the root, and no part of it below the root may be hidden (start with ``.``);
- the type is checked before opening (so a device is never opened: by an ``lstat`` just
  taken, or the one the folder's listing took, :func:`read_listed_regular`) and again on
  the opened descriptor (so a swap in between is caught); the open is non-blocking and
  does not follow a final link, so a FIFO can never block;
- at most ``cap + 1`` bytes are read, however big the file is or becomes.

Anything else raises :class:`RefusedFile` with the problem in the repository's words.
"""

from __future__ import annotations

import errno
import os
import stat

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_CHUNK = 1 << 16

OUTSIDE = "symbolic link leads outside the repository; not followed"
HIDDEN = "symbolic link leads to a hidden file or folder (name starting with '.'); not followed"
BROKEN = "broken symbolic link"


class RefusedFile(OSError):
    """A file the tools will not read; ``problem`` says why, ready for a finding."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a file"


def not_regular(mode: int) -> str:
    return f"not a regular file but {kind_of(mode)}; not read"


def inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def hidden_below(real: str, real_root: str) -> bool:
    """True when a part of ``real`` below ``real_root`` is hidden (starts with '.')."""
    rest = real[len(real_root) :].strip(os.sep)
    return any(part.startswith(".") for part in rest.split(os.sep) if part)


def resolve_inside(path: str, real_root: str) -> str:
    """The real path of ``path``: inside the root and not hidden below it, else refused.

    Raises ``FileNotFoundError`` when nothing is there and :class:`RefusedFile` for a
    broken link, a link out of the root or a link to something hidden.
    """
    if not os.path.lexists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    real = os.path.realpath(path)
    if not inside(real, real_root):
        raise RefusedFile(OUTSIDE)
    if not os.path.lexists(real):
        raise RefusedFile(BROKEN)
    if hidden_below(real, real_root):
        raise RefusedFile(HIDDEN)
    return real


def read_regular(real: str, cap: int, before: os.stat_result | None = None) -> bytes:
    """At most ``cap + 1`` bytes of the regular file at ``real`` (a resolved path);
    ``before`` is its ``lstat`` when the caller just took it."""
    if before is None:
        before = os.stat(real, follow_symlinks=False)
    if stat.S_ISDIR(before.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), real)
    if not stat.S_ISREG(before.st_mode):
        raise RefusedFile(not_regular(before.st_mode))  # never opened: a device stays shut
    return read_listed_regular(real, cap)


def read_listed_regular(real: str, cap: int) -> bytes:
    """:func:`read_regular` of a file whose ``lstat`` (taken when its folder was listed)
    showed a regular file: opened without following a final link, checked again on the
    descriptor, at most ``cap + 1`` bytes read."""
    fd = os.open(real, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), real)
        if not stat.S_ISREG(st.st_mode):
            raise RefusedFile(not_regular(st.st_mode))
        chunks: list[bytes] = []
        left = cap + 1
        # read(n) allocates n bytes up front: ask for what the file holds (a file that grows
        # meanwhile is read on, in small chunks, up to the cap)
        want = min(left, st.st_size + 1)
        while left > 0:
            asked = min(left, want)
            chunk = os.read(fd, asked)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            if len(chunk) < asked and cap + 1 - left == st.st_size:
                break  # all the descriptor said the file holds, and no more: its end
            want = _CHUNK
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_inside(path: str, real_root: str, cap: int) -> bytes:
    """Read ``path`` under the rules of this module (see the module's docstring)."""
    return read_regular(resolve_inside(path, real_root), cap)
