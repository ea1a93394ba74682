"""The public Python API: open a repository, resolve a bundle for a role, validate.

Everything here is re-exported from :mod:`octui` and is the supported surface for agent
frameworks; the modules behind it may be reorganised freely. Results are plain data: a
:class:`Bundle` holds the JSON form of SPEC §5 (dicts and lists, as ``opencontext resolve
--format json`` prints them), findings are small frozen dataclasses.

>>> import octui
>>> repo = octui.open_repository("sample-repo")
>>> bundle = repo.resolve("support", task="refund", as_of="2026-03-15")
>>> bundle.digest.startswith("sha256:")
True
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from datetime import date, datetime
from os import PathLike
from pathlib import Path
from typing import Any

from octui.bundle.bundle import bundle_dict, dumps_bundle
from octui.core.timeutil import now_utc, parse_instant
from octui.load.assemble import Repository as _LoadedRepository
from octui.load.config import ConfigError, NotARepository
from octui.load.loader import load_repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Query, UnknownRole

__all__ = [
    "Bundle",
    "ContextRepository",
    "Finding",
    "OpenContextError",
    "open_repository",
]

When = datetime | date | str | None
"""An instant: an aware or naive (UTC) datetime, a date (midnight UTC), a ``YYYY-MM-DD`` or
RFC 3339 string, or None for now."""


class OpenContextError(ValueError):
    """A problem the caller can fix: not a repository, a bad configuration, an unknown role or
    git revision, an unreadable instant. The message is one line naming what is wrong."""


@dataclass(frozen=True, slots=True)
class Finding:
    """A warning of SPEC §4: ``code``, ``severity`` (``error`` | ``warning``), the ids it
    concerns, a message, a hint (or None) and, from :meth:`ContextRepository.validate`, the
    files it concerns (relative to the repository) and ``line``: the 1-based line of the
    offending key (or YAML error) in the first of them, where it is known."""

    code: str
    severity: str
    ids: tuple[str, ...]
    message: str
    hint: str | None = None
    paths: tuple[str, ...] = ()
    line: int | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


@dataclass(frozen=True)
class Bundle:
    """What a role is given for a task at an instant (SPEC §5).

    ``objects``, ``exclusions`` and ``warnings`` are fresh copies of the bundle's JSON lists
    on every access, so changing them never changes :meth:`to_json` or :attr:`digest`.
    """

    _data: dict[str, Any] = field(repr=False)
    _text: str = field(repr=False)

    @property
    def digest(self) -> str:
        """``sha256:<hex>`` over the selected context (never the query, time or paths)."""
        return str(self._data["digest"])

    @property
    def role(self) -> str:
        return str(self._data["inputs"]["role"])

    @property
    def as_of(self) -> str:
        """The instant resolved at, RFC 3339 UTC."""
        return str(self._data["as_of"])

    @property
    def bundle_id(self) -> str:
        return str(self._data["bundle_id"])

    @property
    def generated_at(self) -> str:
        return str(self._data["generated_at"])

    @property
    def inputs(self) -> dict[str, Any]:
        return dict(self._data["inputs"])

    @property
    def objects(self) -> list[dict[str, Any]]:
        """The included objects in bundle order: every field of SPEC §1.3 plus ``lifecycle``,
        ``stale``, ``score``, ``matched``, ``path`` and ``source``."""
        return copy.deepcopy(self._data["objects"])

    @property
    def exclusions(self) -> list[dict[str, Any]]:
        """What was left out: ``id``, ``version``, ``reason``, ``related``, ``detail``."""
        return copy.deepcopy(self._data["exclusions"])

    @property
    def warnings(self) -> list[dict[str, Any]]:
        """``code``, ``severity``, ``ids``, ``message``, ``hint`` for each finding."""
        return copy.deepcopy(self._data["warnings"])

    @property
    def failed(self) -> bool:
        """True when a warning of severity ``error`` is present (a strict run fails)."""
        return any(w["severity"] == "error" for w in self._data["warnings"])

    def to_dict(self) -> dict[str, Any]:
        """The whole bundle as JSON-ready data (a fresh copy)."""
        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        """Exactly what ``opencontext resolve --format json`` prints for the same inputs
        (its ``bundle_id`` and ``generated_at`` are this bundle's own)."""
        return self._text

    def ids(self) -> list[str]:
        """The included objects' ids, in bundle order."""
        return [str(o["id"]) for o in self._data["objects"]]


class ContextRepository:
    """An opened repository: its files as read once, resolvable for any role and instant.

    Nothing is re-read after opening; open again to see later edits.
    """

    def __init__(self, loaded: _LoadedRepository, path: Path, rev: str | None) -> None:
        self._loaded = loaded
        self._cache = ResolutionCache(loaded)
        self.path = path
        self.rev = rev

    def __repr__(self) -> str:
        at = f" at {self.rev!r}" if self.rev is not None else ""
        return f"<ContextRepository {str(self.path)!r}{at}: {len(self._loaded.objects)} objects>"

    @property
    def roles(self) -> list[str]:
        """The roles declared in ``opencontext.yaml``, sorted."""
        return sorted(self._loaded.config.roles)

    def resolve(
        self,
        role: str,
        task: str = "",
        as_of: When = None,
        limit: int | None = None,
        min_relevance: float | None = None,
        include_historical: bool = False,
        strict: bool = False,
    ) -> Bundle:
        """The bundle for ``role`` doing ``task`` at ``as_of`` (default: now).

        ``strict`` is recorded in the bundle's inputs; it never raises: check
        :attr:`Bundle.failed`. Raises :class:`OpenContextError` for an undeclared role, an
        unreadable instant or a negative limit.
        """
        if limit is not None and (isinstance(limit, bool) or limit < 0):
            raise OpenContextError(f"limit must be a whole number ≥ 0, got {limit!r}")
        query = Query(
            role=role,
            as_of=_instant(as_of),
            task=task,
            include_historical=include_historical,
            limit=limit,
            min_relevance=min_relevance,
            strict=strict,
        )
        try:
            resolution = resolve(self._loaded, query, self._cache)
        except UnknownRole as exc:
            raise OpenContextError(str(exc)) from None
        data = bundle_dict(resolution)
        text = dumps_bundle(data)
        return Bundle(json.loads(text), text)

    def validate(self, as_of: When = None) -> list[Finding]:
        """Every finding about the whole repository at ``as_of`` (no role, no scope), with the
        files concerned — what ``opencontext validate`` reports."""
        from octui.load.locate import locate, reader_for

        resolution = resolve(self._loaded, Query(role=None, as_of=_instant(as_of)), self._cache)
        with reader_for(self.path, self._loaded.source.commit) as read:
            found = locate(resolution.warnings, read)
        return [
            Finding(
                code=f.code.value,
                severity=f.severity.value,
                ids=tuple(f.ids),
                message=f.message,
                hint=f.hint,
                paths=tuple(f.paths),
                line=f.line,
            )
            for f in found
        ]


def open_repository(
    path: str | PathLike[str], rev: str | None = None, *, cache: bool = False
) -> ContextRepository:
    """Open the OpenContext repository at ``path`` (the folder holding ``opencontext.yaml``).

    With ``rev``, read it exactly as it was at that git revision (from git's objects; the
    working tree is never touched). With ``cache``, reuse the CLI's parse cache in the user's
    cache directory (it never changes results). Raises :class:`OpenContextError`.
    """
    root = Path(path)
    try:
        if rev is not None:
            from octui.load.gitrun import GitRevisionError
            from octui.load.revisions import load_revision

            try:
                return ContextRepository(load_revision(root, rev), root, rev)
            except GitRevisionError as exc:
                raise OpenContextError(str(exc)) from None
        store = None
        if cache:
            from octui.load.parse_cache import open_store

            store = open_store(str(root))
        return ContextRepository(load_repository(root, store=store), root, None)
    except (NotARepository, ConfigError) as exc:
        raise OpenContextError(str(exc)) from None


def _instant(value: When) -> datetime:
    if value is None:
        return now_utc()
    try:
        return parse_instant(value)
    except ValueError as exc:
        raise OpenContextError(str(exc)) from None
