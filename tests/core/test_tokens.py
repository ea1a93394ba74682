"""The token table's layout: one sorted tuple of every token, then END, and a mask byte each."""

from __future__ import annotations

from dataclasses import replace

from octui.core.model import ContextObject
from octui.core.tokens import (
    CONTENT_BIT,
    END,
    SMALL_FIELDS,
    TokenTable,
    TokenTables,
    is_token_table,
    token_mask,
    token_table,
)
from octui.load.assemble import object_from_fields

_FIELDS = {
    "id": "billing.refunds",
    "version": 1,
    "authority": "canonical",
    "status": "active",
    "title": "Refund policy",
    "summary": None,
    "type": "policy",
    "owner": None,
    "layer": None,
    "tags": ["billing"],
    "applies_to": ["refunds"],
    "classification": None,
    "access": None,
    "created": None,
    "updated": None,
    "valid_from": None,
    "valid_until": None,
    "review_every": None,
    "confidence": None,
    "supersedes": [],
    "superseded_by": [],
    "conflicts_with": [],
    "content": "Refunds of an invoice are paid within 30 days.",
}


def _bit(name: str) -> int:
    return 1 << SMALL_FIELDS.index(name)


def test_one_sorted_tuple_of_every_token_with_a_mask_byte_each() -> None:
    obj = object_from_fields(_FIELDS, "a.md", authority="canonical", classification="public")
    table = token_table(obj)
    tokens, masks = table
    assert is_token_table(table)
    assert tokens == tuple(sorted(tokens)) and len(set(tokens)) == len(tokens)
    assert tokens[-1] == END
    assert {"bill", "refund", "invoice", "policy", "paid"} <= set(tokens)
    assert len(masks) == len(tokens) and masks[-1] == 0
    assert token_mask(table, "refund") == _bit("applies_to") | _bit("title") | _bit("id") | (
        CONTENT_BIT
    )
    assert token_mask(table, "bill") == _bit("tags") | _bit("id")
    assert token_mask(table, "invoice") == CONTENT_BIT
    assert token_mask(table, "policy") == _bit("title") | _bit("type")
    for absent in ("aaa", "zzz", "refunded", "\U0010ffffz"):
        assert token_mask(table, absent) == 0


def test_a_table_of_another_shape_is_not_a_token_table() -> None:
    assert not is_token_table(({"refund": 1}, ("refund",)))  # the earlier layout
    assert not is_token_table((("a", "b"), b"\x01\x02"))  # no END
    assert not is_token_table((("a", END), b"\x01"))  # a mask short
    assert is_token_table((("a", "b", END), b"\x01\x02\x00"))


def test_a_packed_table_is_unpacked_once_for_its_object_or_made_when_it_makes_none() -> None:
    kept = object_from_fields(_FIELDS, "a.md", authority="canonical", classification="public")
    other = replace(kept, path="b.md", content="Another body entirely.")
    stored = (("stored", END), b"\x01\x00")
    asked: list[ContextObject] = []

    def unpack(obj: ContextObject) -> TokenTable | None:
        asked.append(obj)
        return stored if obj.path == "a.md" else None

    tables = TokenTables()
    tables.put_packed([kept, other], unpack)
    assert len(tables) == 2
    moved = replace(kept)  # the same texts, another object (a reload renumbered it)
    assert tables.get(moved) is stored and asked == [kept]  # unpacked for the object kept
    assert tables.get(kept) is stored and asked == [kept]  # once
    assert tables.get(other) == token_table(other) and asked == [kept, other]
