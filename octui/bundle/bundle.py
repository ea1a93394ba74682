"""The bundle of SPEC §5 and its digest.

The digest covers the selected context — objects (with lifecycle and
staleness), exclusions and warning codes — and nothing about the query, the
instant, file locations or human-readable sentences.
"""

from __future__ import annotations

import hashlib
import os
import re
from datetime import datetime
from typing import Any

from octui.bundle.forms import (
    exclusion_digest_form,
    object_digest_form,
    object_fields,
    warning_digest_form,
)
from octui.bundle.jsonout import dumps_canonical, dumps_indent2, dumps_indent2_utf8, orjson_agrees
from octui.bundle.pieces import Listing, Pieces, pieces_of
from octui.core.enums import DENIAL_REASONS
from octui.core.model import Exclusion, Finding, RepositorySource
from octui.core.timeutil import format_instant, now_utc
from octui.load.heap import gc_paused
from octui.resolve.memo import ResolutionMemos
from octui.resolve.result import Included, Resolution

__all__ = [
    "bundle_dict",
    "canonical_json",
    "digest",
    "digest_from_bundle",
    "digest_of",
    "dumps_bundle",
    "dumps_bundle_utf8",
    "exclusion_digest_form",
    "exclusion_json",
    "included_digest_form",
    "included_json",
    "object_digest_form",
    "object_fields",
    "resolution_json_utf8",
    "source_json",
    "warning_digest_form",
    "warning_json",
]


def included_json(inc: Included) -> dict[str, Any]:
    fields = object_fields(inc.obj)
    head = {
        "id": fields.pop("id"),
        "version": fields.pop("version"),
        "authority": fields.pop("authority"),
        "lifecycle": inc.lifecycle.value,
        "stale": inc.stale,
        "score": inc.score,
        "matched": {field: list(tokens) for field, tokens in inc.matched.items()},
        "path": inc.obj.path,
        "source": inc.obj.source,
    }
    return head | fields


def included_digest_form(inc: Included) -> dict[str, Any]:
    return object_digest_form(inc.obj, inc.lifecycle, inc.stale)


def exclusion_json(ex: Exclusion) -> dict[str, Any]:
    return {
        "id": ex.id,
        "version": ex.version,
        "reason": ex.reason.value,
        "related": list(ex.related),
        "detail": ex.detail,
    }


def warning_json(w: Finding) -> dict[str, Any]:
    return {
        "code": w.code.value,
        "severity": w.severity.value,
        "ids": list(w.ids),
        "message": w.message,
        "hint": w.hint,
    }


def canonical_json(value: Any) -> bytes:
    """Keys sorted, separators ``,`` and ``:``, UTF-8, no ASCII escaping."""
    return dumps_canonical(value)


def digest_of(
    objects: list[dict[str, Any]], exclusions: list[dict[str, Any]], warnings: list[dict[str, Any]]
) -> str:
    payload = {"objects": objects, "exclusions": exclusions, "warnings": warnings}
    return "sha256:" + hashlib.sha256(canonical_json(payload)).hexdigest()


def digest(resolution: Resolution) -> str:
    """``digest_of`` the resolution's digest forms, byte for byte, from kept pieces.

    Each item's canonical JSON is encoded once and kept by its owner (see
    :mod:`octui.bundle.pieces`): the repository's pieces in its resolution cache (an
    object's in parts that leave out its body, lifecycle and staleness), the hash state
    after a stage's exclusions in the stage's memo, so a new task hashes only its objects,
    and the digest of each task asked again is kept too.
    Without memos (a resolution made without the engine's), everything is encoded here.
    """
    memos = resolution.memos
    if memos is None:
        return _digest(resolution, Pieces(resolution.repository.objects), None)
    q = resolution.query
    key = ("digest", q.task, q.limit, q.min_relevance)
    found = memos.stage.known(key)
    if found is None:
        if memos.repository is None:
            pieces = Pieces(resolution.repository.objects)
        else:
            pieces = pieces_of(memos.repository, resolution.repository.objects)
        found = memos.stage.put(key, _digest(resolution, pieces, memos))
    return found  # type: ignore[no-any-return]


def _digest(resolution: Resolution, pieces: Pieces, memos: ResolutionMemos | None) -> str:
    with gc_paused():  # thousands of pieces, no cycles: never a full pass over the heap
        listing = _listing(resolution, pieces, memos)
        hashed = pieces.hash_objects(listing.hashed, resolution.included)
        hashed.update(listing.tail)
        return "sha256:" + hashed.hexdigest()


def _listing(resolution: Resolution, pieces: Pieces, memos: ResolutionMemos | None) -> Listing:
    """The resolution's exclusions and warnings hashed, kept in its stage's memo (for every
    task when step 8 trimmed nothing)."""
    exclusions, warnings = resolution.exclusions, resolution.warnings
    if memos is None:
        return pieces.listing(exclusions, warnings)
    stage = memos.stage
    q = resolution.query
    trims = q.limit is not None or q.min_relevance is not None
    key = ("listing", q.task, q.limit, q.min_relevance) if trims else ("listing",)
    kept = stage.known(key)
    if isinstance(kept, Listing) and kept.serves(exclusions, warnings):
        return kept
    made = pieces.listing(exclusions, warnings)
    if kept is None:
        stage.put(key, made)
    return made


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


