"""The digest's encoded pieces, kept by whoever owns what they encode.

The canonical JSON of a list is its items' canonical JSON joined by commas, and the
digest payload's keys sort as exclusions, objects, warnings; so the digest is hashed from
pieces, each item encoded once:

- :class:`Pieces`, one per repository (kept in its
  :class:`~octui.resolve.cache.ResolutionCache`'s memo, so it dies with the repository):
  each object's form once, in parts around its body, lifecycle and staleness (no body is
  kept but the last digest's, as every role and instant shares the parts); each exclusion
  record shared by stages (an object's, without related ids) by its identity, the record
  held while it is a key; denials, related ids and warnings by the values their forms hold
  (equal records made by another role share the piece);
- per stage (kept in the stage's memo): for resolutions whose exclusions and warnings are
  the very records the stage sorted (step 8 trimmed nothing), the hash state after the
  exclusions and the warnings' joined bytes, so a new task hashes only its objects.

Every piece is the canonical JSON of SPEC §5's digest form, byte for byte: a value the
fast writers do not vouch for is written by :func:`~octui.bundle.jsonout.dumps_canonical`.

Thread-safety: value tables are only added to (a dict item stored is atomic; a full one is
emptied); two threads racing for one piece encode equal bytes and either is kept. Holding a
record and keying its piece by its address happen together under a lock, so no key ever
outlives its record.
"""

from __future__ import annotations

import hashlib
import operator
import threading
from collections import deque
from collections.abc import Callable, Collection, Sequence
from itertools import compress, repeat
from operator import is_
from typing import TYPE_CHECKING, Any

from octui.bundle.forms import (
    ObjectParts,
    exclusion_digest_form,
    object_digest_form,
    object_parts,
    warning_digest_form,
)
from octui.bundle.jsonout import dumps_canonical, dumps_plain
from octui.core.enums import DENIALS, ExclusionReason, Lifecycle, WarningCode
from octui.core.model import ContextObject, Exclusion, Finding
from octui.resolve.memo import Memo
from octui.resolve.result import Included

if TYPE_CHECKING:
    from hashlib import _Hash

EXCLUSIONS = 1 << 18
"""Exclusion or warning pieces kept per repository at most (a table is emptied when full)."""

_HEAD = b'{"exclusions":['
_MIDDLE = b'],"objects":['
_WARNINGS = b'],"warnings":['
_TAIL = b"]}"
_COMMA = b","
_FLUSH = 512
"""Pieces and commas joined and hashed at a time: 256 objects, about half a megabyte of
the synthetic bodies, which the hash reads back from the processor's cache. (A role seeing
most of 50,000 objects would otherwise join every body into one more copy, 40 MB, only to
hash it; 2,048 objects at a time, 4 MB, went out to memory and back: a new task's objects
at 50,000 hashed in about 20 ms instead of 17.5.)"""
_CHUNK = 2048
"""Objects whose parts :meth:`Pieces.prepare` makes between two looks at whether to stop
(about 8 ms)."""
_TRUE, _FALSE = b"true", b"false"
_LIFECYCLES = {lifecycle: dumps_canonical(lifecycle.value) for lifecycle in Lifecycle}
_REASONS = {reason: dumps_canonical(reason.value) for reason in ExclusionReason}
_CODES = {code: dumps_canonical(code.value) for code in WarningCode}
_SEVERITIES = {code: dumps_canonical(code.severity.value) + b"}" for code in WarningCode}
_BY_VALUE = frozenset(
    (ExclusionReason.SOURCE_UNAVAILABLE, ExclusionReason.OUTRANKED, ExclusionReason.CONFLICT)
)
"""Reasons whose records are made anew by each stage or resolution (a source's, and those
naming their winners): their pieces are kept by value. Every other record is handed out
again by the prepared tables (denials per id, the rest per object), so its piece is kept
by the record's identity."""
_PLAIN_RECORD = b'{"id":%b,"reason":%b,"related":[],"version":%d}'
"""The piece of a record naming no other object, with an int version (``%d`` writes an int
as ``json`` does, however large)."""
_WHOLE: ObjectParts = (b"", b"", b"", b"")
"""The parts kept for an object whose form is encoded whole each time (see object_parts)."""


class _Unusual(Exception):
    """A value the fast writers do not vouch for: encode it by the definition."""


def object_piece(obj: ContextObject, lifecycle: Lifecycle, stale: bool) -> bytes:
    """The canonical JSON of an included object's digest form."""
    return dumps_canonical(object_digest_form(obj, lifecycle, stale))


def exclusion_key(ex: Exclusion) -> tuple[Any, ...]:
    """What an exclusion's digest form holds (a denial: its id and reason)."""
    if ex.reason in DENIALS:
        return (ex.id, ex.reason)
    return (ex.id, ex.version, ex.reason, ex.related)


