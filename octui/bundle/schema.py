"""JSON Schemas (draft 2020-12) for ``opencontext.yaml``, an object's front matter and a bundle.

They are written by hand rather than generated from the Pydantic models: the models
accept spellings (``180d``, ``2026-03-01``, ``id@version``) that their generated schema
would reject, because the conversion happens in validators a schema never sees. Every
closed set (authorities, statuses, layers, tie breakers, exclusion reasons, warning codes,
severities, lifecycles) comes from :mod:`octui.core.enums`, so it is defined once.

A schema says what it can say on its own: it cannot know which classification levels or
roles a repository configures, nor that two sources share a name. Where the loader only
warns (an unknown front-matter key, an authority that is not one of the six), the object
schema rejects, so an editor flags the typo; the descriptions say so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from octui.core.enums import (
    Authority,
    ExclusionReason,
    Layer,
    Lifecycle,
    Severity,
    Status,
    TieBreaker,
    WarningCode,
)

DIALECT = "https://json-schema.org/draft/2020-12/schema"

Schema = dict[str, Any]

#: How the repository may write a duration (``timeutil.parse_duration``, which strips spaces).
DURATION_PATTERN = r"^\s*([1-9][0-9]{0,5}|0)[dwmy]\s*$"
#: A date or an RFC 3339 datetime as ``timeutil.parse_instant`` reads them (offset optional).
INSTANT_PATTERN = (
    r"^\s*[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?([Zz]|[+-][0-9]{2}:?[0-9]{2})?)?\s*$"
)
#: How a bundle writes an instant: RFC 3339 UTC with ``Z``, six fractional digits when non-zero.
UTC_INSTANT_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{6})?Z$"
ID_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"
REF_PATTERN = r"^[a-z0-9][a-z0-9._-]*(@[1-9][0-9]*)?$"
LEVEL_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
SOURCE_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
#: Relative, and no ``..`` component (``a/..b`` is a folder name, so it is allowed).
SOURCE_PATH_PATTERN = r"^(?!/)(?!(.*/)?\.\.(/|$))"
DIGEST_PATTERN = r"^sha256:[0-9a-f]{64}$"
UUID_PATTERN = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


def _enum(kind: type[StrEnum], description: str = "") -> Schema:
    schema: Schema = {"enum": [member.value for member in kind]}
    if description:
        schema["description"] = description
    return schema


def _nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def _string(pattern: str | None = None, description: str = "") -> Schema:
    schema: Schema = {"type": "string"}
    if pattern is not None:
        schema["pattern"] = pattern
    if description:
        schema["description"] = description
    return schema


def _list(items: Schema, **extra: Any) -> Schema:
    return {"type": "array", "items": items, **extra}


def _one_or_list(items: Schema) -> Schema:
    return {"anyOf": [items, _list(items), {"type": "null"}]}


def _closed(properties: dict[str, Schema], *, required: tuple[str, ...] = ()) -> Schema:
    schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def _document(name: str, title: str, description: str, body: Schema) -> Schema:
    return {
        "$schema": DIALECT,
        "$id": f"urn:opencontext:schema:{name}:1",
        "title": title,
        "description": description,
    } | body


# -- opencontext.yaml ------------------------------------------------------------------------


def _duration() -> Schema:
    return _string(DURATION_PATTERN, "Nd, Nw, Nm (30 days) or Ny (365 days), e.g. 90d")


def _config_authority() -> Schema:
    """``authority:``: the precedence of the six levels and the tie-breakers."""
    authorities = [a.value for a in Authority]
    return _closed(
        {
            "precedence": _list(
                _enum(Authority),
                minItems=len(authorities),
                maxItems=len(authorities),
                uniqueItems=True,
                description="a permutation of exactly the six levels, highest first",
                default=authorities,
            ),
            "tie_breakers": _list(
                _enum(TieBreaker),
                description="ordered; 'id' is appended when absent",
            ),
        }
    )


def _config_source() -> Schema:
    """One entry of ``sources:``."""
    return _closed(
        {
            "name": _string(SOURCE_NAME_PATTERN),
            "path": _string(
                SOURCE_PATH_PATTERN, "a folder inside the repository (relative, no '..')"
            ),
            "authority": _nullable(_enum(Authority, "forced onto every object from this source")),
        },
        required=("name",),
    )


def _config_role() -> Schema:
    """One entry of ``roles:``: clearance and scope."""
    patterns = _list(_string(description="an id glob such as 'policies.*'") | {"minLength": 1})
    return _closed(
        {
            "clearance": _nullable(
                _string(LEVEL_PATTERN, "the highest classification level the role may read")
            ),
            "scope": _closed({"include": _nullable(patterns), "exclude": patterns}),
            "description": _nullable({"type": "string"}),
        }
    )


def config_schema() -> Schema:
    """``opencontext.yaml`` (SPEC §1.1)."""
    classification = _closed(
        {
            "levels": _list(
                _string(LEVEL_PATTERN),
                minItems=1,
                uniqueItems=True,
                description="classification levels, lowest first",
            )
        }
    )
    freshness = _closed(
        {
            "default": _nullable(_duration()),
            "by_type": {"type": "object", "additionalProperties": _duration()},
        }
    )
    ranking = _closed({"floor": {"type": "integer", "minimum": 0}})
    body = _closed(
        {
            "spec": {"type": "integer", "const": 1},
            "authority": _config_authority(),
            "classification": classification,
            "freshness": freshness,
            "ranking": ranking,
            "sources": _list(_config_source(), minItems=1),
            "roles": {"type": "object", "additionalProperties": _config_role()},
        }
    )
    return _document(
        "config",
        "opencontext.yaml",
        "The configuration of an OpenContext repository. A schema cannot check what spans "
        "keys (a clearance naming a configured level, distinct source names and paths); "
        "opencontext validate does.",
        body,
    )


# -- an object's front matter ----------------------------------------------------------------


def _text() -> Schema:
    return _nullable({"type": "string"})


def object_schema() -> Schema:
    """An object's front matter (a ``.md`` file) or document (a ``.yaml`` file), SPEC §1.3."""
    instant = _nullable(_string(INSTANT_PATTERN, "YYYY-MM-DD or an RFC 3339 datetime (UTC)"))
    properties: dict[str, Schema] = {
        "id": _string(ID_PATTERN, "identity; versions share it"),
        "version": _nullable({"type": "integer", "minimum": 1}),
        "authority": _nullable(
            _enum(
                Authority,
                "one of the six levels; octui loads any other value with an "
                "unknown-authority warning, which this schema reports as an error",
            )
        ),
        "status": _nullable(_enum(Status, "a draft is never included and never supersedes")),
        "title": _text(),
        "summary": _text(),
        "type": _text(),
        "owner": _text(),
        "layer": _nullable(_enum(Layer, "L0 = mission, L1 = identity: never trimmed")),
        "tags": _nullable(_list({"type": "string"})),
        "applies_to": _nullable(_list({"type": "string"})),
        "classification": _nullable(
            _string(LEVEL_PATTERN, "a level configured in opencontext.yaml")
        ),
        "access": _nullable(_closed({"roles": _nullable(_list({"type": "string"}))})),
        "created": instant,
        "updated": instant,
        "valid_from": instant,
        "valid_until": instant,
        "review_every": _nullable(_duration()),
        "confidence": _nullable({"type": "number", "minimum": 0, "maximum": 1}),
        "supersedes": _nullable(_list(_string(REF_PATTERN, "id or id@version"))),
        "superseded_by": _one_or_list(_string(REF_PATTERN, "id or id@version")),
        "conflicts_with": _nullable(_list(_string(ID_PATTERN))),
        "content": _nullable(
            {"type": "string", "description": "the body (YAML object files only)"}
        ),
    }
    return _document(
        "object",
        "OpenContext object front matter",
        "The metadata of one context object: the front matter of a Markdown file, or a "
        "whole YAML object file. Stricter than the loader in two places, so an editor flags "
        "typos: an unknown key (octui loads the object with an unknown-field warning) and an "
        "authority outside the six (octui: unknown-authority warning) are errors here.",
        _closed(properties, required=("id",)),
    )


