"""The bundle of SPEC §5 and its digest.

The digest covers the selected context — objects (with lifecycle and
staleness), exclusions and warning codes — and nothing about the query, the
instant, file locations or human-readable sentences.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from datetime import datetime
from functools import lru_cache
from typing import Any

from octui.bundle.jsonout import dumps_indent2
from octui.core.enums import DENIAL_REASONS, Lifecycle
from octui.core.model import OBJECT_FIELDS, ContextObject, Exclusion, Finding, RepositorySource
from octui.core.timeutil import format_duration, format_instant, now_utc
from octui.load.heap import gc_paused
from octui.resolve.result import Included, Resolution

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


def included_json(inc: Included) -> dict[str, Any]:
    fields = object_fields(inc.obj)
    head = {
        "id": fields.pop("id"),
        "version": fields.pop("version"),
        "authority": fields.pop("authority"),
        "lifecycle": inc.lifecycle.value,
        "stale": inc.stale,
        "score": inc.score,
        "matched": inc.matched,
        "path": inc.obj.path,
        "source": inc.obj.source,
    }
    return head | fields


def included_digest_form(inc: Included) -> dict[str, Any]:
    return object_digest_form(inc.obj, inc.lifecycle, inc.stale)


def object_digest_form(obj: ContextObject, lifecycle: Lifecycle, stale: bool) -> dict[str, Any]:
    """An included object's digest form: its fields, its lifecycle and staleness."""
    return object_fields(obj) | {"lifecycle": lifecycle.value, "stale": stale}


def exclusion_json(ex: Exclusion) -> dict[str, Any]:
    return {
        "id": ex.id,
        "version": ex.version,
        "reason": ex.reason.value,
        "related": list(ex.related),
        "detail": ex.detail,
    }


def exclusion_digest_form(ex: Exclusion) -> dict[str, Any]:
    if ex.reason.is_denial:
        return {"id": ex.id, "reason": ex.reason.value}
    return {
        "id": ex.id,
        "version": ex.version,
        "reason": ex.reason.value,
        "related": list(ex.related),
    }


def warning_json(w: Finding) -> dict[str, Any]:
    return {
        "code": w.code.value,
        "severity": w.severity.value,
        "ids": list(w.ids),
        "message": w.message,
        "hint": w.hint,
    }


def warning_digest_form(w: Finding) -> dict[str, Any]:
    return {"code": w.code.value, "severity": w.severity.value, "ids": list(w.ids)}


def canonical_json(value: Any) -> bytes:
    """Keys sorted, separators ``,`` and ``:``, UTF-8, no ASCII escaping."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def digest_of(
    objects: list[dict[str, Any]], exclusions: list[dict[str, Any]], warnings: list[dict[str, Any]]
) -> str:
    payload = {"objects": objects, "exclusions": exclusions, "warnings": warnings}
    return "sha256:" + hashlib.sha256(canonical_json(payload)).hexdigest()


def digest(resolution: Resolution) -> str:
    """``digest_of`` the resolution's digest forms, byte for byte, from cached pieces.

    The canonical JSON of a list is its items' canonical JSON joined by commas, and the
    payload's keys sort as exclusions, objects, warnings; so each item is encoded once (an
    object per lifecycle and staleness, an exclusion by value, each kept in a bounded
    module-level cache, never on the object) and the explorer's digest per keystroke hashes
    bytes instead of re-encoding every object. Pieces are found by identity first (see
    :func:`_included_json`), so a re-resolution that reuses its records costs a probe each.
    """
    with gc_paused():  # thousands of pieces, no cycles: never a full pass over the heap
        objects = b",".join([_included_json(i) for i in resolution.included])
        exclusions = b",".join([_exclusion_piece(e) for e in resolution.exclusions])
        warnings = b",".join([_warning_piece(w) for w in resolution.warnings])
    hashed = hashlib.sha256(b'{"exclusions":[')
    for part in (exclusions, b'],"objects":[', objects, b'],"warnings":[', warnings, b"]}"):
        hashed.update(part)  # the payload is never copied whole
    return "sha256:" + hashed.hexdigest()


PIECES = 1 << 17
"""Digest pieces kept by identity (each table; cleared whole when full)."""

_object_pieces: dict[tuple[int, Lifecycle, bool], tuple[ContextObject, bytes]] = {}
_exclusion_pieces: dict[int, tuple[Exclusion, bytes]] = {}
_warning_pieces: dict[int, tuple[Finding, bytes]] = {}


def _included_json(inc: Included) -> bytes:
    """The canonical JSON of an included object's digest form, kept by the object's identity
    (an object never changes once loaded). The table holds the object itself, so its id is
    never reused while its entry lives; a lookup is one dictionary probe, never a hash of the
    object's fields. Threads may race on an entry: both compute the same bytes."""
    obj = inc.obj
    key = (id(obj), inc.lifecycle, inc.stale)
    found = _object_pieces.get(key)
    if found is not None and found[0] is obj:
        return found[1]
    piece = canonical_json(object_digest_form(obj, inc.lifecycle, inc.stale))
    if len(_object_pieces) >= PIECES:
        _object_pieces.clear()
    _object_pieces[key] = (obj, piece)
    return piece


