"""The digest's encoded pieces, kept by whoever owns what they encode.

The canonical JSON of a list is its items' canonical JSON joined by commas, and the
digest payload's keys sort as exclusions, objects, warnings; so the digest is hashed from
pieces, each item encoded once:

- :class:`Pieces`, one per repository (kept in its
  :class:`~octui.resolve.cache.ResolutionCache`'s memo, so it dies with the repository):
  each object's digest form by (uid, lifecycle, staleness), and each exclusion's and
  warning's by the values its digest form holds (equal records made by another stage share
  it; nothing but strings is kept alive);
- per stage (kept in the stage's memo): the stage's object pieces by uid (an object's
  lifecycle and staleness are the stage's), and — for resolutions whose exclusions and
  warnings are the very records the stage sorted (step 8 trimmed nothing) — the hash state
  after the exclusions and the warnings' joined bytes, so a new task hashes only its
  objects.

Thread-safety: tables are only added to (a dict item stored is atomic); two threads racing
for one piece encode equal bytes and either is kept.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from octui.bundle.forms import exclusion_digest_form, object_digest_form, warning_digest_form
from octui.bundle.jsonout import dumps_canonical
from octui.core.enums import Lifecycle
from octui.core.model import ContextObject, Exclusion, Finding
from octui.resolve.memo import Memo
from octui.resolve.result import Included

if TYPE_CHECKING:
    from hashlib import _Hash

EXCLUSIONS = 1 << 18
"""Exclusion or warning pieces kept per repository at most (the table is emptied when full)."""

_HEAD = b'{"exclusions":['
_MIDDLE = b'],"objects":['
_WARNINGS = b'],"warnings":['
_TAIL = b"]}"


def object_piece(obj: ContextObject, lifecycle: Lifecycle, stale: bool) -> bytes:
    """The canonical JSON of an included object's digest form."""
    return dumps_canonical(object_digest_form(obj, lifecycle, stale))


def exclusion_key(ex: Exclusion) -> tuple[Any, ...]:
    """What an exclusion's digest form holds (a denial: its id and reason)."""
    if ex.reason.is_denial:
        return (ex.id, ex.reason)
    return (ex.id, ex.version, ex.reason, ex.related)


def exclusion_piece(ex: Exclusion) -> bytes:
    """The canonical JSON of an exclusion's digest form."""
    return dumps_canonical(exclusion_digest_form(ex))


def warning_piece(w: Finding) -> bytes:
    """The canonical JSON of a warning's digest form."""
    return dumps_canonical(warning_digest_form(w))


class Pieces:
    """The digest's pieces encoded for one repository's resolutions (see the module)."""

    def __init__(self, objects: list[ContextObject] | None = None) -> None:
        self._objects = objects
        """The repository's objects by uid: a piece by uid serves only that very object."""
        self._by_state: dict[tuple[int, Lifecycle, bool], bytes] = {}
        self._exclusions: dict[tuple[Any, ...], bytes] = {}
        self._warnings: dict[tuple[Any, ...], bytes] = {}

    def included(self, inc: Included) -> bytes:
        obj = inc.obj
        objects = self._objects
        if objects is None or obj.uid >= len(objects) or objects[obj.uid] is not obj:
            return object_piece(obj, inc.lifecycle, inc.stale)
        key = (obj.uid, inc.lifecycle, inc.stale)
        piece = self._by_state.get(key)
        if piece is None:
            piece = self._by_state[key] = object_piece(obj, inc.lifecycle, inc.stale)
        return piece

    def carried(self, objects: Sequence[ContextObject], replaced: Collection[int]) -> Pieces:
        """These pieces for the repository whose objects are ``objects``: the same but for the
        places ``replaced`` (a piece is a function of its object, which the other places
        still hold; exclusions and warnings are kept by value)."""
        made = Pieces(list(objects))
        made._by_state = {k: v for k, v in self._by_state.items() if k[0] not in replaced}
        made._exclusions = dict(self._exclusions)
        made._warnings = dict(self._warnings)
        return made

    def exclusion(self, ex: Exclusion) -> bytes:
        key = exclusion_key(ex)
        piece = self._exclusions.get(key)
        if piece is None:
            if len(self._exclusions) >= EXCLUSIONS:
                self._exclusions.clear()
            piece = self._exclusions[key] = exclusion_piece(ex)
        return piece

    def warning(self, w: Finding) -> bytes:
        key = (w.code, w.severity, w.ids)
        piece = self._warnings.get(key)
        if piece is None:
            if len(self._warnings) >= EXCLUSIONS:
                self._warnings.clear()
            piece = self._warnings[key] = warning_piece(w)
        return piece

    def objects_bytes(self, included: list[Included]) -> bytes:
        return b",".join([self.included(i) for i in included])

    def listing(self, exclusions: list[Exclusion], warnings: list[Finding]) -> Listing:
        """The hash state after ``exclusions`` and the joined ``warnings``."""
        hashed = hashlib.sha256(_HEAD)
        hashed.update(b",".join([self.exclusion(e) for e in exclusions]))
        hashed.update(_MIDDLE)
        tail = _WARNINGS + b",".join([self.warning(w) for w in warnings]) + _TAIL
        return Listing(exclusions, warnings, hashed, tail)


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

    def digest(self, objects: bytes) -> str:
        hashed = self.hashed.copy()
        hashed.update(objects)
        hashed.update(self.tail)
        return "sha256:" + hashed.hexdigest()


def pieces_of(memo: Memo, objects: list[ContextObject]) -> Pieces:
    """The :class:`Pieces` kept in ``memo`` (a resolution cache's: ``objects`` are its
    repository's)."""
    return memo.get(("digest-pieces",), lambda: Pieces(objects))
