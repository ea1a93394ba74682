"""The digest's pieces written from parts and from an exclusion's fields are the definition's
bytes (``dumps_canonical`` of the digest form), for every value a field may hold: whatever
orjson writes differently (floats, ints over 64 bits, lone surrogates, odd types) is written
by the definition, and what it refuses is refused alike."""

from __future__ import annotations

import json
import tracemalloc
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from enum import Enum
from typing import Any

import pytest
from campaign import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from octui.bundle import forms
from octui.bundle import jsonout as fastjson
from octui.bundle import pieces as pieces_module
from octui.bundle.forms import exclusion_digest_form, object_parts, warning_digest_form
from octui.bundle.jsonout import dumps_canonical
from octui.bundle.pieces import Pieces, exclusion_piece, object_piece, warning_piece
from octui.core.enums import Authority, ExclusionReason, Layer, Lifecycle, Status, WarningCode
from octui.core.model import OBJECT_FIELDS, ContextObject, Exclusion, Finding
from octui.resolve.result import Included

WHEN = datetime(2026, 3, 1, tzinfo=UTC)


def make(**fields: Any) -> ContextObject:
    base: dict[str, Any] = {
        "id": "policies.refunds",
        "version": 2,
        "authority": "canonical",
        "status": Status.ACTIVE,
        "title": "Refunds",
        "summary": None,
        "type": "policy",
        "owner": "finance",
        "layer": Layer.L2,
        "tags": ("billing", "refund"),
        "applies_to": (),
        "classification": "internal",
        "access_roles": None,
        "created": WHEN,
        "updated": None,
        "valid_from": WHEN,
        "valid_until": None,
        "review_every": 90,
        "confidence": 0.75,
        "supersedes": ("policies.old@1",),
        "superseded_by": (),
        "conflicts_with": (),
        "content": 'Line one.\nA "quote", a \\ and a tab\t.\n',
        "path": "policies/refunds.md",
        "source": "",
    }
    return ContextObject(**(base | fields), uid=0)


def every_state(obj: ContextObject) -> None:
    """The piece from parts is the definition's for every lifecycle and staleness, raising
    what the definition raises."""
    pieces = Pieces([obj])
    for lifecycle in Lifecycle:
        for stale in (True, False):
            inc = Included(obj, lifecycle, stale, 0, {})
            try:
                want = object_piece(obj, lifecycle, stale)
            except Exception as error:
                with pytest.raises(type(error)):
                    pieces.included(inc)
                with pytest.raises(type(error)):
                    pieces.objects_bytes([inc])
                continue
            assert pieces.included(inc) == want
            assert pieces.objects_bytes([inc, inc]) == want + b"," + want


def test_the_typed_parts_name_every_field_in_order() -> None:
    obj = make()
    parts = forms._typed_parts(obj)
    assert parts is not None
    pre, mid, review, tail = parts
    form = json.loads(pre + b'""' + mid + b'""' + review + b"false" + tail)
    assert list(form) == sorted([*OBJECT_FIELDS, "lifecycle", "stale"])
    assert form == forms.object_fields(obj) | forms._EMPTY


class _Named(str, Enum):  # noqa: UP042 - the str-mixin kind on purpose
    """A str-mixin enum: equal to its value, but its ``str`` is its name."""

    ACTIVE = "active"


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ({"confidence": 0.0}, {"confidence": -0.0}),
        ({"confidence": -0.0}, {"confidence": 0.0}),
        ({"confidence": 1.0}, {"confidence": 1}),
        ({"confidence": 1.0}, {"confidence": True}),
        ({"review_every": 1}, {"review_every": True}),
        ({"version": 1}, {"version": True}),
        ({"owner": "active"}, {"status": _Named.ACTIVE}),
        ({"status": Status.ACTIVE}, {"owner": Status.ACTIVE, "layer": "L2"}),
        ({"tags": ("a",)}, {"tags": ["a"]}),
        ({"tags": ("a",)}, {"owner": ("a",), "classification": "a"}),
        ({"updated": WHEN}, {"updated": WHEN.astimezone(timezone(timedelta(hours=3)))}),
        ({"updated": WHEN}, {"updated": WHEN.isoformat()}),
    ],
)
def test_a_value_equal_to_one_written_before_is_written_as_its_own(
    first: dict[str, Any], then: dict[str, Any]
) -> None:
    """The fields' values are kept encoded by value: a value equal to one kept but of
    another type (or written by its ``str``) is still written as the definition writes it."""
    every_state(make(**first))
    every_state(make(**then))


