"""The normalised fields of an object and the digest forms of SPEC §5.

The digest covers each included object's fields (with lifecycle and staleness), each
exclusion's id, version, reason and related ids (a denial: id and reason only) and each
warning's code, severity and ids — nothing about the query, the instant, file locations or
human-readable sentences.
"""

from __future__ import annotations

import math
from datetime import datetime
from functools import lru_cache
from typing import Any

from octui.bundle.jsonout import dumps_canonical, dumps_kept, dumps_plain
from octui.core.enums import Authority, Layer, Lifecycle, Status
from octui.core.model import OBJECT_FIELDS, ContextObject, Exclusion, Finding
from octui.core.timeutil import format_duration, format_instant


@lru_cache(maxsize=1 << 14)
def _format_instant(value: datetime) -> str:
    """``format_instant`` kept by instant: objects share few distinct days, and equal
    instants (even in other zones) format alike, in UTC."""
    return format_instant(value)


def _value(value: Any) -> Any:
    if isinstance(value, datetime):
        return _format_instant(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def object_fields(obj: ContextObject) -> dict[str, Any]:
    """Every field of SPEC §1.3, normalised: instants in RFC 3339 UTC, durations in days."""
    out: dict[str, Any] = {}
    for name in OBJECT_FIELDS:
        if name == "access":
            out[name] = None if obj.access_roles is None else {"roles": list(obj.access_roles)}
        elif name == "review_every":
            out[name] = None if obj.review_every is None else format_duration(obj.review_every)
        elif name in ("status", "layer"):
            value = getattr(obj, name)
            out[name] = None if value is None else str(value)
        else:
            out[name] = _value(getattr(obj, name))
    return out


def object_digest_form(obj: ContextObject, lifecycle: Lifecycle, stale: bool) -> dict[str, Any]:
    """An included object's digest form: its fields, its lifecycle and staleness."""
    return object_fields(obj) | {"lifecycle": lifecycle.value, "stale": stale}


ObjectParts = tuple[bytes, bytes, bytes, bytes]
"""An object's digest form around its three variable values: the bytes before the content's
JSON, between it and the lifecycle's, between that and the staleness's, and after it."""

_EMPTY = {"content": "", "lifecycle": "", "stale": False}


def object_parts(obj: ContextObject) -> ObjectParts | None:
    """The object's digest form in the parts around its content, lifecycle and staleness, so
    that ``pre + json(content) + mid + json(lifecycle) + rv + json(stale) + tail`` is
    :func:`object_digest_form`'s canonical JSON, byte for byte, and no part holds the body.

    Written from the fields' encoded values (:func:`_typed_parts`) when every field holds its
    model's type; else the form is encoded once with those three values empty (``""``,
    ``""``, ``false``) and cut at their keys: in canonical JSON a quote inside a string is
    always escaped, so ``,"content":""`` can only be that key (no other dict of the form has
    such a key). None when the content is not a string or the form cannot be encoded (the
    caller then encodes the whole form, raising what the standard library raises)."""
    if type(obj.content) is not str:
        return None
    typed = _typed_parts(obj)
    if typed is not None:
        return typed
    try:
        encoded = dumps_canonical(object_fields(obj) | _EMPTY)
    except (TypeError, ValueError, RecursionError):
        return None
    c = encoded.find(b',"content":""')
    lc = encoded.find(b',"lifecycle":""', c)
    st = encoded.find(b',"stale":false', lc)
    if c < 0 or lc < 0 or st < 0:  # pragma: no cover - see the docstring
        return None
    return (
        encoded[: c + 11],
        encoded[c + 13 : lc + 13],
        encoded[lc + 15 : st + 9],
        encoded[st + 14 :],
    )


# The canonical form's keys in sorted order around the fields' encoded values: the parts of
# object_parts (the content, the lifecycle and the staleness go between them).
_PRE = (
    b'{"access":%b,"applies_to":%b,"authority":%b,"classification":%b,"confidence":%b,'
    b'"conflicts_with":%b,"content":'
)
_MID = b',"created":%b,"id":%b,"layer":%b,"lifecycle":'
_REVIEW = b',"owner":%b,"review_every":%b,"stale":'
_TAIL = (
    b',"status":%b,"summary":%b,"superseded_by":%b,"supersedes":%b,"tags":%b,"title":%b,'
    b'"type":%b,"updated":%b,"valid_from":%b,"valid_until":%b,"version":%d}'
)
_NULL = b"null"
_TEXTS = frozenset({str, Authority, Status, Layer})
"""The exact types of the shared text values (a member of these enums is written as its
value, which is also its ``str``)."""
_SHARED_VALUES = 1 << 16
"""Values kept encoded by :data:`_SHARED`, :data:`_INSTANTS` or :data:`_FLOATS` at most
(each is emptied whole when full)."""
_SHARED: dict[Any, bytes] = {}
"""The JSON of the values objects share — None, strings, members of the string enums, the
tuples of access roles — by value. Only such values become keys, and equal ones are written
alike, so a value found equal to a key is written as that key is (a value of another type,
as an int or a list, never equals one or cannot be looked up)."""
_INSTANTS: dict[datetime, bytes] = {}
"""The JSON of instants (objects share few distinct days), by instant: equal instants, even
in other zones, are written alike, in UTC."""
_FLOATS: dict[float, bytes] = {}
"""The JSON of confidences that orjson writes as ``json`` does, by value (never a zero: 0.0
equals -0.0)."""


class _Odd(Exception):
    """A field not of its model's type: the form is encoded by the definition."""


def _typed_parts(obj: ContextObject) -> ObjectParts | None:
    """:func:`object_parts` written from each field's encoded value, without a dictionary or
    an encoding of the whole form per object: the values objects share are encoded once
    (:data:`_SHARED`, :data:`_INSTANTS`, :data:`_FLOATS`), only the id, title, summary and
    the lists of ids and tags per object. None when a field does not hold its model's type
    (a string where an instant is expected, a float orjson spells otherwise, a bool for an
    int, ...) or orjson refuses a value (a lone surrogate)."""
    shared = _SHARED.get
    instants = _INSTANTS.get
    try:
        roles, confidence, review = obj.access_roles, obj.confidence, obj.review_every
        title, summary, version = obj.title, obj.summary, obj.version
        status, layer = obj.status, obj.layer
        created, updated, start, until = obj.created, obj.updated, obj.valid_from, obj.valid_until
        if (
            type(obj.id) is not str
            or type(version) is not int
            or (title is not None and type(title) is not str)
            or (summary is not None and type(summary) is not str)
            or (status is not None and type(status) not in _TEXTS)  # written as its str()
            or (layer is not None and type(layer) not in _TEXTS)
        ):
            return None
        if roles is None:
            access = _NULL
        else:
            access = b'{"roles":' + (shared(roles) or _new_shared(roles)) + b"}"
        if confidence is None:
            trust = _NULL
        elif type(confidence) is float:
            trust = _FLOATS.get(confidence) or _new_float(confidence)
        else:
            return None
        if review is None:
            every = _NULL
        elif type(review) is int:
            every = b'"%dd"' % review  # format_duration's text; %d writes any int as json does
        else:
            return None
        return (
            _PRE
            % (
                access,
                _list(obj.applies_to),
                shared(obj.authority) or _new_shared(obj.authority),
                shared(obj.classification) or _new_shared(obj.classification),
                trust,
                _list(obj.conflicts_with),
            ),
            _MID
            % (
                _NULL if created is None else instants(created) or _new_instant(created),
                dumps_plain(obj.id),
                shared(layer) or _new_shared(layer),
            ),
            _REVIEW % (shared(obj.owner) or _new_shared(obj.owner), every),
            _TAIL
            % (
                shared(status) or _new_shared(status),
                _NULL if summary is None else dumps_plain(summary),
                _list(obj.superseded_by),
                _list(obj.supersedes),
                _list(obj.tags),
                _NULL if title is None else dumps_plain(title),
                shared(obj.type) or _new_shared(obj.type),
                _NULL if updated is None else instants(updated) or _new_instant(updated),
                _NULL if start is None else instants(start) or _new_instant(start),
                _NULL if until is None else instants(until) or _new_instant(until),
                version,
            ),
        )
    except (_Odd, TypeError, ValueError):  # an unhashable value; orjson refuses a value
        return None


def _list(value: Any) -> bytes:
    """The JSON of the tuple of strings ``value`` (most are empty; the others are mostly
    each object's own, so not kept); raises :class:`_Odd` or ``TypeError`` otherwise
    (``str.join`` refuses anything but strings; a subclass of ``str`` is written as its text
    by both encoders)."""
    if type(value) is not tuple:
        raise _Odd
    if not value:
        return b"[]"
    "".join(value)
    return dumps_plain(value)


def _new_shared(value: Any) -> bytes:
    """The JSON of ``value``, kept in :data:`_SHARED`, if it is None, a string, a member of
    a string enum or a tuple of strings (orjson writes each as ``json`` does); raises
    :class:`_Odd` otherwise."""
    if not (value is None or type(value) in _TEXTS or _strings(value)):
        raise _Odd
    return _keep(_SHARED, value, dumps_kept(value))


def _new_instant(value: Any) -> bytes:
    """The JSON of instant ``value`` (in UTC), kept in :data:`_INSTANTS`; raises
    :class:`_Odd` if it is not a ``datetime``."""
    if type(value) is not datetime:
        raise _Odd
    return _keep(_INSTANTS, value, dumps_kept(_format_instant(value)))


def _new_float(value: float) -> bytes:
    """The JSON of confidence ``value``, kept in :data:`_FLOATS` unless it is a zero; raises
    :class:`_Odd` when orjson would not write it as ``json`` does."""
    if not _float_agrees(value):
        raise _Odd
    encoded = dumps_kept(value)
    return _keep(_FLOATS, value, encoded) if value else encoded


def _keep(table: dict[Any, bytes], key: Any, encoded: bytes) -> bytes:
    """``encoded``, kept in ``table`` under ``key`` (the table is emptied whole when it
    holds :data:`_SHARED_VALUES`)."""
    if len(table) >= _SHARED_VALUES:
        table.clear()
    table[key] = encoded
    return encoded


def _strings(group: object) -> bool:
    """Whether ``group`` is a tuple of strings (``str.join`` refuses anything else; a
    subclass of ``str`` is written as its text by both encoders)."""
    if type(group) is not tuple:
        return False
    try:
        "".join(group)
    except TypeError:
        return False
    return True


def _float_agrees(value: object) -> bool:
    """Whether ``value`` is a finite float that orjson writes as ``json`` does (``repr``)."""
    if type(value) is not float or not math.isfinite(value):
        return False
    return dumps_plain(value) == float.__repr__(value).encode("ascii")


def exclusion_digest_form(ex: Exclusion) -> dict[str, Any]:
    if ex.reason.is_denial:
        return {"id": ex.id, "reason": ex.reason.value}
    return {
        "id": ex.id,
        "version": ex.version,
        "reason": ex.reason.value,
        "related": list(ex.related),
    }


def warning_digest_form(w: Finding) -> dict[str, Any]:
    return {"code": w.code.value, "severity": w.severity.value, "ids": list(w.ids)}