def exclusion_piece(ex: Exclusion) -> bytes:
    """The canonical JSON of an exclusion's digest form: written from its fields when they
    have the model's types, else by :func:`dumps_canonical` (which raises what it raises)."""
    try:
        reason = _REASONS[ex.reason]
        if type(ex.id) is str and ex.reason in DENIALS:
            return b'{"id":' + dumps_plain(ex.id) + b',"reason":' + reason + b"}"
        version, related = ex.version, ex.related
        if type(ex.id) is str and type(version) is int and related == ():
            # the common record (an object's, naming no other): one encoding, one format
            return _PLAIN_RECORD % (dumps_plain(ex.id), reason, version)
        typed = type(ex.id) is str and (version is None or type(version) is int)
        if typed and type(related) is tuple and type("".join(related)) is str:
            head = b'{"id":' + dumps_plain(ex.id) + b',"reason":' + reason
            tail = b',"version":' + dumps_plain(version) + b"}"
            return head + b',"related":' + dumps_plain(related) + tail
    except (KeyError, TypeError, ValueError):  # an unknown reason, a lone surrogate, ...
        pass
    return dumps_canonical(exclusion_digest_form(ex))


def warning_piece(w: Finding) -> bytes:
    """The canonical JSON of a warning's digest form (keys: code, ids, severity): written
    from its fields when they have the model's types, else by :func:`dumps_canonical`."""
    try:
        code, ids = _CODES[w.code], w.ids
        if type(ids) is tuple and type("".join(ids)) is str:
            severity = _SEVERITIES[w.code]
            return b'{"code":' + code + b',"ids":' + dumps_plain(ids) + b',"severity":' + severity
    except (KeyError, TypeError, ValueError):  # an unknown code, a lone surrogate, ...
        pass
    return dumps_canonical(warning_digest_form(w))


def joined_digest(exclusions: bytes, objects: bytes, warnings: bytes) -> str:
    """SPEC §5's digest of a bundle given each array's pieces joined by commas: the one
    place, with :class:`Listing`, that writes the frame around them."""
    hashed = hashlib.sha256(_HEAD)
    for part in (exclusions, _MIDDLE, objects, _WARNINGS, warnings, _TAIL):
        hashed.update(part)
    return "sha256:" + hashed.hexdigest()