# -- the bundle --------------------------------------------------------------------------------


def _bundle_object() -> Schema:
    utc = _nullable(_string(UTC_INSTANT_PATTERN))
    properties: dict[str, Schema] = {
        "id": _string(ID_PATTERN),
        "version": _nullable({"type": "integer", "minimum": 1}),
        "authority": _nullable(
            {"type": "string", "description": "may be outside the six (unknown-authority)"}
        ),
        "lifecycle": _enum(Lifecycle),
        "stale": {"type": "boolean"},
        "score": {"type": "integer"},
        "matched": {"type": "object", "additionalProperties": _list({"type": "string"})},
        "path": {"type": "string"},
        "source": {"type": "string"},
        "status": _enum(Status),
        "title": _text(),
        "summary": _text(),
        "type": _text(),
        "owner": _text(),
        "layer": _nullable(_enum(Layer)),
        "tags": _nullable(_list({"type": "string"})),
        "applies_to": _nullable(_list({"type": "string"})),
        "classification": {"type": "string"},
        "access": _nullable(_closed({"roles": _list({"type": "string"})}, required=("roles",))),
        "created": utc,
        "updated": utc,
        "valid_from": utc,
        "valid_until": utc,
        "review_every": _nullable(_string(r"^[0-9]+d$", "days")),
        "confidence": _nullable({"type": "number", "minimum": 0, "maximum": 1}),
        "supersedes": _list(_string(REF_PATTERN)),
        "superseded_by": _list(_string(REF_PATTERN)),
        "conflicts_with": _list(_string(ID_PATTERN)),
        "content": {"type": "string"},
    }
    return _closed(properties, required=tuple(properties))


