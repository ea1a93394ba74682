"""A persistent parse cache in the user's cache directory, so a repeat cold run skips parsing.

One file per repository root, named by a hash of the root's absolute path, in
``$XDG_CACHE_HOME/octui`` (else the platform's user cache directory). It maps
each file's path to ``(size, mtime_ns, inode, ctime_ns, parsed result)``; parsing is a
pure function of a file's bytes, so a file whose identity is unchanged needs no
parse. The identity includes the inode and ``st_ctime_ns``, which only the kernel sets:
an edit whose mtime is restored afterwards (``tar -x``, ``rsync -a``, ``cp -p``,
``os.utime``) still changes the ctime, so it is never served from the cache. The cache
never changes results:

- it is never inside the repository (a cache directory inside the root disables it);
- it is tied to the cache format, the Python version and a fingerprint of the parser's
  own source, so a different parser never reads another's results;
- a file modified (mtime or ctime) within :data:`RACY_NS` of being parsed is not stored,
  since a second write in the same clock tick could keep its size and timestamps;
- anything unexpected on reading (missing, truncated, corrupt, foreign, wrong shape)
  is a miss: the file is parsed again, as if there were no cache;
- it is untrusted input: it is read only when private to this user, and then by an
  unpickler that builds plain data and nothing else (:class:`_PlainUnpickler`: the only
  classes it will name are the datetimes and enumerations a parse holds), so even a
  hostile file runs no code;
- it is written atomically (a temporary file, then a rename), so readers never see a
  half-written cache, and a failure to write is silently a cache that stays cold.

A repository of fewer than :data:`MIN_ENTRIES` files gets no cache file, and the directory
keeps only the :data:`MAX_FILES` most recently written files (at most :data:`MAX_BYTES`).
``OCTUI_NO_CACHE=1`` (or the CLI's ``--no-cache``) disables it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from octui.core.model import OBJECT_FIELDS
from octui.core.tokens import fields_token_table, is_token_table
from octui.core.version import __version__
from octui.load.atomic import TEMPORARY_PREFIX, write_atomically
from octui.load.parsed import ParsedFile
from octui.load.tree import FileKey

FORMAT = 3
"""Bumped whenever the payload changes: a cache of another format is cold."""
ENV_DISABLE = "OCTUI_NO_CACHE"
RACY_NS = 2_000_000_000
MIN_ENTRIES = 100
"""A smaller repository parses in a blink: it gets no cache file."""
MAX_FILES = 32
MAX_BYTES = 1 << 30
"""The cache directory keeps the most recently written files within these bounds."""
_PARSER_MODULES = (
    "load/frontmatter",
    "load/tree",  # the size limit
    "load/loader",  # read errors
    "load/fastpath",
    "core/model",
    "core/validation",  # the front-matter model, for files off the fast path
    "load/strict_yaml",
    "core/timeutil",
    "core/enums",
    "load/config",
    "load/config_values",  # the wording of a field's error
    "core/tokens",  # the token tables kept beside each parsed file
)
"""The modules, relative to the package folder, whose source decides what a file parses to."""

Key = FileKey
Payload = tuple[int, int, int, int, tuple[Any, ...] | None, tuple[str, ...], str | None, bool, Any]


def _parser_fingerprint() -> str:
    """A hash of the source of every module that decides what a file parses to."""
    digest = hashlib.sha256(f"{FORMAT}:{__version__}:{sys.version_info[:2]}".encode())
    here = Path(__file__).resolve().parent.parent
    for name in _PARSER_MODULES:
        digest.update((here / f"{name}.py").read_bytes())
    return digest.hexdigest()


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/octui`` when set (absolute), else the platform's user cache dir."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "octui"
    import platformdirs

    return Path(platformdirs.user_cache_dir("octui", appauthor=False))


def disabled_by_env() -> bool:
    return os.environ.get(ENV_DISABLE, "").strip().lower() not in ("", "0", "false", "no")


def _inside(path: Path, root: Path) -> bool:
    real, real_root = os.path.realpath(path), os.path.realpath(root)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def open_store(
    root: str | Path, directory: Path | None = None, *, snapshots: bool = False
) -> ParseStore | None:
    """The store for the repository at ``root``, or None when caching is off or unsafe
    (``snapshots``: see :class:`ParseStore`)."""
    if disabled_by_env():
        return None
    try:
        where = directory if directory is not None else cache_dir()
        if _inside(where, Path(root)):
            return None  # never write into the repository
        return ParseStore(root, where, snapshots=snapshots)
    except Exception:
        return None


_ALLOWED_GLOBALS = frozenset(
    {
        ("datetime", "datetime"),
        ("datetime", "date"),
        ("datetime", "timedelta"),
        ("datetime", "timezone"),
        ("octui.core.enums", "Status"),
        ("octui.core.enums", "Layer"),
    }
)
"""Every class a stored parse names (its instants and its enumerations); calling any of them
on stored arguments builds a value and runs nothing else."""


class _PlainUnpickler(pickle.Unpickler):
    """An unpickler that refuses every global outside :data:`_ALLOWED_GLOBALS` (so no
    ``os.system`` or other callable can be reached from the file) and every persistent id."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED_GLOBALS:
            raise pickle.UnpicklingError(f"the cache names {module}.{name}: refused")
        return super().find_class(module, name)


class UntrustedCache(OSError):
    """The cache file could be written by someone else: never unpickle it."""