def test_the_encodings_kept_for_shared_values_hold_only_their_own_bytes() -> None:
    """The instants, strings and confidences kept encoded are copies at their own size:
    orjson's bytes hold the whole buffer it wrote into, about 4 KB however short, and a
    session at 50k objects kept 45 MB of them (its peak went over 600 MB)."""
    forms._INSTANTS.clear()
    forms._FLOATS.clear()
    made = [
        make(created=WHEN + timedelta(minutes=i), confidence=0.5 + i / 4000, owner=f"o{i}")
        for i in range(500)
    ]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        parts = [object_parts(obj) for obj in made]
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert all(p is not None for p in parts)
    assert len(forms._INSTANTS) >= 500 and len(forms._FLOATS) >= 500
    # the parts themselves (a few hundred bytes an object) and three short encodings kept
    assert kept < 2_000 * len(made)  # orjson's own bytes: over 12 KB an object


def test_parts_hold_no_body() -> None:
    obj = make(content="the body, " * 50)
    parts = object_parts(obj)
    assert parts is not None
    assert all(b"the body" not in part for part in parts)


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"confidence": 1e-07},  # orjson: 1e-7
        {"confidence": 1e16},  # orjson: 1e16, json: 1e+16
        {"confidence": 5e-324},
        {"confidence": 0.1},
        {"confidence": None},
        {"confidence": 1},  # an int where a float is expected
        {"confidence": True},
        {"confidence": float("nan")},  # json refuses (allow_nan=False); orjson writes null
        {"confidence": float("inf")},
        {"version": 2**64},  # orjson refuses ints over 64 bits
        {"version": -(2**63) - 1},
        {"version": 2**70},
        {"version": True},  # a bool where an int is expected
        {"authority": Authority.CANONICAL},  # forced by a source: a StrEnum
        {"authority": None},
        {"title": "lone \ud800 surrogate"},
        {"content": "lone \udfff surrogate"},
        {"content": "controls \x00\x01\x1f\x7f \u2028 \u202e é 😀"},
        {"content": 'x","content":"","lifecycle":"","stale":false,'},
        {"title": ',"content":"",', "tags": (',"lifecycle":""', ',"stale":false')},
        {"tags": ("a", 1)},  # not strings
        {"tags": ["a", "b"]},  # a list where a tuple is expected
        {"tags": ("a", type("Sub", (str,), {})("b"))},  # a str subclass
        {"access_roles": ("support", "sales")},
        {"access_roles": ()},
        {"created": datetime(99, 3, 1, 12, 30, 5, 120, tzinfo=UTC)},
        {"updated": datetime(2026, 1, 1, 23, 0, tzinfo=timezone(timedelta(hours=-5)))},
        {"valid_until": "2026-01-01"},  # a string where an instant is expected
        {"review_every": None, "layer": None, "status": None},
        {"content": ""},
        {"content": 3},  # not a string: the whole form by the definition
        {"summary": 1.5},
        {"owner": {"k": 1}},
    ],
)
def test_pieces_from_parts_are_the_definitions(fields: dict[str, Any]) -> None:
    every_state(make(**fields))