class Pieces:
    """The digest's pieces encoded for one repository's resolutions (see the module)."""

    def __init__(self, objects: list[ContextObject] | None = None) -> None:
        self._objects = objects if objects is not None else []
        """The repository's objects by uid: parts by uid serve only that very object."""
        self._parts: dict[int, ObjectParts] = {}
        self._last: dict[int, tuple[bytes, Lifecycle, bool]] = {}
        """The pieces of the objects in the last digest, with the lifecycle and staleness
        they were made for, by uid: the next digest (a new task, role or instant) mostly
        shows the same objects so, and only one bundle's bodies are held."""
        self._records: dict[int, bytes] = {}
        """Pieces of exclusion records by the record's identity; each record is held in
        :attr:`_held` while it is a key, so its address is never another's."""
        self._held: list[Exclusion] = []
        self._holding = threading.Lock()
        self._exclusions: dict[tuple[Any, ...], bytes] = {}
        self._warnings: dict[tuple[Any, ...], bytes] = {}

    def parts(self, obj: ContextObject) -> ObjectParts:
        """``obj``'s digest form around its content, lifecycle and staleness (see
        :func:`object_parts`; ``_WHOLE`` when it is encoded whole), kept if it is this
        repository's object."""
        uid = obj.uid
        objects = self._objects
        ours = 0 <= uid < len(objects) and objects[uid] is obj
        found = self._parts.get(uid) if ours else None
        if found is None:
            found = object_parts(obj) or _WHOLE
            if ours:
                self._parts[uid] = found
        return found

    def prepare(self, cancelled: Callable[[], bool]) -> bool:
        """Make the parts of every object of the repository not made yet, :data:`_CHUNK`
        objects at a time (so a first visit to a role only joins and hashes its objects'
        pieces); False when ``cancelled()`` said stop between two chunks (what was made is
        kept: the next call goes on from there)."""
        objects, parts = self._objects, self.parts
        for start in range(0, len(objects), _CHUNK):
            if cancelled():
                return False
            deque(map(parts, objects[start : start + _CHUNK]), maxlen=0)
        return True

    def included(self, inc: Included) -> bytes:
        """The canonical JSON of ``inc``'s digest form (made from its object's parts)."""
        out: list[bytes] = []
        try:
            self._append(out, [inc])
        except (_Unusual, KeyError, TypeError, ValueError):
            return object_piece(inc.obj, inc.lifecycle, inc.stale)
        return b"".join(out[:-1])

    def objects_bytes(self, included: list[Included]) -> bytes:
        """The included objects' pieces joined by commas."""
        out: list[bytes] = []
        try:
            self._append(out, included)
        except (_Unusual, KeyError, TypeError, ValueError):  # one object by the definition
            return b",".join([self.included(i) for i in included])
        return b"".join(out[:-1])

    def hash_objects(self, hashed: _Hash, included: list[Included]) -> _Hash:
        """``hashed`` (a copy) updated with the included objects' pieces joined by commas, a
        few thousand pieces at a time: never one copy of every body at once."""
        out: list[bytes] = []
        into = hashed.copy()
        try:
            self._append(out, included, into.update)
        except (_Unusual, KeyError, TypeError, ValueError):  # one object by the definition
            into = hashed.copy()
            into.update(b",".join([self.included(i) for i in included]))
            return into
        into.update(b"".join(out[:-1]))
        return into

    def _append(
        self,
        out: list[bytes],
        included: list[Included],
        flush: Callable[[bytes], object] | None = None,
    ) -> None:
        """Add to ``out`` each object's piece and a comma after each (made from its parts
        unless the last digest made it); raises when a piece must be encoded by the
        definition instead (an odd value). With ``flush``, every few thousand pieces are
        handed to it joined (all but the last comma) instead of kept in ``out``."""
        add = out.extend
        known = self._parts.get
        objects = self._objects
        count = len(objects)
        lifecycles = _LIFECYCLES
        last = self._last.get
        made: dict[int, tuple[bytes, Lifecycle, bool]] = {}
        for inc in included:
            if flush is not None and len(out) > _FLUSH:
                flush(b"".join(out[:-1]))
                del out[:-1]
            obj = inc.obj
            uid = obj.uid
            ours = 0 <= uid < count and objects[uid] is obj
            if ours:
                kept = last(uid)
                if kept is not None and kept[1] is inc.lifecycle and kept[2] is inc.stale:
                    made[uid] = kept
                    add((kept[0], _COMMA))
                    continue
            parts = known(uid) if ours else None
            if parts is None:
                parts = self.parts(obj)
            if parts is _WHOLE:
                add((object_piece(obj, inc.lifecycle, inc.stale), _COMMA))
                continue
            stale = inc.stale
            if stale is True:
                flag = _TRUE
            elif stale is False:
                flag = _FALSE
            else:
                raise _Unusual
            pre, mid, review, tail = parts
            text = dumps_plain(obj.content)  # joined at once, so orjson's buffer is not kept
            piece = b"".join((pre, text, mid, lifecycles[inc.lifecycle], review, flag, tail))
            if ours:
                made[uid] = (piece, inc.lifecycle, stale)
            add((piece, _COMMA))
        self._last = made

    def carried(self, objects: Sequence[ContextObject], replaced: Collection[int]) -> Pieces:
        """These pieces for the repository whose objects are ``objects``: the same but for the
        places ``replaced`` (parts are a function of their object, which the other places
        still hold; exclusions and warnings are kept by value and by the held record)."""
        made = Pieces(list(objects))
        # Copied whole (one C call each: another thread may be adding parts meanwhile, which
        # would stop a Python loop iterating the table itself), then the replaced places
        # dropped: a pass over the few replaced, not over every place.
        made._parts, made._last = dict(self._parts), dict(self._last)
        for uid in replaced:
            made._parts.pop(uid, None)
            made._last.pop(uid, None)
        with self._holding:
            made._records, made._held = dict(self._records), list(self._held)
        made._exclusions = dict(self._exclusions)
        made._warnings = dict(self._warnings)
        return made

    def exclusion(self, ex: Exclusion) -> bytes:
        """The piece of ``ex``: a record handed out again by the prepared tables (a denial,
        shared by every role denying the id so; any other, shared by every stage that
        excludes the object so) by its identity; one made anew by each stage or resolution
        (equal to others: a source's, an outranked or conflict record) by its value."""
        piece = self._records.get(id(ex))
        if piece is not None:
            return piece
        return self._encoded(ex)

    def _encoded(self, ex: Exclusion) -> bytes:
        """:meth:`exclusion` of a record whose piece is not kept by its identity."""
        if ex.reason in _BY_VALUE:
            return _bounded(self._exclusions, exclusion_key(ex), exclusion_piece, ex)
        piece = exclusion_piece(ex)
        self._hold([ex], [piece])
        return piece

    def _hold(self, records: list[Exclusion], made: list[bytes]) -> None:
        """Keep ``made[i]`` as the piece of ``records[i]`` by the record's identity, each
        record held while it is a key (under the lock, so no key outlives its record); the
        table is emptied whole first when it would hold more than :data:`EXCLUSIONS`."""
        with self._holding:
            if len(self._held) + len(records) > EXCLUSIONS:
                self._records, self._held = {}, []
            self._held += records
            self._records.update(zip(map(id, records), made, strict=True))

    def exclusions_bytes(self, exclusions: list[Exclusion]) -> bytes:
        """The exclusions' pieces joined by commas (a piece is never empty)."""
        return b",".join(self._exclusion_pieces(exclusions))

    def keep(self, exclusions: list[Exclusion]) -> None:
        """Make the pieces of ``exclusions`` not made yet (records handed out again by the
        prepared tables: a session prepares those a role's first visit would meet)."""
        self._exclusion_pieces(exclusions)

    def _exclusion_pieces(self, exclusions: list[Exclusion]) -> list[bytes]:
        """The exclusions' pieces: those kept read in one C loop, the others made in one
        pass and kept under one lock (a new role meets thousands of records no earlier one
        listed)."""
        pieces: list[bytes | None] = list(map(self._records.get, map(id, exclusions)))
        missing = list(compress(range(len(pieces)), map(is_, pieces, repeat(None))))
        if missing:
            self._fill(pieces, exclusions, missing)
        return pieces  # type: ignore[return-value]

    def _fill(self, pieces: list[bytes | None], exclusions: list[Exclusion], at: list[int]) -> None:
        """Put in ``pieces`` the piece of each exclusion at the places ``at`` (as
        :meth:`_encoded` makes it; the common record written here)."""
        held: list[Exclusion] = []
        made: list[bytes] = []
        reasons, plain = _REASONS.get, _PLAIN_RECORD
        for place in at:
            ex = exclusions[place]
            reason = ex.reason
            if reason in _BY_VALUE:
                pieces[place] = _bounded(self._exclusions, exclusion_key(ex), exclusion_piece, ex)
                continue
            encoded, version = reasons(reason), ex.version
            if (
                encoded is not None
                and type(version) is int
                and type(ex.id) is str
                and ex.related == ()
                and reason not in DENIALS
            ):  # exclusion_piece's common record, without a call
                piece = plain % (dumps_plain(ex.id), encoded, version)
            else:
                piece = exclusion_piece(ex)
            pieces[place] = piece
            held.append(ex)
            made.append(piece)
        self._hold(held, made)

    def warning(self, w: Finding) -> bytes:
        return _bounded(self._warnings, (w.code, w.ids), warning_piece, w)  # severity: the code's

    def listing(self, exclusions: list[Exclusion], warnings: list[Finding]) -> Listing:
        """The hash state after ``exclusions`` and the joined ``warnings``."""
        hashed = hashlib.sha256(_HEAD)
        hashed.update(self.exclusions_bytes(exclusions))
        hashed.update(_MIDDLE)
        known, warning = self._warnings.get, self.warning
        joined = b",".join([known((w.code, w.ids)) or warning(w) for w in warnings])
        tail = _WARNINGS + joined + _TAIL
        return Listing(exclusions, warnings, hashed, tail)