def _private(st: os.stat_result) -> bool:
    """Owned by this user and writable by nobody else."""
    owner_ok = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return owner_ok and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _open_trusted(path: Path) -> BinaryIO:
    """Open a cache file for unpickling only if it and its folder are private to this user.

    Unpickling runs code, so a cache in a shared or world-writable ``XDG_CACHE_HOME``
    (or a link planted there) is treated as cold rather than trusted.
    """
    if not _private(os.stat(path.parent)):
        raise UntrustedCache(f"{path.parent} is writable by other users")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        if not _private(os.fstat(fd)):
            raise UntrustedCache(f"{path} is writable by other users")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def racy_keys(keys: Iterable[Key]) -> bool:
    """Whether any of these files was modified within :data:`RACY_NS` of now."""
    racy = time.time_ns() - RACY_NS
    return any(max(key[2], key[4]) >= racy for key in keys)


class ParseStore:
    """Parsed files of one repository root, loaded lazily and written atomically.

    With ``snapshots``, a one-shot load (:func:`octui.load.loader.load_repository`) also
    keeps the whole assembled repository beside it (:mod:`octui.load.snapshot`) and is
    served from it while no file changed."""

    def __init__(self, root: str | Path, directory: Path, *, snapshots: bool = False) -> None:
        self.root = os.path.abspath(root)
        self.directory = directory
        self.snapshots = snapshots
        name = hashlib.sha256(self.root.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        self.path = directory / f"{name}.pickle"
        self._fingerprint: str | None = None
        self._entries: dict[str, Payload] | None = None
        self.hits = 0
        self.misses = 0

    # -- reading ---------------------------------------------------------------------------

    def _load(self) -> dict[str, Payload]:
        if self._entries is None:
            self._entries = {}
            try:
                self._fingerprint = _parser_fingerprint()
                with _open_trusted(self.path) as handle:
                    doc = _PlainUnpickler(handle).load()
                if (
                    type(doc) is dict
                    and doc.get("fingerprint") == self._fingerprint
                    and doc.get("root") == self.root
                    and type(doc.get("entries")) is dict
                ):
                    self._entries = doc["entries"]
            except Exception:  # missing, unreadable, corrupt or foreign: a cold cache
                self._entries = {}
        return self._entries

    def get(self, key: Key) -> ParsedFile | None:
        rel = key[0]
        entries = self._entries if self._entries is not None else self._load()
        payload = entries.get(rel)
        result = None
        if type(payload) is tuple and payload[:4] == tuple(key[1:]):
            result = _unpack(rel, payload)
        if result is None:
            self.misses += 1
        else:
            self.hits += 1
        return result

    # -- writing ---------------------------------------------------------------------------

    def put_many(self, items: dict[Key, ParsedFile]) -> None:
        """Remember freshly parsed files (one entry per path) and write the cache."""
        entries = self._load()
        if self._fingerprint is None:
            return  # the parser's own source could not be read: never guess a fingerprint
        racy = time.time_ns() - RACY_NS
        changed = False
        for (rel, size, mtime_ns, ino, ctime_ns), parsed in items.items():
            if max(mtime_ns, ctime_ns) >= racy:
                continue
            payload = _pack((size, mtime_ns, ino, ctime_ns), parsed)
            if payload is not None:
                entries[rel] = payload
                changed = True
        if changed and len(entries) >= MIN_ENTRIES:
            self._write(entries)
            _prune(self.directory, self.path)

    def _write(self, entries: dict[str, Payload]) -> None:
        doc = {"fingerprint": self._fingerprint, "root": self.root, "entries": entries}
        write_atomically(
            self.path, lambda handle: pickle.dump(doc, handle, protocol=pickle.HIGHEST_PROTOCOL)
        )


# -- packing: plain tuples load several times faster than dataclasses and dicts ----------------


def _pack(identity: tuple[int, int, int, int], parsed: ParsedFile) -> Payload | None:
    """The payload to store, or None when the result is not of the expected shape."""
    values = tokens = None
    if parsed.fields is not None:
        if tuple(parsed.fields) != OBJECT_FIELDS:
            return None
        values = tuple(parsed.fields.values())
        tokens = parsed.tokens
        if tokens is None:
            try:
                tokens = fields_token_table(parsed.fields)
            except Exception:
                tokens = None  # ranking computes it when needed
    return (*identity, values, parsed.unknown, parsed.error, parsed.skipped, tokens)


def _unpack(rel: str, payload: Any) -> ParsedFile | None:
    """The parsed file a payload holds, or None when it is not exactly the expected shape."""
    try:
        _size, _mtime, _ino, _ctime, values, unknown, error, skipped, tokens = payload
        if type(unknown) is not tuple or type(skipped) is not bool:
            return None
        if error is not None and type(error) is not str:
            return None
        fields = None
        if values is not None:
            names = OBJECT_FIELDS
            if type(values) is not tuple or len(values) != len(names):
                return None
            fields = dict(zip(names, values, strict=True))
        if tokens is not None and not (fields is not None and is_token_table(tokens)):
            tokens = None  # not a token table: ranking computes it again
        return ParsedFile(
            rel, fields=fields, unknown=unknown, error=error, skipped=skipped, tokens=tokens
        )
    except Exception:
        return None


def _prune(directory: Path, keep: Path) -> None:
    """Delete the least recently written cache files beyond MAX_FILES or MAX_BYTES, and
    temporary files an interrupted writer left over an hour ago. Never fails."""
    try:
        now = time.time()
        found = []
        for entry in os.scandir(directory):
            st = entry.stat(follow_symlinks=False)
            if entry.name.endswith(".pickle"):
                found.append((st.st_mtime, st.st_size, entry.path))
            elif entry.name.startswith(TEMPORARY_PREFIX) and now - st.st_mtime > 3600:
                os.unlink(entry.path)
        found.sort(reverse=True)
        total = 0
        for count, (_mtime, size, path) in enumerate(found):
            total += size
            if path != str(keep) and (count >= MAX_FILES or total > MAX_BYTES):
                os.unlink(path)
    except OSError:
        pass
