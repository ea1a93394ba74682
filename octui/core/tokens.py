"""Tokenizing text for lexical ranking (SPEC §3): the words a task and an object share.

A text becomes a set of tokens: NFKC, casefold, split on anything not a letter or digit,
short and stop words dropped, each word stemmed. An object's token table holds its short
fields' and its content's tokens, sorted, each with a bit per field holding it; the loader keeps the
tables (:class:`TokenTables`) and the persistent parse cache stores them, so ranking
(:mod:`octui.resolve.ranking`) only looks tokens up.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Mapping
from itertools import repeat
from operator import attrgetter
from typing import Any

from octui.core.model import ContextObject

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "with",
    ]
)


_SPLIT = re.compile(r"[^\W_]+")
#: On ASCII text ``[^\W_]`` is exactly ``[A-Za-z0-9]``: map everything else to a space.
_ASCII_SEPARATORS = str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum()})
#: The same on ASCII bytes, lower-casing too (on ASCII, NFKC changes nothing and casefold is
#: lower-casing): one pass over the bytes instead of a dictionary look-up per character.
_ASCII_WORDS = bytes(
    (c + 32 if 65 <= c <= 90 else c) if chr(c).isalnum() else 32 for c in range(256)
)


def stem(token: str) -> str:
    """``ies``→``y``; then strip a final ``s`` (not ``ss``), ``ing`` or ``ed`` when 4+ remain."""
    if token.endswith("ies"):
        token = token[:-3] + "y"
    if token.endswith("s") and not token.endswith("ss") and len(token) - 1 >= 4:
        token = token[:-1]
    if token.endswith("ing") and len(token) - 3 >= 4:
        token = token[:-3]
    if token.endswith("ed") and len(token) - 2 >= 4:
        token = token[:-2]
    return token


def _stem_word(word: str) -> str | None:
    if len(word) < 2 or word in STOP_WORDS:
        return None
    return stem(word)


class _Stems(dict[str, str | None]):
    """``word -> stem`` (None: not a token) of every word met; a hit is one dict look-up."""

    def __missing__(self, word: str) -> str | None:
        if len(self) >= _MAX_STEMS:
            self.clear()
        value = self[word] = _stem_word(word)
        return value


_MAX_STEMS = 1 << 17
_STEMS = _Stems()


def tokenize(text: str) -> frozenset[str]:
    """NFKC, casefold, split on anything not a letter or digit, drop short and stop words, stem."""
    if not text:
        return frozenset()
    if text.isascii():  # the same split, without a Unicode class test per character
        words = set(text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split())
    else:
        normal = unicodedata.normalize("NFKC", text).casefold()
        if normal.isascii():
            words = set(normal.translate(_ASCII_SEPARATORS).split())
        else:
            words = set(_SPLIT.findall(normal))
    stems = set(map(_STEMS.__getitem__, words))  # each distinct word once
    stems.discard(None)
    return frozenset(stems)  # type: ignore[arg-type]


SMALL_FIELDS = ("applies_to", "tags", "title", "id", "summary", "type")
CONTENT_BIT = 1 << len(SMALL_FIELDS)
"""The bit of a token mask that says the content holds the token (after the short fields')."""

END = "\U0010ffff"
"""The last token of every token table: a code point no token holds (none is a letter or a
digit), so it sorts after every token and a bisection always lands on a token."""

TokenTable = tuple[tuple[str, ...], bytes]
"""Every token of an object's short fields and content, sorted, then :data:`END`; and the
bit mask of each (a bit per short field in :data:`SMALL_FIELDS` order, :data:`CONTENT_BIT`
for the content; 0 for :data:`END`), position by position."""


def _table_of(
    applies_to: tuple[str, ...] | list[str],
    tags: tuple[str, ...] | list[str],
    title: str | None,
    object_id: str,
    summary: str | None,
    kind: str | None,
    content: str,
) -> TokenTable:
    texts = (
        " ".join(applies_to),
        " ".join(tags),
        title or "",
        object_id,
        summary or "",
        kind or "",
    )
    index: dict[str, int] = {}
    for bit, text in enumerate(texts):
        for token in tokenize(text):
            index[token] = index.get(token, 0) | (1 << bit)
    held = tokenize(content)
    tokens = (*sorted(held.union(index)), END)
    masks = bytearray([CONTENT_BIT]) * len(tokens)  # most tokens are the content's only
    masks[-1] = 0
    for token, bits in index.items():
        masks[bisect_left(tokens, token)] = bits | (CONTENT_BIT if token in held else 0)
    return tokens, bytes(masks)


def is_token_table(value: object) -> bool:
    """Whether ``value`` has the shape of a :data:`TokenTable` (a stored one is checked)."""
    return (
        type(value) is tuple
        and len(value) == 2
        and type(value[0]) is tuple
        and type(value[1]) is bytes
        and len(value[1]) == len(value[0]) > 0
        and value[0][-1] == END
    )


def token_mask(table: TokenTable, token: str) -> int:
    """The fields of ``table``'s object that hold ``token`` (0: none)."""
    tokens, masks = table
    i = bisect_left(tokens, token)
    return masks[i] if i < len(tokens) and tokens[i] == token else 0


def token_table(obj: ContextObject) -> TokenTable:
    """What scoring needs: every token the object's short fields and content hold, as one
    sorted tuple (a body's hundreds of tokens take a fifth of the memory of a set; the task's
    few are found by bisection), and beside it one byte per token saying which fields hold
    it (a dictionary per object for the short fields' tokens took half as much again)."""
    return _table_of(
        obj.applies_to, obj.tags, obj.title, obj.id, obj.summary, obj.type, obj.content
    )


def fields_token_table(fields: Mapping[str, Any]) -> TokenTable:
    """:func:`token_table` of the object a file's parsed fields make (see ``assemble``)."""
    return _table_of(
        fields["applies_to"],
        fields["tags"],
        fields["title"],
        fields["id"],
        fields["summary"],
        fields["type"],
        fields["content"],
    )


def _same_text(a: ContextObject, b: ContextObject) -> bool:
    """Whether ``a`` and ``b`` hold the very same texts scoring reads (a moved copy does)."""
    return (
        a.content is b.content
        and a.id is b.id
        and a.title is b.title
        and a.summary is b.summary
        and a.type is b.type
        and a.tags == b.tags
        and a.applies_to == b.applies_to
    )


Unpack = Callable[[ContextObject], TokenTable | None]
"""A kept, packed token table's unpacking: the table of the object it was kept for (None when
what was kept does not make one: then it is made from the object)."""

_PATH = attrgetter("path")


class TokenTables:
    """The token tables of a repository's objects: the one place they are kept.

    A :class:`~octui.load.loader.Loader` owns one for all its loads (so an unchanged file keeps
    its table across reloads, and a table read from the persistent parse cache is not
    computed again). Entries are by path and name their object: a table serves that object,
    or another one holding the very same texts (an unchanged file renumbered by a reload).
    An entry may hold a table still packed (:meth:`put_packed`), unpacked on first use.
    """

    def __init__(self) -> None:
        self._by_path: dict[str, tuple[ContextObject, TokenTable | Unpack]] = {}

    def get(self, obj: ContextObject) -> TokenTable:
        entry = self._by_path.get(obj.path)
        table: TokenTable | None = None
        if entry is not None and (entry[0] is obj or _same_text(entry[0], obj)):
            held = entry[1]
            if type(held) is tuple:
                return held
            assert callable(held)
            table = held(entry[0])
        if table is None:
            table = token_table(obj)
        self._by_path[obj.path] = (obj, table)
        return table

    def put(self, obj: ContextObject, table: TokenTable) -> None:
        self._by_path[obj.path] = (obj, table)

    def put_packed(self, objects: list[ContextObject], unpack: Unpack) -> None:
        """Hold a packed table for each of ``objects``, which ``unpack`` makes on its first use
        (a repository snapshot keeps them so: a resolution reads a fraction of them)."""
        self._by_path.update(zip(map(_PATH, objects), zip(objects, repeat(unpack)), strict=True))

    def keep_only(self, objects: list[ContextObject]) -> None:
        """Forget the tables of paths no longer in ``objects``."""
        paths = {o.path for o in objects}
        for path in [p for p in self._by_path if p not in paths]:
            del self._by_path[path]

    def __len__(self) -> int:
        return len(self._by_path)
