"""Context objects and findings.

The front matter of a file is validated by :class:`FrontMatter` (Pydantic,
strict: ``version: two`` or a numeric id fails the file rather than being
coerced). A validated file becomes a :class:`ContextObject`, the plain value the
pipeline works on.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
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

from octui.core.enums import ExclusionReason, Layer, Severity, Status, WarningCode
from octui.core.timeutil import BEGINNING_OF_TIME, parse_duration, parse_instant

ID_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"
ID_RE = re.compile(ID_PATTERN, re.ASCII)
REF_RE = re.compile(r"^([a-z0-9][a-z0-9._-]*)(?:@([1-9][0-9]*))?$", re.ASCII)

#: Every field of SPEC §1.3, in the order the bundle writes them.
OBJECT_FIELDS: tuple[str, ...] = (
    "id",
    "version",
    "authority",
    "status",
    "title",
    "summary",
    "type",
    "owner",
    "layer",
    "tags",
    "applies_to",
    "classification",
    "access",
    "created",
    "updated",
    "valid_from",
    "valid_until",
    "review_every",
    "confidence",
    "supersedes",
    "superseded_by",
    "conflicts_with",
    "content",
)

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


KNOWN_FIELDS = frozenset(FrontMatter.model_fields)
_DEFAULTED = frozenset(n for n, f in FrontMatter.model_fields.items() if not f.is_required())


@dataclass(frozen=True, slots=True)
class RepositorySource:
    """Where a repository was read from: a git commit (as the user named the revision, and
    the commit's time), or the files on disk (everything None)."""

    commit: str | None = None
    revision: str | None = None
    known_at: datetime | None = None

    @property
    def working_tree(self) -> bool:
        return self.commit is None


@dataclass(frozen=True, slots=True)
class Finding:
    """A warning of SPEC §4. ``paths`` (files concerned) appear only in ``validate`` and
    ``audit``, as does ``line``: the 1-based line of the offending key (or of the YAML
    error) in the first of ``paths``, where it is known (see :mod:`octui.load.locate`).
    ``key`` names the front-matter key the finding is about, when it is about one."""

    code: WarningCode
    ids: tuple[str, ...]
    message: str
    hint: str | None = None
    paths: tuple[str, ...] = ()
    line: int | None = None
    key: str | None = None

    @property
    def severity(self) -> Severity:
        return self.code.severity

    def sort_key(self) -> tuple[str, tuple[str, ...], str, tuple[str, ...]]:
        return (self.code.value, self.ids, self.message, self.paths)


def count_errors(findings: Iterable[Finding]) -> int:
    """How many of ``findings`` are errors: the one count behind every "N errors"."""
    return sum(1 for f in findings if f.code.severity is Severity.ERROR)


@dataclass(frozen=True, slots=True)
class Exclusion:
    """An object (or source) left out of the bundle, and exactly why."""

    id: str
    version: int | None
    reason: ExclusionReason
    related: tuple[str, ...] = ()
    detail: str | None = None
    path: str | None = None
    """The excluded object's file (never set for a denied id, which names no file)."""

    def sort_key(self) -> tuple[str, int, str, tuple[str, ...], str]:
        """The order of SPEC §5, total: id, version, reason, related, then the source path."""
        return (self.id, self.version or 0, self.reason.value, self.related, self.path or "")


@dataclass(eq=False, slots=True)
class ContextObject:
    """One object as the pipeline sees it: validated fields plus where it came from.

    Slotted: a repository holds one per file, and slots take a third less memory than an
    instance dictionary (nothing sets attributes other than the fields)."""

    id: str
    version: int
    authority: str | None
    status: Status
    title: str | None
    summary: str | None
    type: str | None
    owner: str | None
    layer: Layer | None
    tags: tuple[str, ...]
    applies_to: tuple[str, ...]
    classification: str
    access_roles: tuple[str, ...] | None
    created: datetime | None
    updated: datetime | None
    valid_from: datetime | None
    valid_until: datetime | None
    review_every: int | None
    confidence: float | None
    supersedes: tuple[str, ...]
    superseded_by: tuple[str, ...]
    conflicts_with: tuple[str, ...]
    content: str
    path: str
    source: str
    unknown_fields: tuple[str, ...] = ()
    declared_authority: str | None = None
    uid: int = field(default=-1)

    @property
    def key(self) -> str:
        """``id@version``: how exclusions and edges name one object."""
        return f"{self.id}@{self.version}"

    @property
    def effective_start(self) -> datetime:
        """``valid_from``, else ``created``, else the beginning of time."""
        return self.valid_from or self.created or BEGINNING_OF_TIME

    @property
    def is_floor_layer(self) -> bool:
        return self.layer in (Layer.L0, Layer.L1)