@pytest.mark.parametrize("fields", [{}, {"confidence": 1e-07}, {"version": 2**64}])
def test_pieces_without_orjson_are_the_same(
    fields: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    obj = make(**fields)
    with_orjson = Pieces([obj]).included(Included(obj, Lifecycle.ACTIVE, True, 0, {}))
    monkeypatch.setattr(fastjson, "_orjson", None)
    assert Pieces([obj]).included(Included(obj, Lifecycle.ACTIVE, True, 0, {})) == with_orjson


def test_an_odd_staleness_or_lifecycle_is_written_by_the_definition() -> None:
    obj = make()
    pieces = Pieces([obj])
    odd = Included(obj, Lifecycle.ACTIVE, 1, 0, {})  # type: ignore[arg-type]
    assert pieces.included(odd) == object_piece(obj, Lifecycle.ACTIVE, 1)  # type: ignore[arg-type]
    assert b'"stale":1' in pieces.objects_bytes([odd])


def test_parts_serve_only_their_own_object() -> None:
    obj = make()
    pieces = Pieces([obj])
    pieces.included(Included(obj, Lifecycle.ACTIVE, False, 0, {}))
    other = replace(obj, title="Another")  # the same uid, another object
    inc = Included(other, Lifecycle.ACTIVE, False, 0, {})
    assert pieces.included(inc) == object_piece(other, Lifecycle.ACTIVE, False)
    carried = pieces.carried([other], {0})
    assert carried.objects_bytes([inc]) == object_piece(other, Lifecycle.ACTIVE, False)


_TEXT = st.text() | st.sampled_from(["\ud800", "a\udfffb", '","content":""', "\x00\n\t\\"])
_INSTANTS = st.none() | st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.timezones()
)
_STRINGS = st.lists(_TEXT, max_size=3).map(tuple)


@st.composite
def objects(draw: st.DrawFn) -> ContextObject:
    return make(
        id=draw(_TEXT),
        version=draw(st.integers(min_value=1, max_value=2**70)),
        authority=draw(st.none() | _TEXT | st.sampled_from(list(Authority))),
        status=draw(st.none() | st.sampled_from(list(Status))),
        title=draw(st.none() | _TEXT),
        summary=draw(st.none() | _TEXT),
        layer=draw(st.none() | st.sampled_from(list(Layer))),
        tags=draw(_STRINGS),
        applies_to=draw(_STRINGS),
        access_roles=draw(st.none() | _STRINGS),
        created=draw(_INSTANTS),
        updated=draw(_INSTANTS),
        valid_until=draw(_INSTANTS),
        review_every=draw(st.none() | st.integers(min_value=0, max_value=10**6)),
        confidence=draw(st.none() | st.floats(min_value=0, max_value=1)),
        supersedes=draw(_STRINGS),
        content=draw(_TEXT),
    )


@settings(max_examples=examples(300), deadline=None)
@given(objects())
def test_pieces_of_any_object_are_the_definitions(obj: ContextObject) -> None:
    every_state(obj)


@st.composite
def exclusions(draw: st.DrawFn) -> Exclusion:
    return Exclusion(
        draw(_TEXT),
        draw(st.none() | st.integers(min_value=-(2**70), max_value=2**70)),
        draw(st.sampled_from(list(ExclusionReason))),
        draw(_STRINGS),
        draw(st.none() | _TEXT),
    )