def _exclusion_piece(exclusion: Exclusion) -> bytes:
    """:func:`_exclusion_json` kept by the record's identity too: a cached stage hands the
    same records to every resolution, so most lookups are one dictionary probe instead of
    hashing and comparing the record's fields."""
    found = _exclusion_pieces.get(id(exclusion))
    if found is not None and found[0] is exclusion:
        return found[1]
    piece = _exclusion_json(exclusion)
    if len(_exclusion_pieces) >= PIECES:
        _exclusion_pieces.clear()
    _exclusion_pieces[id(exclusion)] = (exclusion, piece)
    return piece


def _warning_piece(warning: Finding) -> bytes:
    """The canonical JSON of a warning's digest form, kept by the finding's identity."""
    found = _warning_pieces.get(id(warning))
    if found is not None and found[0] is warning:
        return found[1]
    piece = canonical_json(warning_digest_form(warning))
    if len(_warning_pieces) >= PIECES:
        _warning_pieces.clear()
    _warning_pieces[id(warning)] = (warning, piece)
    return piece


@lru_cache(maxsize=1 << 17)
def _exclusion_json(exclusion: Exclusion) -> bytes:
    """The canonical JSON of an exclusion's digest form, by value (equal records made by
    another resolution share it)."""
    return canonical_json(exclusion_digest_form(exclusion))


_DIGEST_OBJECT_DROP = ("score", "matched", "path", "source")


def digest_from_bundle(bundle: dict[str, Any]) -> str:
    """Recompute the digest from a bundle's JSON alone (anyone can check a bundle)."""
    objects = [
        {k: v for k, v in o.items() if k not in _DIGEST_OBJECT_DROP} for o in bundle["objects"]
    ]
    exclusions = []
    for e in bundle["exclusions"]:
        if e["reason"] in DENIAL_REASONS:
            exclusions.append({"id": e["id"], "reason": e["reason"]})
        else:
            exclusions.append({k: e[k] for k in ("id", "version", "reason", "related")})
    warnings = [{k: w[k] for k in ("code", "severity", "ids")} for w in bundle["warnings"]]
    return digest_of(objects, exclusions, warnings)


def source_json(source: RepositorySource) -> dict[str, Any]:
    """Where the repository was read from; not part of the digest."""
    return {
        "commit": source.commit,
        "revision": source.revision,
        "known_at": None if source.known_at is None else format_instant(source.known_at),
        "working_tree": source.working_tree,
    }


def bundle_dict(
    resolution: Resolution, *, bundle_id: str | None = None, generated_at: datetime | None = None
) -> dict[str, Any]:
    """The bundle of SPEC §5, in its documented key order."""
    q = resolution.query
    return {
        "bundle_id": bundle_id or str(uuid.uuid4()),
        "generated_at": format_instant(generated_at or now_utc()),
        "as_of": format_instant(q.as_of),
        "inputs": {
            "role": q.role,
            "task": q.task,
            "limit": q.limit,
            "min_relevance": q.min_relevance,
            "include_historical": q.include_historical,
            "strict": q.strict,
        },
        "source": source_json(resolution.repository.source),
        "objects": [included_json(i) for i in resolution.included],
        "exclusions": [exclusion_json(e) for e in resolution.exclusions],
        "warnings": [warning_json(w) for w in resolution.warnings],
        "digest": digest(resolution),
    }


# C1 controls and Unicode line/paragraph separators and bidi overrides are valid in JSON
# strings but can steer a terminal; escape them so printed JSON is inert and still equal.
# Lone surrogates (undecodable file-name bytes, e.g. from a git tree) are escaped too: printing
# them raw either fails (strict UTF-8 stdout) or writes invalid UTF-8.
_UNSAFE_JSON = re.compile("[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def dumps_bundle(bundle: dict[str, Any]) -> str:
    """The bundle as printed by ``--format json`` and written by exports."""
    text = dumps_indent2(bundle)  # json.dumps(indent=2, ensure_ascii=False, allow_nan=False)
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"
