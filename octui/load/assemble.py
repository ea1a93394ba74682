"""Turning parsed files into a :class:`Repository`: objects under the configuration
(forced authority, classification levels), ordered and numbered, and every problem a
finding."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from octui.core.enums import Authority, WarningCode
from octui.core.model import ContextObject, Finding, RepositorySource
from octui.core.tokens import TokenTables
from octui.load.config import Config
from octui.load.parsed import ParsedFile

_AUTHORITIES = frozenset(a.value for a in Authority)


@dataclass
class Repository:
    """Everything read from a repository: its configuration, objects and load findings."""

    root: str
    config: Config
    objects: list[ContextObject]
    findings: list[Finding]
    unavailable_sources: list[tuple[str, str]]
    """``(source name, problem)`` for every configured source that could not be read."""
    invalid_files: int = 0
    source: RepositorySource = field(default_factory=RepositorySource)
    """Where it was read from (set by whoever reads a git revision)."""
    tokens: TokenTables = field(default_factory=TokenTables, compare=False, repr=False)
    """The objects' token tables for ranking (the loader's, kept across its loads)."""

    def by_id(self) -> dict[str, list[ContextObject]]:
        result: dict[str, list[ContextObject]] = {}
        for obj in self.objects:
            result.setdefault(obj.id, []).append(obj)
        return result


Reuse = dict[int, tuple[ParsedFile, str, ContextObject]]
"""``id(parsed file) -> (parsed file, source name, object)`` of a previous :func:`assemble`."""


def assemble(
    root: str,
    config: Config,
    parsed: list[tuple[str, ParsedFile]],
    problems: list[tuple[str, str]],
    unavailable: list[tuple[str, str]],
    *,
    previous: Reuse | None = None,
    record: Reuse | None = None,
) -> Repository:
    """Turn parsed files into objects under ``config``; every problem becomes a finding.

    ``previous`` (made under the same configuration) lets an unchanged parsed file keep its
    object — and the token sets cached on it. An object is never changed once a repository
    holds it: when its position (``uid``) moves, the new repository gets a copy. ``record``
    is filled with this call's objects, for the next call's ``previous``.
    """
    reused: set[int] = set()
    origin: dict[int, tuple[ParsedFile, str]] = {}
    forced = {s.name: s.authority for s in config.sources}
    levels = config.classification.levels
    objects: list[ContextObject] = []
    findings = [_invalid_file(rel, problem) for rel, problem in problems]
    for source_name, parsed_file in parsed:
        if parsed_file.skipped:
            continue
        if parsed_file.error is not None or parsed_file.fields is None:
            findings.append(_invalid_file(parsed_file.rel, parsed_file.error or "cannot be parsed"))
            continue
        earlier = previous.get(id(parsed_file)) if previous else None
        if earlier is not None and earlier[0] is parsed_file and earlier[1] == source_name:
            obj = earlier[2]
            reused.add(id(obj))
        else:
            made = _object_of(parsed_file, source_name, forced[source_name], levels)
            if isinstance(made, str):
                findings.append(_invalid_file(parsed_file.rel, made))
                continue
            obj = made
        objects.append(obj)
        origin[id(obj)] = (parsed_file, source_name)
    objects.sort(key=lambda o: (o.id, o.version, o.path))
    _number(objects, reused, origin)
    if record is not None:
        for obj in objects:
            parsed_file, source_name = origin[id(obj)]
            record[id(parsed_file)] = (parsed_file, source_name, obj)
    invalid = len(findings)
    return Repository(root, config, objects, findings, unavailable, invalid)


def _invalid_file(rel: str, problem: str) -> Finding:
    """The finding for a file that makes no object."""
    return Finding(
        WarningCode.INVALID_OBJECT,
        (),
        f"{rel}: {problem}",
        "Fix the file; until then it is not part of any bundle.",
        (rel,),
    )


def _object_of(
    parsed_file: ParsedFile, source_name: str, forced: str | None, levels: tuple[str, ...]
) -> ContextObject | str:
    """The object a valid parsed file makes in its source, or why it makes none (an
    unknown classification level fails closed)."""
    f = parsed_file.fields
    assert f is not None
    classification = f["classification"] if f["classification"] is not None else levels[0]
    if classification not in levels:
        return (
            f"classification: unknown level {classification!r}; "
            f"expected one of {', '.join(levels)} (failing closed)"
        )
    return object_from_fields(
        f,
        parsed_file.rel,
        authority=forced or f["authority"],
        classification=classification,
        source=source_name,
        unknown_fields=parsed_file.unknown,
    )


def _number(
    objects: list[ContextObject], reused: set[int], origin: dict[int, tuple[ParsedFile, str]]
) -> None:
    """Give each object its position (``uid``) in the sorted list. A reused object that
    moved is replaced by a copy: the earlier repository keeps its own object unchanged."""
    for uid, obj in enumerate(objects):
        if id(obj) not in reused:
            obj.uid = uid
        elif obj.uid != uid:
            objects[uid] = copy = replace(obj, uid=uid)
            origin[id(copy)] = origin[id(obj)]


def object_from_fields(
    f: Mapping[str, Any],
    rel: str,
    *,
    authority: str | None,
    classification: str,
    source: str = "",
    unknown_fields: tuple[str, ...] = (),
) -> ContextObject:
    """The object a file's validated front matter describes, at path ``rel``, with the
    authority and classification it is given (a source may force the authority; the lowest
    level stands in for a missing classification). Each reference is held once."""
    access = f["access"]
    return ContextObject(
        id=f["id"],
        version=f["version"],
        authority=authority,
        status=f["status"],
        title=f["title"],
        summary=f["summary"],
        type=f["type"],
        owner=f["owner"],
        layer=f["layer"],
        tags=tuple(f["tags"]),
        applies_to=tuple(f["applies_to"]),
        classification=classification,
        access_roles=tuple(access["roles"]) if access and access["roles"] is not None else None,
        created=f["created"],
        updated=f["updated"],
        valid_from=f["valid_from"],
        valid_until=f["valid_until"],
        review_every=f["review_every"],
        confidence=f["confidence"],
        supersedes=tuple(dict.fromkeys(f["supersedes"])),
        superseded_by=tuple(dict.fromkeys(f["superseded_by"])),
        conflicts_with=tuple(dict.fromkeys(f["conflicts_with"])),
        content=f["content"],
        path=rel,
        source=source,
        unknown_fields=unknown_fields,
        declared_authority=f["authority"],
    )


def object_findings(obj: ContextObject) -> list[Finding]:
    """Findings about one object on its own: unknown fields and unknown authority."""
    out: list[Finding] = []
    for key in obj.unknown_fields:
        hint = (
            "Markdown content is the body after the front matter, not a key."
            if (key == "content")
            else "Check the spelling; an unknown key is ignored."
        )
        out.append(
            Finding(
                WarningCode.UNKNOWN_FIELD,
                (obj.id,),
                f"{obj.key} has an unknown front-matter key {key!r}",
                hint,
                (obj.path,),
                key=key,
            )
        )
    if obj.authority not in _AUTHORITIES:
        what = (
            "has no authority"
            if obj.authority is None
            else (f"has an unknown authority {obj.authority!r}")
        )
        out.append(
            Finding(
                WarningCode.UNKNOWN_AUTHORITY,
                (obj.id,),
                f"{obj.key} {what}; it sorts after every known level",
                "Set authority to one of canonical, approved, reference, observed, "
                "inferred, historical.",
                (obj.path,),
            )
        )
    return out
