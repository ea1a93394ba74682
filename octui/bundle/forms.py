"""The normalised fields of an object and the digest forms of SPEC §5.

The digest covers each included object's fields (with lifecycle and staleness), each
exclusion's id, version, reason and related ids (a denial: id and reason only) and each
warning's code, severity and ids — nothing about the query, the instant, file locations or
human-readable sentences.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from octui.core.enums import Lifecycle
from octui.core.model import OBJECT_FIELDS, ContextObject, Exclusion, Finding
from octui.core.timeutil import format_duration, format_instant

_format_instant = lru_cache(maxsize=1 << 14)(format_instant)
"""``format_instant`` kept by instant: objects share few distinct days, and equal instants
(even in other zones) format alike, in UTC."""


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
