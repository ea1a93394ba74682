"""A persisted snapshot of a whole loaded repository, so a repeat one-shot load (the CLI) of
an unchanged tree skips every per-file cache look-up and the assembly.

The parse cache (:mod:`octui.load.parse_cache`) saves the parse of each file; this saves
what the files assemble to: the objects in order, the load findings and the objects' token
tables, in one file beside the parse cache. The tables are kept packed — every distinct token
once, each table as the numbers of its tokens (:class:`PackedTables`) — and a table is
unpacked when a resolution first reads it: a warm run reads a few of them (about 1,500 of
10,000 at 10k objects), and unpickling them all was a fifth of its load.

It is served only when everything the assembly read is the same as when it was written:

- the load's fingerprint (:class:`octui.load.fingerprint.Fingerprint`: the configuration's
  bytes, every walked file's path, size, mtime, inode and ctime, every unreadable path and
  source) is equal — so any edit, ``chmod``, added, removed or renamed file, or any change
  to the configuration, makes it stale; a file changed within the parse cache's racy window
  of the load is never snapshotted at all. Where the walk met no link and no problem, the
  snapshot also keeps every walked folder's identity (:meth:`octui.load.tree.FsTree.
  folder_identities`): while those and every file's key are unchanged, the walk would list
  the same entries, so the fingerprint is known from one ``lstat`` per folder and per file
  without listing a folder or making an entry (else the tree is walked as before);
- the root is the same path, spelled the same way;
- the configuration's YAML document is kept too (the same bytes make the same document),
  so a load the snapshot serves never imports YAML;
- the code is the same: the octui version, the Python version, the installed PyYAML and
  pydantic and the source of every module under ``octui/core`` and ``octui/load``.

The file is untrusted input, as the parse cache is: read only when private to this user,
checked against a CRC of its bytes (a corrupted file is refused before unpickling), and
unpickled by an unpickler that names nothing beyond :data:`_ALLOWED_GLOBALS` — plain data,
the instants and enumerations objects hold, and the two record classes, each built by its
own constructor. A packed table is plain numbers and bytes, checked when it is unpacked; one
that does not make a table is made from its object. Anything else unexpected is simply no
snapshot: the files are loaded as if there were none. It is written atomically (a temporary
file, then a rename).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import mmap
import os
import pickle
import sys
import zlib
from array import array
from collections.abc import Callable
from itertools import accumulate, chain
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, BinaryIO

from octui.core.model import ContextObject, Finding
from octui.core.tokens import TokenTable, TokenTables, is_token_table
from octui.core.version import __version__
from octui.load import parse_cache
from octui.load.assemble import Repository
from octui.load.atomic import write_atomically
from octui.load.config import Config
from octui.load.fingerprint import Fingerprint
from octui.load.parse_cache import _ALLOWED_GLOBALS as _PARSE_GLOBALS
from octui.load.parse_cache import ParseStore, _open_trusted
from octui.load.tree import FolderIdentity, same_tree

FORMAT = 4
"""Bumped whenever the payload changes: a snapshot of another format is refused."""
MAGIC = b"OCTUI-SNAPSHOT\n"

_ALLOWED_GLOBALS = _PARSE_GLOBALS | {
    ("octui.core.enums", "Authority"),
    ("octui.core.enums", "WarningCode"),
    ("octui.core.model", "ContextObject"),
    ("octui.core.model", "Finding"),
}
"""What a snapshot may name: the parse cache's classes, the findings' code, and the two
records — called on stored arguments, each builds a value and runs nothing else."""

_OBJECT_FIELDS = tuple(ContextObject.__dataclass_fields__)
_FINDING_FIELDS = tuple(Finding.__dataclass_fields__)


class _SnapshotUnpickler(pickle.Unpickler):
    """Refuses every global outside :data:`_ALLOWED_GLOBALS` and every persistent id."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED_GLOBALS:
            raise pickle.UnpicklingError(f"the snapshot names {module}.{name}: refused")
        return super().find_class(module, name)


