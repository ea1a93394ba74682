"""Validation of one file's front matter by Pydantic: :class:`FrontMatter`.

The loader's fast path (:mod:`octui.load.fastpath`) gives the same fields for plainly
valid data without it; this module (and Pydantic with it) is imported only when a file
needs the full validation or its error message, which keeps Pydantic out of most
processes' start-up.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from octui.core.enums import Layer, Status
from octui.core.model import ID_PATTERN, REF_RE
from octui.core.timeutil import parse_duration, parse_instant

ObjectId = Annotated[str, StringConstraints(pattern=ID_PATTERN)]


def _instant(value: object) -> object:
    return None if value is None else parse_instant(value)


def _duration(value: object) -> object:
    return None if value is None else parse_duration(value)


def _ref(value: object) -> object:
    if isinstance(value, str) and REF_RE.fullmatch(value):
        return value
    raise ValueError(f"expected an id or id@version, got {value!r}")


def _one_or_list(value: object) -> object:
    """``superseded_by`` alone also takes a single reference."""
    return [value] if isinstance(value, str) else value


Instant = Annotated[datetime | None, BeforeValidator(_instant)]
Ref = Annotated[str, BeforeValidator(_ref)]


class Access(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    roles: list[str] | None = None


_DEFAULTED: frozenset[str] = frozenset()  # filled in below, once FrontMatter exists


class FrontMatter(BaseModel):
    """The metadata of one object file. Unknown keys are kept and reported, not fatal."""

    model_config = ConfigDict(extra="allow", strict=True)

    id: ObjectId
    version: int = Field(default=1, ge=1)
    authority: str | None = None
    status: Status = Status.ACTIVE
    title: str | None = None
    summary: str | None = None
    type: str | None = None
    owner: str | None = None
    layer: Layer | None = None
    tags: list[str] = Field(default_factory=list)
    applies_to: list[str] = Field(default_factory=list)
    classification: str | None = None
    access: Access | None = None
    created: Instant = None
    updated: Instant = None
    valid_from: Instant = None
    valid_until: Instant = None
    review_every: Annotated[int | None, BeforeValidator(_duration)] = None
    confidence: float | None = Field(default=None, ge=0, le=1)
    supersedes: list[Ref] = Field(default_factory=list)
    superseded_by: Annotated[list[Ref], BeforeValidator(_one_or_list)] = Field(default_factory=list)
    conflicts_with: list[ObjectId] = Field(default_factory=list)
    content: str = ""

    @model_validator(mode="before")
    @classmethod
    def _null_is_absent(cls, data: Any) -> Any:
        """An explicit ``null`` is the same as leaving the key out, for every field with a
        default (``id`` has none: ``id: null`` stays an error)."""
        if isinstance(data, dict) and any(data[k] is None for k in _DEFAULTED if k in data):
            return {k: v for k, v in data.items() if v is not None or k not in _DEFAULTED}
        return data

    @classmethod
    def coerce_enums(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Strict mode wants enum instances; accept their string spellings. An integer
        confidence becomes a float (one too large for a float becomes infinity, which the
        0–1 bound then refuses)."""
        status = data.get("status")
        if isinstance(status, str) and status in Status.__members__.values():
            data["status"] = Status(status)
        layer = data.get("layer")
        if isinstance(layer, str) and layer in Layer.__members__.values():
            data["layer"] = Layer(layer)
        conf = data.get("confidence")
        if isinstance(conf, int) and not isinstance(conf, bool):
            try:
                data["confidence"] = float(conf)
            except OverflowError:
                data["confidence"] = math.inf if conf > 0 else -math.inf
        return data


_DEFAULTED = frozenset(n for n, f in FrontMatter.model_fields.items() if not f.is_required())
