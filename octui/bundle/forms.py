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
from itertools import chain
from typing import Any

from octui.bundle.jsonout import dumps_canonical, dumps_plain
from octui.core.enums import Authority, Lifecycle
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
JSON string's body, between it and the lifecycle's JSON, between that and the staleness's, and
after it."""

_EMPTY = {"content": "", "lifecycle": "", "stale": False}
_PLAIN = (str, type(None))
_AUTHORITY = (str, type(None), Authority)  # a source may force a declared authority
_INSTANT = (datetime, type(None))


def object_parts(obj: ContextObject) -> ObjectParts | None:
    """The object's digest form in the parts around its content, lifecycle and staleness, so
    that ``pre + json(content)[1:-1] + mid + json(lifecycle) + rv + json(stale) + tail`` is
    :func:`object_digest_form`'s canonical JSON, byte for byte, and no part holds the body.

    The form is encoded once with those three values empty (``""``, ``""``, ``false``) and
    cut at their keys: in canonical JSON a quote inside a string is always escaped, so
    ``,"content":""`` can only be that key (no other dict of the form has such a key).
    None when the content is not a string or the form cannot be encoded (the caller then
    encodes the whole form, raising what the standard library raises)."""
    if type(obj.content) is not str:
        return None
    encoded = None
    skeleton = _typed_skeleton(obj)
    if skeleton is not None:
        try:  # not contextlib.suppress: its enter and exit cost more than the encoding
            encoded = dumps_plain(skeleton)
        except (TypeError, ValueError):  # orjson refuses: an int over 64 bits, a surrogate
            encoded = None
    if encoded is None:
        try:
            encoded = dumps_canonical(object_fields(obj) | _EMPTY)
        except (TypeError, ValueError, RecursionError):
            return None
    c = encoded.find(b',"content":""')
    lc = encoded.find(b',"lifecycle":""', c)
    st = encoded.find(b',"stale":false', lc)
    if c < 0 or lc < 0 or st < 0:  # pragma: no cover - see the docstring
        return None
    # the content's quotes stay in the parts: the content is written as its JSON string's body
    return (
        encoded[: c + 12],
        encoded[c + 12 : lc + 13],
        encoded[lc + 15 : st + 9],
        encoded[st + 14 :],
    )


def _typed_skeleton(obj: ContextObject) -> dict[str, Any] | None:
    """:func:`object_fields` with the three values empty, keys in sorted order, if every
    field holds its model's type (strings, tuples of strings, an int version, instants, a
    float confidence that orjson spells as ``repr`` does); None otherwise."""
    roles, confidence = obj.access_roles, obj.confidence
    if not (
        type(obj.id) is str
        and type(obj.version) is int
        and type(obj.authority) in _AUTHORITY
        and type(obj.title) in _PLAIN
        and type(obj.summary) in _PLAIN
        and type(obj.type) in _PLAIN
        and type(obj.owner) in _PLAIN
        and type(obj.classification) in _PLAIN
        and type(obj.created) in _INSTANT
        and type(obj.updated) in _INSTANT
        and type(obj.valid_from) in _INSTANT
        and type(obj.valid_until) in _INSTANT
        and (confidence is None or _float_agrees(confidence))
        and _strings(
            obj.tags,
            obj.applies_to,
            obj.supersedes,
            obj.superseded_by,
            obj.conflicts_with,
            () if roles is None else roles,
        )
    ):
        return None
    review, status, layer = obj.review_every, obj.status, obj.layer
    created, updated, start, until = obj.created, obj.updated, obj.valid_from, obj.valid_until
    return {
        "access": None if roles is None else {"roles": roles},
        "applies_to": obj.applies_to,
        "authority": obj.authority,
        "classification": obj.classification,
        "confidence": confidence,
        "conflicts_with": obj.conflicts_with,
        "content": "",
        "created": None if created is None else _format_instant(created),
        "id": obj.id,
        "layer": None if layer is None else str(layer),
        "lifecycle": "",
        "owner": obj.owner,
        "review_every": None if review is None else format_duration(review),
        "stale": False,
        "status": None if status is None else str(status),
        "summary": obj.summary,
        "superseded_by": obj.superseded_by,
        "supersedes": obj.supersedes,
        "tags": obj.tags,
        "title": obj.title,
        "type": obj.type,
        "updated": None if updated is None else _format_instant(updated),
        "valid_from": None if start is None else _format_instant(start),
        "valid_until": None if until is None else _format_instant(until),
        "version": obj.version,
    }


def _strings(*groups: tuple[str, ...]) -> bool:
    """Whether each of ``groups`` is a tuple of strings (``str.join`` refuses anything else;
    a subclass of ``str`` is written as its text by both encoders)."""
    for group in groups:
        if type(group) is not tuple:
            return False
    try:
        "".join(chain.from_iterable(groups))
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
