"""The token table's layout: one sorted tuple of every token, then END, and a mask byte each."""

from __future__ import annotations

from octui.core.tokens import (
    CONTENT_BIT,
    END,
    SMALL_FIELDS,
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
