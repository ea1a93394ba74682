"""Context objects and findings.

The front matter of a file is validated by the loader's fast path
(:mod:`octui.load.fastpath`) or, when that is unsure, by
:class:`octui.core.validation.FrontMatter` (Pydantic, strict: ``version: two`` or a
numeric id fails the file rather than being coerced). A validated file becomes a
:class:`ContextObject`, the plain value the pipeline works on. This module does not import
Pydantic: most processes never need it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter

from octui.core.enums import ExclusionReason, Layer, Severity, Status, WarningCode
from octui.core.timeutil import BEGINNING_OF_TIME

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

KNOWN_FIELDS: frozenset[str] = frozenset(OBJECT_FIELDS)
"""The front-matter keys the specification defines: the fields of
:class:`octui.core.validation.FrontMatter`."""


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


uid_of = attrgetter("uid")
"""An object's :attr:`ContextObject.uid`, as a C callable: for ``map`` and sort keys over
many objects."""
