"""The bundle's fixed order over the whole repository, from which a stage's standing order
and its task-token matches are picked instead of sorted and matched again.

Step 8 orders the standing objects by (historical, layer group, place in the repository's
fixed order) when no task token matches. Every standing list is a subset of the
repository's objects, so its order is the repository-wide one with the others left out:
:class:`FixedOrder` holds that order once per repository, and which fields of every object
hold a task token (:meth:`FixedOrder.token_masks`, kept per token in a small memo, each
object's answer made when a stage first holds it) — a stage then picks its positions out
of both, in C loops, matching only the objects no earlier stage held.

A token no object of a stage was matched against yet (a new task's) is matched over the
stage's :class:`StageTables`: its objects' token tables one after another in one list, kept
for the last stage that needed them (the one being typed into; they take 10–20 MB at
50,000 objects, so one is kept, not one per stage). Bisecting each object's own tuple
reads thousands of blocks scattered over the heap (one cache and TLB miss after another:
at 50,000 objects a token cost 12× what it costs at 10,000 for 5× the objects); the one
list is read in order.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import Collection, Iterable
from itertools import accumulate, compress, repeat
from operator import eq, getitem, itemgetter, mul

from octui.core.model import ContextObject, uid_of
from octui.core.tokens import TokenTable
from octui.resolve.index import RepoIndex
from octui.resolve.memo import Memo

TOKENS = 64
"""Task tokens whose repository-wide masks are kept (50 KB each at 50,000 objects)."""
_TOKENS = itemgetter(0)
_MASKS = itemgetter(1)
_IS_GROUP = [bytes(256)[:g] + b"\x01" + bytes(255 - g) for g in range(3)]
"""Per layer group, the byte table that marks it (``bytes.translate``)."""
UNKNOWN = 0xFF
"""A token mask not matched yet (a real one has seven bits at most)."""


class FixedOrder:
    """Every object in (layer group, place) order, with what ranking reads of each."""

    __slots__ = (
        "_joined",
        "_memo",
        "_tables",
        "_token_tables",
        "floor",
        "groups",
        "objects",
        "uids",
    )

    def __init__(self, index: RepoIndex) -> None:
        groups, places = index.groups, index.places  # places: a permutation of the uids
        n = len(places)
        by_place = [0] * n
        deque(map(by_place.__setitem__, places, range(n)), maxlen=0)
        group_at = bytes(map(groups.__getitem__, by_place))
        self.uids = [u for g in _IS_GROUP for u in compress(by_place, group_at.translate(g))]
        """The uids by (layer group, place): made without sorting, in C loops."""
        self.objects = list(map(index.objects.__getitem__, self.uids))
        self.groups = bytes(map(groups.__getitem__, self.uids))
        """The layer group of each object, in this order."""
        self.floor = bytes(g < 2 for g in self.groups)
        """1 for an L0/L1 object, in this order."""
        self._tables = index.repo.tokens
        self._memo = Memo(TOKENS)
        self._token_tables: list[TokenTable | None] = [None] * n
        """Each object's token table, in this order, read on first use (racing threads
        store the same table)."""
        self._joined: tuple[tuple[bytes, bytes], StageTables] | None = None
        """The picks of the last stage that needed its :class:`StageTables`, and those."""

    def carried(self, index: RepoIndex, replaced: Collection[int]) -> FixedOrder:
        """This order for ``index``: the repository after a reload that replaced the objects
        at ``replaced`` in place and kept every layer group and place (so the same uids in
        the same order). The token matches kept so far and the token tables read are shared
        but at the replaced objects' positions, which are matched again when first asked
        for. Nothing of this one is changed (its kept matches are copied)."""
        made = FixedOrder.__new__(FixedOrder)
        made.uids, made.groups, made.floor = self.uids, self.groups, self.floor
        made.objects = list(map(index.objects.__getitem__, self.uids))
        made._tables = index.repo.tokens
        wanted = frozenset(replaced)
        n = len(self.uids)  # one C pass finds them all, however many
        positions = list(compress(range(n), map(wanted.__contains__, self.uids)))
        made._token_tables = list(self._token_tables)
        made._memo = Memo(TOKENS)
        made._joined = None  # the replaced objects' tables are new
        for position in positions:
            made._token_tables[position] = None
        for token, whole in self._memo.items():
            matches = bytearray(whole)
            for position in positions:
                matches[position] = UNKNOWN
            made._memo.put(token, matches)
        return made

    def pick(self, current: list[ContextObject], past: list[ContextObject]) -> tuple[bytes, bytes]:
        """Which positions of this order hold ``current`` and which ``past`` (1 at each). An
        empty part picks nothing as ``b""``: every reader picks by ``compress``, which stops
        at the shorter of its inputs, so a stage without history (``include_historical``
        off) never walks a second time over every object for nothing."""
        picks = []
        for part in (current, past):
            if not part:
                picks.append(b"")
                continue
            chosen = bytearray(len(self.uids))
            deque(map(chosen.__setitem__, map(uid_of, part), repeat(1)), maxlen=0)
            picks.append(bytes(map(chosen.__getitem__, self.uids)))
        return picks[0], picks[1]

    def token_masks(self, token: str, picks: tuple[bytes, bytes], joined: bool = False) -> bytes:
        """Which fields of each object at ``picks`` (see :func:`picked`) hold ``token``
        (see :func:`masks_of`). Each object's answer is kept per token, in this order, once
        some stage asked for it: a stage matches only the objects no earlier stage held.
        The kept table only ever turns :data:`UNKNOWN` bytes into their answers (threads
        racing write equal bytes), so any state of it a reader sees is right. With
        ``joined``, a token none of the objects at ``picks`` was matched against is matched
        over their :class:`StageTables` (:meth:`joined_tables`)."""
        n = len(self.uids)
        kept = self._memo.known(token)
        whole = self._memo.get(token, lambda: bytearray(bytes([UNKNOWN])) * n)
        if joined and kept is None:  # a token no stage asked for: none of these is known
            return self._matched_over(picks, whole, token)
        values = picked(whole, picks)
        if UNKNOWN not in values:
            return values
        if joined and values.count(UNKNOWN) == len(values):
            return self._matched_over(picks, whole, token)
        at = [*compress(range(n), picks[0]), *compress(range(n), picks[1])]
        missing = [p for p, v in zip(at, values, strict=True) if v == UNKNOWN]
        held = self._tables_at(missing)
        made = masks_of([t[0] for t in held], [t[1] for t in held], token)
        deque(map(whole.__setitem__, missing, made), maxlen=0)
        return picked(whole, picks)

    def match_all(self, token: str) -> None:
        """Find now which fields of every object hold ``token`` (kept, as a stage's
        :meth:`token_masks` keeps its objects'): a stage then only picks its answers."""
        self.token_masks(token, (b"\x01" * len(self.uids), b""))

    def _matched_over(self, picks: tuple[bytes, bytes], whole: bytearray, token: str) -> bytes:
        """:meth:`token_masks` of a token none of the objects at ``picks`` was matched
        against, over their :meth:`joined_tables`; the answers kept in ``whole`` for the
        other stages."""
        tables = self.joined_tables(picks)
        made = tables.masks_of(token)
        deque(map(whole.__setitem__, tables.positions, made), maxlen=0)
        return made

    def joined_tables(self, picks: tuple[bytes, bytes]) -> StageTables:
        """The :class:`StageTables` of the objects at ``picks``: those kept if the last
        stage that needed them picked the same objects (picks compared whole: two
        ``memcmp``), else made and kept instead. Racing threads each keep a right pair."""
        kept = self._joined
        if kept is not None and kept[0] == picks:
            return kept[1]
        n = len(self.uids)
        positions = [*compress(range(n), picks[0]), *compress(range(n), picks[1])]
        made = StageTables(positions, self._tables_at(positions))
        self._joined = (picks, made)
        return made

    def read_tables(self) -> None:
        """Read every object's token table now (a stage reads its objects' on first use)."""
        self._read(range(len(self.uids)))

    def _tables_at(self, positions: list[int]) -> list[TokenTable]:
        """The token tables of the objects at ``positions`` of this order."""
        self._read(positions)
        tables = self._token_tables
        return [tables[p] for p in positions]  # type: ignore[misc]

    def _read(self, positions: Iterable[int]) -> None:
        """Read the token tables not read yet of the objects at ``positions``."""
        tables = self._token_tables
        objects, get = self.objects, self._tables.get
        for p in positions:
            if tables[p] is None:
                tables[p] = get(objects[p])


class StageTables:
    """The token tables of a stage's standing objects, in its order (:func:`picked`), one
    after another: every token in one list, every mask in one byte string, and where each
    object's part starts and ends; with the objects' positions in the fixed order."""

    __slots__ = ("ends", "masks", "positions", "starts", "tokens")

    def __init__(self, positions: list[int], tables: list[TokenTable]) -> None:
        self.positions = array("I", positions)
        tokens: list[str] = []
        deque(map(tokens.extend, map(_TOKENS, tables)), maxlen=0)
        self.tokens = tokens
        self.masks = b"".join(map(_MASKS, tables))
        bounds = array("I", accumulate(map(len, map(_MASKS, tables)), initial=0))
        self.starts, self.ends = bounds[:-1], bounds[1:]

    def masks_of(self, token: str) -> bytes:
        """:func:`masks_of` of these tables: each object's part bisected in the one list."""
        tokens = self.tokens
        at = list(map(bisect_left, repeat(tokens), repeat(token), self.starts, self.ends))
        same = map(eq, map(tokens.__getitem__, at), repeat(token))
        return bytes(map(mul, map(self.masks.__getitem__, at), same))


def picked(whole: bytes | bytearray, picks: tuple[bytes, bytes]) -> bytes:
    """``whole`` (one byte per object in fixed order) at the current positions of ``picks``,
    then at its past ones: the stage's standing order."""
    return bytes(compress(whole, picks[0])) + bytes(compress(whole, picks[1]))


def in_order(fixed: FixedOrder, picks: tuple[bytes, bytes]) -> list[ContextObject]:
    """The standing objects in the stage's order (current, then past)."""
    return [*compress(fixed.objects, picks[0]), *compress(fixed.objects, picks[1])]


def rank_bases(fixed: FixedOrder, picks: tuple[bytes, bytes]) -> list[int]:
    """The sort key of each standing object with a score of 0 (historical bit, group)."""
    current = [g << 40 for g in compress(fixed.groups, picks[0])]
    return current + [(4 | g) << 40 for g in compress(fixed.groups, picks[1])]


def masks_of(tokens: list[tuple[str, ...]], masks: list[bytes], token: str) -> bytes:
    """Which fields of each object hold ``token``, for objects whose token tables are
    ``tokens`` and ``masks`` (:data:`~octui.core.tokens.TokenTable`): a byte per object (the
    short fields' bits and :data:`~octui.core.tokens.CONTENT_BIT`). Every loop runs in C:
    one bisection of each object's sorted tokens (which end with a token after every other,
    so it always lands on one), and the mask there kept when that token is ``token``."""
    at = list(map(bisect_left, tokens, repeat(token)))
    same = map(eq, map(getitem, tokens, at), repeat(token))
    return bytes(map(mul, map(getitem, masks, at), same))