def _by_constructor(cls: type, names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A reducer storing a record as its class and its fields in order, so loading it is one
    call of the class (faster than a slot-by-slot rebuild, and nothing but the constructor)."""
    values = attrgetter(*names)
    return lambda record: (cls, values(record))


_REDUCERS = {
    ContextObject: _by_constructor(ContextObject, _OBJECT_FIELDS),
    Finding: _by_constructor(Finding, _FINDING_FIELDS),
}


class _SnapshotPickler(pickle.Pickler):
    """Stores the records by :data:`_REDUCERS`, everything else as pickle does."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.dispatch_table = _REDUCERS


_CODE: str | None = None
_LIBRARIES = ("yaml", "pydantic", "pydantic_core")
"""The libraries a parse depends on."""


def _installed(module: str) -> str:
    """Which copy of ``module`` is installed — its path, size and mtime — found without
    importing it (a load served by a snapshot may never import it)."""
    try:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
        if origin is None:
            return f"{module}:-"
        st = os.stat(origin)
        return f"{module}:{origin}:{st.st_size}:{st.st_mtime_ns}"
    except (ImportError, ValueError, OSError):
        return f"{module}:?"


def code_fingerprint() -> str:
    """A hash of everything besides the files that decides what a load assembles: the
    versions, and the source of every module under ``octui/core`` and ``octui/load``."""
    global _CODE
    if _CODE is None:
        versions = [__version__, str(sys.version_info[:3])]
        versions += [_installed(module) for module in _LIBRARIES]
        digest = hashlib.sha256(f"{FORMAT}:{':'.join(versions)}".encode())
        here = Path(__file__).resolve().parent.parent
        for folder in ("core", "load"):
            for path in sorted((here / folder).glob("*.py")):
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
        _CODE = digest.hexdigest()
    return _CODE


Packed = tuple[list[str], str, bytes, bytes, bytes]
"""Token tables packed (:func:`packed`): every distinct token, sorted; the type code of the
token numbers (``H`` or ``I``); where each table starts in them (native ``I``, one more
than there are tables); the tables' token numbers one after another; their masks likewise."""

Loaded = tuple[list[ContextObject], list[Finding], int, Packed]
"""The objects (in order, numbered), the findings, how many files made no object, and every
object's token table, packed."""


def packed(tables: list[TokenTable]) -> Packed:
    """``tables`` packed: each distinct token kept once, and a table as its tokens' numbers
    (every loop in C: a repository's tables hold hundreds of thousands of tokens)."""
    each = list(map(itemgetter(0), tables))
    vocabulary = sorted(set(chain.from_iterable(each)))
    number = dict(zip(vocabulary, range(len(vocabulary)), strict=True))
    code = "H" if len(vocabulary) <= 1 << 16 else "I"
    # (an array made from a list takes two thirds of the time it takes from the iterator)
    numbers = array(code, list(map(number.__getitem__, chain.from_iterable(each))))
    starts = array("I", accumulate(map(len, each), initial=0))
    masks = b"".join(map(itemgetter(1), tables))
    return vocabulary, code, starts.tobytes(), numbers.tobytes(), masks


def _numbers(numbers: bytes, code: str) -> memoryview:
    """The token numbers of packed tables, as numbers of type ``code``."""
    return memoryview(numbers).cast("H") if code == "H" else memoryview(numbers).cast("I")


class PackedTables:
    """The token tables a snapshot kept for its objects, unpacked one at a time."""

    def __init__(self, objects: list[ContextObject], tables: Packed) -> None:
        vocabulary, code, starts, numbers, masks = tables
        self._objects = objects
        self._vocabulary = vocabulary
        self._starts = memoryview(starts).cast("I")
        self._numbers = _numbers(numbers, code)
        self._masks = masks

    def unpack(self, obj: ContextObject) -> TokenTable | None:
        """The table kept for ``obj``; None when what was kept does not make one."""
        uid = obj.uid
        try:
            if self._objects[uid] is not obj:
                return None
            start, end = self._starts[uid], self._starts[uid + 1]
            tokens = tuple(map(self._vocabulary.__getitem__, self._numbers[start:end]))
        except IndexError:
            return None
        table = (tokens, self._masks[start:end])
        return table if is_token_table(table) else None


Current = Callable[[Fingerprint, object], Fingerprint]
"""Given what a snapshot says its load saw — its fingerprint (of a fingerprint's shape) and
its folders' identities (or None, unchecked) —, the fingerprint of the files now."""


class SnapshotFile:
    """The snapshot of the repository at one root (spelled as given) in a cache folder."""

    def __init__(self, root: str, directory: Path) -> None:
        self.root = root
        self.absolute = os.path.abspath(root)
        name = hashlib.sha256(self.absolute.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        self.path = directory / f"{name}-repository.pickle"
        self.directory = directory

    def _origin(self) -> tuple[object, ...]:
        return (FORMAT, code_fingerprint(), self.root, self.absolute)

    def read(self, current: Current) -> tuple[Fingerprint, object, Loaded] | None:
        """The fingerprint of the files now, the configuration's YAML document and what the
        snapshot holds, when it was written for exactly that fingerprint (and this code and
        root), else None — never an exception (``current`` is called with what the
        snapshot's header says its load saw).

        The file is mapped, not read: a copy of tens of megabytes costs more than unpickling
        them (every page of a fresh buffer is faulted in and zeroed before it is filled). The
        bytes unpickled are the bytes checked: a snapshot is replaced by a rename, which
        leaves a mapped file as it was, and a file written in place meanwhile (only its
        owner can) changes its ``ctime`` and is refused. (Cutting it short in place meanwhile
        would stop the process, as for any mapped file: nothing of octui's ever does.) Where
        the file system cannot map files (some FUSE mounts), the file is read instead."""
        try:
            with _open_trusted(self.path) as handle:
                before = os.fstat(handle.fileno())
                try:
                    mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                except OSError:  # no mapping here: the bytes read serve as well, slower
                    loaded = self._unpickled(handle.read(), current)
                else:
                    with mapped:
                        loaded = self._unpickled(mapped, current)
                after = os.fstat(handle.fileno())
            if _identity(before) != _identity(after):
                return None  # written while it was read
            return loaded
        except Exception:
            return None

    def _unpickled(
        self, data: mmap.mmap | bytes, current: Current
    ) -> tuple[Fingerprint, object, Loaded] | None:
        if len(data) < len(MAGIC) + 4 or data[: len(MAGIC)] != MAGIC:
            return None
        start = len(MAGIC) + 4
        with memoryview(data) as view:
            crc = zlib.crc32(view[start:])
        if crc != int.from_bytes(data[len(MAGIC) : start]):
            return None  # corrupted: never unpickled
        stream = io.BytesIO(data) if isinstance(data, bytes) else data  # shares the bytes
        stream.seek(start)
        header = _SnapshotUnpickler(stream).load()
        if type(header) is not tuple or len(header) != 7 or header[:4] != self._origin():
            return None
        stored = Fingerprint.stored(header[4])
        if stored is None:
            return None  # not a fingerprint a scan makes: never served
        fingerprint = current(stored, header[5])
        if fingerprint != stored:
            return None  # stale: the payload after the header is never read
        loaded = _checked(_SnapshotUnpickler(stream).load())
        return None if loaded is None else (fingerprint, header[6], loaded)

    def write(
        self,
        fingerprint: Fingerprint,
        folders: tuple[FolderIdentity, ...] | None,
        config_data: object,
        loaded: Loaded,
    ) -> None:
        """Store ``loaded`` for ``fingerprint`` (with the walked ``folders``' identities, when
        known, and the configuration's YAML document) atomically; a failure leaves no
        snapshot."""
        buffer = io.BytesIO()
        try:
            # Two pickles, each with its own memo: the header is read (and found stale) alone.
            header = (*self._origin(), tuple(fingerprint), folders, config_data)  # plain tuples
            _SnapshotPickler(buffer).dump(header)
            _SnapshotPickler(buffer).dump(loaded)
        except Exception:
            return  # no snapshot: the next load assembles again
        body = buffer.getbuffer()

        def fill(handle: BinaryIO) -> None:
            handle.write(MAGIC + zlib.crc32(body).to_bytes(4, "big"))
            handle.write(body)

        write_atomically(self.path, fill)

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.path)


def _identity(st: os.stat_result) -> tuple[int, ...]:
    """What any write to a file changes: its size, ``mtime`` and ``ctime`` (and its inode)."""
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _checked(payload: Any) -> Loaded | None:
    """``payload`` when it has exactly the shape :meth:`SnapshotFile.write` stores, else None."""
    if type(payload) is not tuple or len(payload) != 4:
        return None
    objects, findings, invalid, tables = payload
    if type(objects) is not list or type(findings) is not list or type(invalid) is not int:
        return None
    for uid, obj in enumerate(objects):
        if type(obj) is not ContextObject or obj.uid != uid or type(obj.path) is not str:
            return None
    if any(type(f) is not Finding for f in findings):
        return None
    return (objects, findings, invalid, tables) if _packed_shape(tables, len(objects)) else None


def _packed_shape(tables: object, count: int) -> bool:
    """Whether ``tables`` has the shape :func:`packed` gives for ``count`` tables (what each
    table's numbers say is checked when it is unpacked)."""
    if type(tables) is not tuple or len(tables) != 5:
        return False
    vocabulary, code, starts, numbers, masks = tables
    if type(vocabulary) is not list or not set(map(type, vocabulary)) <= {str}:
        return False
    if code not in ("H", "I") or {type(starts), type(numbers), type(masks)} != {bytes}:
        return False
    try:
        starts_count = len(memoryview(starts).cast("I"))
        return starts_count == count + 1 and len(_numbers(numbers, code)) == len(masks)
    except TypeError:  # not a whole number of items
        return False


# -- what the loader calls ---------------------------------------------------------------------


def snapshot_of(store: object, root: str) -> SnapshotFile | None:
    """The snapshot beside ``store`` when it is a persistent parse cache that keeps them."""
    if not isinstance(store, ParseStore) or not store.snapshots:
        return None
    return SnapshotFile(root, store.directory)


def unchanged(root: str, raw_config: bytes, stored: Fingerprint, folders: object) -> bool:
    """Whether the files at ``root`` are exactly those a snapshot's load saw (its
    ``stored`` fingerprint), told by its ``folders``' identities and its files' keys alone:
    only for a load that met no problem and no unavailable source."""
    if type(folders) is not tuple or stored.config != raw_config:
        return False
    if stored.problems or stored.unavailable or stored.keys is None:
        return False
    return same_tree(root, folders, stored.keys)


def from_snapshot(
    store: object,
    root: str,
    current: Current,
    configured: Callable[[object], Config],
    tokens: TokenTables,
) -> Repository | None:
    """The repository a snapshot kept for exactly the files now (``current``), its
    configuration made by ``configured`` from the kept YAML document, its token tables put
    into ``tokens``; None when there is none, or it is stale or unusable."""
    snapshot = snapshot_of(store, root)
    found = snapshot.read(current) if snapshot is not None else None
    if found is None:
        return None
    fingerprint, config_data, (objects, findings, invalid, tables) = found
    try:
        config = configured(config_data)
    except Exception:  # never for the document of these bytes; anything else: no snapshot
        return None
    tokens.put_packed(objects, PackedTables(objects, tables).unpack)
    unavailable = fingerprint.unavailable  # the load's unavailable sources, as its scan saw
    repo = Repository(root, config, objects, findings, list(unavailable), invalid)
    repo.tokens = tokens
    return repo


def keep_snapshot(
    store: object,
    root: str,
    fingerprint: Fingerprint,
    folders: tuple[FolderIdentity, ...] | None,
    config_data: object,
    repo: Repository,
    *,
    racy: bool,
) -> None:
    """Snapshot ``repo``, just assembled for ``fingerprint`` (every object's token table made
    now, so the next load has them all; ``folders``: the walked folders' identities when they
    can stand for listing them) — unless a file was changed too recently to be told
    apart from a later write (``racy``), when the snapshot is removed instead. A repository of
    fewer than the parse cache's ``MIN_ENTRIES`` files gets none.

    Only a load the parse cache served whole (no file parsed anew) is snapshotted: writing one
    costs about as much as the load, so a repository is kept once it was seen unchanged twice,
    and someone editing and re-running between edits never pays for snapshots never read."""
    snapshot = snapshot_of(store, root)
    if snapshot is None:
        return
    keys = fingerprint.keys
    settled = isinstance(store, ParseStore) and store.misses == 0
    if racy or not settled or keys is None or len(keys) < parse_cache.MIN_ENTRIES:
        snapshot.remove()
        return
    tables = packed([repo.tokens.get(obj) for obj in repo.objects])
    loaded = (repo.objects, repo.findings, repo.invalid_files, tables)
    snapshot.write(fingerprint, folders, config_data, loaded)
