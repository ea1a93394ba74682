"""A load's fingerprint: what it saw on disk, compared to tell whether anything changed.

A fingerprint holds the configuration file's bytes and every file's key (path, size,
mtime, inode, ctime) in walk order, with the paths that could not be read and the sources
that were unavailable. Equal fingerprints mean nothing to reload; restoring a file's mtime
after an edit does not make them equal (its ctime changed). The loader keeps the last
load's, the session computes one now, the explorer compares the two (and names the files
that differ), and a repository snapshot stores the one it was written for — as a plain
tuple, which a fingerprint equals.
"""

from __future__ import annotations

from typing import NamedTuple

from octui.load.tree import Entry, FileKey

Pairs = tuple[tuple[str, str], ...]
"""(path, why) pairs: the unreadable paths, or the unavailable sources."""


class Fingerprint(NamedTuple):
    config: bytes | None
    """The configuration file's bytes; None when it could not be read."""
    keys: tuple[FileKey, ...] | None
    """Every file's key in walk order; None when the configuration is not valid (nothing
    was scanned)."""
    problems: Pairs = ()
    unavailable: Pairs = ()

    @property
    def scanned(self) -> bool:
        """Whether the files were scanned (the configuration was read and valid)."""
        return self.keys is not None

    def with_files(self, config: bytes, keys: tuple[FileKey, ...]) -> Fingerprint:
        """This fingerprint with the configuration's bytes and the files' keys replaced (a
        reload told which paths changed: its problems and sources are the last scan's)."""
        return self._replace(config=config, keys=keys)

    @classmethod
    def stored(cls, value: object) -> Fingerprint | None:
        """The fingerprint a snapshot stored (a plain tuple), when it has the shape of one
        made by a scan; None otherwise (the snapshot is then not used)."""
        if type(value) is not tuple or len(value) != 4:
            return None
        config, keys, problems, unavailable = value
        if type(config) is not bytes or type(keys) is not tuple:
            return None
        if type(problems) is not tuple or type(unavailable) is not tuple:
            return None
        return cls(config, keys, problems, unavailable)


NO_CONFIG = Fingerprint(None, None)
"""What a look at a repository without a readable configuration file sees."""


def invalid_config(raw: bytes) -> Fingerprint:
    """What a look at a repository whose configuration is not valid sees (its bytes: a fix
    changes them)."""
    return Fingerprint(raw, None)


def fingerprint_of(
    raw_config: bytes,
    files: list[tuple[str, Entry]],
    problems: list[tuple[str, str]],
    unavailable: list[tuple[str, str]],
    keys: list[FileKey] | None = None,
) -> Fingerprint:
    """What a scan saw. ``keys``: the files' keys when already made (in the order of
    ``files``)."""
    return Fingerprint(
        raw_config,
        tuple(e.key for _, e in files) if keys is None else tuple(keys),
        tuple(problems),
        tuple(unavailable),
    )
