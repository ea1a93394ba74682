"""The bundle's entries as resolution makes them."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields
from typing import Any

import pytest

from octui.core.enums import Layer, Lifecycle, Status
from octui.core.model import ContextObject
from octui.resolve.result import Included, included_each


def make(n: int) -> ContextObject:
    given: dict[str, Any] = {
        "id": f"policies.p{n}",
        "version": 1,
        "authority": "canonical",
        "status": Status.ACTIVE,
        "title": None,
        "summary": None,
        "type": None,
        "owner": None,
        "layer": Layer.L2,
        "tags": (),
        "applies_to": (),
        "classification": "internal",
        "access_roles": None,
        "created": None,
        "updated": None,
        "valid_from": None,
        "valid_until": None,
        "review_every": None,
        "confidence": None,
        "supersedes": (),
        "superseded_by": (),
        "conflicts_with": (),
        "content": "",
        "path": f"policies/p{n}.md",
        "source": "",
    }
    return ContextObject(**given, uid=n)


def test_included_each_makes_the_entries_the_constructor_makes() -> None:
    objects = [make(n) for n in range(3)]
    lifecycles = [Lifecycle.ACTIVE, Lifecycle.EXPIRED, Lifecycle.SUPERSEDED]
    stale = [False, True, False]
    scores = [0, 7, 3]
    matched = [{}, {"refund": ["title"]}, {"refund": ["content"]}]
    made = included_each(objects, lifecycles, stale, scores, matched)
    expected = list(map(Included, objects, lifecycles, stale, scores, matched))
    assert made == expected
    for entry, want in zip(made, expected, strict=True):
        assert type(entry) is Included
        for f in fields(Included):
            assert getattr(entry, f.name) is getattr(want, f.name)
    with pytest.raises(FrozenInstanceError):
        made[0].score = 1  # type: ignore[misc]
    assert included_each([], [], [], [], []) == []


def test_included_each_refuses_columns_of_other_lengths() -> None:
    """A column shorter than the objects leaves no entry half made: it raises."""
    objects = [make(0), make(1)]
    with pytest.raises(ValueError):
        included_each(objects, [Lifecycle.ACTIVE], [False, False], [0, 0], [{}, {}])