def random_uuid() -> str:
    """A random (version 4, RFC 4122) UUID as ``str(uuid.uuid4())`` writes it, made without
    importing uuid, which imports platform: about 2 ms of every run."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # the version
    raw[8] = raw[8] & 0x3F | 0x80  # the variant
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def bundle_dict(
    resolution: Resolution, *, bundle_id: str | None = None, generated_at: datetime | None = None
) -> dict[str, Any]:
    """The bundle of SPEC §5, in its documented key order."""
    q = resolution.query
    return {
        "bundle_id": bundle_id or random_uuid(),
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


def _escaped(text: str) -> str:
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def dumps_bundle(bundle: dict[str, Any]) -> str:
    """The bundle as printed by ``--format json`` and written by exports."""
    text = dumps_indent2(bundle)  # json.dumps(indent=2, ensure_ascii=False, allow_nan=False)
    return _escaped(text) + "\n"


_UNSAFE_UTF8 = ((b"\xc2", 0x80, 0x9F), (b"\xe2\x80", 0xA8, 0xAE), (b"\xe2\x81", 0xA6, 0xA9))
"""Every character :data:`_UNSAFE_JSON` escapes, in UTF-8: a lead and the range of the byte
after it (U+0080–U+009F, U+2028–U+202E, U+2066–U+2069); a lone surrogate cannot be in UTF-8
bytes at all."""


def _holds_unsafe(data: bytes) -> bool:
    """Whether ``data`` (UTF-8) holds a character :data:`_UNSAFE_JSON` escapes: found by
    byte searches, where matching the pattern over the decoded text costs several times more
    (a bundle's prose, its dashes and arrows, is full of the lead ``\\xe2``).

    The two leads ``\\xe2\\x80`` and ``\\xe2\\x81`` are first looked for through the one
    byte ``\\xe2``, which the search finds many times faster than a pair of bytes (at 10k
    objects 0.1 against 9 ms for a 5 MB bundle), each found one looked at from here; after
    :data:`_E2_LOOKS` of them (prose full of dashes and arrows) the pairs are searched for
    from there on, so no text costs more than the pair searches alone."""
    (c2, c2_low, c2_high), (_, e280_low, e280_high), (_, e281_low, e281_high) = _UNSAFE_UTF8
    if _lead_in(data, c2, c2_low, c2_high, 0):
        return True
    at, looks = data.find(b"\xe2"), 0
    while at >= 0 and looks < _E2_LOOKS:
        second, third = data[at + 1], data[at + 2]  # valid UTF-8: two bytes follow a lead
        if second == 0x80 and e280_low <= third <= e280_high:
            return True
        if second == 0x81 and e281_low <= third <= e281_high:
            return True
        at, looks = data.find(b"\xe2", at + 3), looks + 1
    if at < 0:
        return False
    return any(_lead_in(data, lead, low, high, at) for lead, low, high in _UNSAFE_UTF8[1:])


_E2_LOOKS = 256
"""How many characters led by ``\\xe2`` :func:`_holds_unsafe` looks at one by one."""


def _lead_in(data: bytes, lead: bytes, low: int, high: int, start: int) -> bool:
    """Whether ``lead`` followed by a byte in ``low``–``high`` is in ``data`` from ``start``."""
    after = len(lead)
    at = data.find(lead, start)
    while at >= 0:
        if low <= data[at + after] <= high:  # valid UTF-8: a lead is never the last byte
            return True
        at = data.find(lead, at + after)
    return False


def dumps_bundle_utf8(bundle: dict[str, Any], *, agrees: bool | None = None) -> bytes:
    """:func:`dumps_bundle` encoded as UTF-8, made without decoding orjson's bytes and
    scanning the text when they hold no character to escape (``agrees``: see
    :func:`~octui.bundle.jsonout.dumps_indent2_utf8`)."""
    found = dumps_indent2_utf8(bundle, final_newline=True, agrees=agrees)  # "\n" is safe
    if type(found) is bytes:
        if not _holds_unsafe(found):
            return found
        found = found.decode("utf-8")
    assert isinstance(found, str)
    return _escaped(found).encode("utf-8")


RECORD_PARTS = ("exclusions", "warnings")
"""The parts of :func:`bundle_dict` made only by :func:`exclusion_json` and
:func:`warning_json` from records whose fields they read are strings, integers, None and
tuples of strings: nothing orjson writes otherwise than ``json`` does when it writes it at
all (it refuses lone surrogates and integers over 64 bits, and then the standard library
writes the whole bundle). They are most of a bundle."""


def resolution_json_utf8(
    resolution: Resolution, *, bundle_id: str | None = None, generated_at: datetime | None = None
) -> bytes:
    """``dumps_bundle_utf8(bundle_dict(resolution))``, the same bytes, found without walking
    the :data:`RECORD_PARTS` to show that orjson writes them as ``json`` does: a float, the one
    leaf it spells otherwise, is never in them. At 10k objects that walk cost about three
    times what orjson's writing does."""
    bundle = bundle_dict(resolution, bundle_id=bundle_id, generated_at=generated_at)
    agrees = all(orjson_agrees(part) for key, part in bundle.items() if key not in RECORD_PARTS)
    return dumps_bundle_utf8(bundle, agrees=agrees)