def _bundle_warning() -> Schema:
    by_code = [
        {
            "if": {"properties": {"code": {"const": code.value}}},
            "then": {"properties": {"severity": {"const": code.severity.value}}},
        }
        for code in WarningCode
    ]
    properties = {
        "code": _enum(WarningCode),
        "severity": _enum(Severity),
        "ids": _list({"type": "string"}),
        "message": {"type": "string"},
        "hint": _text(),
    }
    return _closed(properties, required=tuple(properties)) | {"allOf": by_code}


def _bundle_inputs() -> Schema:
    """``inputs``: the question the bundle answers."""
    return _closed(
        {
            "role": _text(),
            "task": {"type": "string"},
            "limit": _nullable({"type": "integer", "minimum": 0}),
            "min_relevance": _nullable({"type": "number"}),
            "include_historical": {"type": "boolean"},
            "strict": {"type": "boolean"},
        },
        required=("role", "task", "limit", "min_relevance", "include_historical", "strict"),
    )


def _bundle_source() -> Schema:
    """``source``: the revision the bundle was resolved from."""
    return _closed(
        {
            "commit": _nullable(_string(r"^[0-9a-f]{40}$")),
            "revision": _text(),
            "known_at": _nullable(_string(UTC_INSTANT_PATTERN)),
            "working_tree": {"type": "boolean"},
        }
    )


def _bundle_exclusion() -> Schema:
    """One entry of ``exclusions``: what was left out and why."""
    return _closed(
        {
            "id": {"type": "string"},
            "version": _nullable({"type": "integer", "minimum": 1}),
            "reason": _enum(ExclusionReason),
            "related": _list({"type": "string"}),
            "detail": _text(),
        },
        required=("id", "version", "reason", "related", "detail"),
    )


def bundle_schema() -> Schema:
    """The bundle ``opencontext resolve --format json`` prints (SPEC §5)."""
    utc = _string(UTC_INSTANT_PATTERN)
    body = _closed(
        {
            "bundle_id": _string(UUID_PATTERN, "unique per run"),
            "generated_at": utc,
            "as_of": utc,
            "inputs": _bundle_inputs(),
            "source": _bundle_source(),
            "objects": _list(_bundle_object()),
            "exclusions": _list(_bundle_exclusion()),
            "warnings": _list(_bundle_warning()),
            "digest": _string(DIGEST_PATTERN),
        },
        required=(
            "bundle_id",
            "generated_at",
            "as_of",
            "inputs",
            "source",
            "objects",
            "exclusions",
            "warnings",
            "digest",
        ),
    )
    return _document(
        "bundle",
        "OpenContext bundle",
        "What a role is given for a task at an instant, what was left out and why, what is "
        "wrong, and the digest (SPEC §5).",
        body,
    )


#: ``opencontext schema NAME``: the schema's builder.
SCHEMAS: dict[str, Callable[[], Schema]] = {
    "config": config_schema,
    "object": object_schema,
    "bundle": bundle_schema,
}


def dumps_schema(name: str) -> str:
    """The named schema as printed: two-space indented JSON and a final newline."""
    return json.dumps(SCHEMAS[name](), indent=2, ensure_ascii=False) + "\n"