def _bounded(table: dict[Any, bytes], key: Any, make: Callable[[Any], bytes], value: Any) -> bytes:
    """``table[key]``, made from ``value`` when absent; the table is emptied whole when it
    holds :data:`EXCLUSIONS` pieces."""
    piece = table.get(key)
    if piece is None:
        if len(table) >= EXCLUSIONS:
            table.clear()
        piece = table[key] = make(value)
    return piece


class Listing:
    """A resolution's exclusions and warnings, hashed: the state of the digest's hash after
    the exclusions, and the bytes after the objects."""

    __slots__ = ("exclusions", "hashed", "tail", "warnings")

    def __init__(
        self, exclusions: list[Exclusion], warnings: list[Finding], hashed: _Hash, tail: bytes
    ) -> None:
        self.exclusions, self.warnings, self.hashed, self.tail = exclusions, warnings, hashed, tail

    def serves(self, exclusions: list[Exclusion], warnings: list[Finding]) -> bool:
        """Whether ``exclusions`` and ``warnings`` are these very records, in this order."""
        return (
            len(exclusions) == len(self.exclusions)
            and len(warnings) == len(self.warnings)
            and all(map(operator.is_, exclusions, self.exclusions))
            and all(map(operator.is_, warnings, self.warnings))
        )

    def carried(self, objects: Sequence[ContextObject], replaced: Collection[int]) -> Listing:
        """Itself: it holds records, never an object, and :meth:`serves` only the very
        records it was made from (a stage carried across a reload keeps them)."""
        return self

    def digest(self, objects: bytes) -> str:
        hashed = self.hashed.copy()
        hashed.update(objects)
        hashed.update(self.tail)
        return "sha256:" + hashed.hexdigest()


def pieces_of(memo: Memo, objects: list[ContextObject]) -> Pieces:
    """The :class:`Pieces` kept in ``memo`` (a resolution cache's: ``objects`` are its
    repository's)."""
    return memo.get(("digest-pieces",), lambda: Pieces(objects))