def _definition(ex: Exclusion) -> bytes:
    return json.dumps(
        exclusion_digest_form(ex), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


@settings(max_examples=examples(300), deadline=None)
@given(exclusions())
def test_exclusion_pieces_are_the_definitions(ex: Exclusion) -> None:
    try:
        want = _definition(ex)
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            exclusion_piece(ex)
        return
    assert exclusion_piece(ex) == want == dumps_canonical(exclusion_digest_form(ex))
    pieces = Pieces()
    assert pieces.exclusions_bytes([ex, ex]) == want + b"," + want


@pytest.mark.parametrize(
    "ex",
    [
        Exclusion("a", None, ExclusionReason.PERMISSION_DENIED),
        Exclusion("a", 3, ExclusionReason.EXPIRED, (), "detail", "a.md"),
        Exclusion("a", 2**64, ExclusionReason.SUPERSEDED, ("b@2", "c"), None, "a.md"),
        Exclusion("a", 2**70, ExclusionReason.EXPIRED, (), "detail", "a.md"),  # past orjson
        Exclusion('é"\\\n', -3, ExclusionReason.NOT_IN_SCOPE, (), None, None),
        Exclusion("src", None, ExclusionReason.SOURCE_UNAVAILABLE, (), "gone"),
        Exclusion("a", True, ExclusionReason.CONFLICT, ("b",)),
        Exclusion("a", 1, ExclusionReason.OUTRANKED, ["b"]),  # type: ignore[arg-type]
        Exclusion("a", 1, ExclusionReason.EXPIRED, []),  # type: ignore[arg-type]
        Exclusion("a", 1, ExclusionReason.OUTRANKED, ("b", 2)),  # type: ignore[arg-type]
    ],
)
def test_exclusion_pieces_of_odd_values(ex: Exclusion) -> None:
    assert exclusion_piece(ex) == _definition(ex)


def test_an_exclusion_record_is_kept_by_identity_and_held() -> None:
    pieces = Pieces()
    record = Exclusion("a", 3, ExclusionReason.EXPIRED, (), "detail", "a.md")
    piece = pieces.exclusion(record)
    assert pieces.exclusions_bytes([record]) == piece
    assert pieces._held == [record]  # its address is never another record's while kept
    denial = Exclusion("a", None, ExclusionReason.PERMISSION_DENIED)  # one per id, every role's
    piece = pieces.exclusion(denial)
    assert pieces.exclusions_bytes([denial]) == piece
    assert pieces._held == [record, denial]
    superseded = Exclusion("b", 1, ExclusionReason.SUPERSEDED, ("b@2",), "by b@2", "b.md")
    pieces.exclusion(superseded)  # handed out again per (object, replacements)
    assert pieces._held == [record, denial, superseded]


@pytest.mark.parametrize(
    "reason",
    [ExclusionReason.OUTRANKED, ExclusionReason.CONFLICT, ExclusionReason.SOURCE_UNAVAILABLE],
)
def test_records_made_anew_by_each_stage_are_kept_by_value(reason: ExclusionReason) -> None:
    pieces = Pieces()
    version, related = (None, ()) if reason is ExclusionReason.SOURCE_UNAVAILABLE else (2, ("a@3",))
    one = Exclusion("a", version, reason, related, "detail", "a.md")
    again = Exclusion("a", version, reason, related, "detail", "a.md")  # made anew
    assert pieces.exclusion(one) is pieces.exclusion(again)  # shared by value
    assert pieces._held == []


def _warning_definition(w: Finding) -> bytes:
    return json.dumps(
        warning_digest_form(w), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(list(WarningCode)), st.lists(_TEXT, max_size=3).map(tuple))
def test_warning_pieces_are_the_definitions(code: WarningCode, ids: tuple[str, ...]) -> None:
    w = Finding(code, ids, "message")
    try:
        want = _warning_definition(w)
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            warning_piece(w)
        return
    assert warning_piece(w) == want == dumps_canonical(warning_digest_form(w))


class _Text(str):
    pass


@pytest.mark.parametrize(
    "ids",
    [
        ("policies.refunds",),
        (),
        ("a", "\ud800"),  # a lone surrogate: refused alike
        ["a", "b"],  # a list, not the model's tuple
        ("a", 2),
        (_Text('a\n"b'),),
    ],
)
def test_warning_pieces_of_odd_values(ids: Any) -> None:
    w = Finding(WarningCode.STALE, ids, "message")
    try:
        want = _warning_definition(w)
    except (UnicodeEncodeError, TypeError) as error:
        with pytest.raises(type(error)):
            warning_piece(w)
        return
    assert warning_piece(w) == want


def test_the_pieces_kept_by_identity_are_bounded_alike_one_by_one_and_in_bulk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pieces_module, "EXCLUSIONS", 2)
    pieces = Pieces()
    made = [Exclusion(i, 1, ExclusionReason.EXPIRED, (), "detail", f"{i}.md") for i in "abcde"]
    pieces.exclusion(made[0])
    pieces.exclusion(made[1])
    assert pieces._held == made[:2]  # full: emptied before the next is kept
    pieces.exclusion(made[2])
    assert pieces._held == [made[2]]
    pieces.exclusions_bytes(made[3:])  # two more would make three: emptied first
    assert pieces._held == made[3:]
    assert pieces.exclusions_bytes(made) == b",".join(map(exclusion_piece, made))
