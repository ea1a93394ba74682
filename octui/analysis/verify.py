"""Verify a cited bundle: is it what the repository gives? (``opencontext verify``.)

1. The bundle's digest must match its own content, recomputed by SPEC §5 — else the
   file was altered (not passed).
2. It is resolved again with the bundle's inputs and ``as_of`` over the repository as
   it was at ``source.commit`` (or, with no commit recorded, at the commit known at its
   ``generated_at``, which is said). Equal digests: passed, "reproduced at commit …".
   Different: not passed, with the diff between the cited and the reproduced bundle.
   The commit is not in this history, or the repository is not git: :class:`VerifyError`.

:func:`verify_digest` checks a bare digest the same way, from a query and a repository.
The verdict's report is text whose every line has passed ``inert()``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from octui.analysis.diff import diff_entries
from octui.analysis.diff_result import Diff, EntryView, SideInfo, WarningView
from octui.bundle.bundle import bundle_dict, digest, digest_from_bundle
from octui.core.timeutil import format_instant, parse_instant
from octui.load.assemble import Repository
from octui.load.config import ConfigError, NotARepository
from octui.load.gitrun import GitRevisionError
from octui.load.known_at import commit_info, known_at_revision
from octui.load.revisions import load_revision
from octui.resolve.engine import resolve
from octui.resolve.result import Query

MAX_BUNDLE_BYTES = 512 * 1024 * 1024

_NOT_COMPARED = ("score", "matched", "path", "source")


class VerifyError(Exception):
    """The bundle cannot be checked (one line): its commit cannot be read, or the
    repository is not a git repository."""


class BadBundle(VerifyError):
    """The file is not a bundle of SPEC §5."""


FieldChange = tuple[str, int, str, Any, Any]
"""``(id, version, field, cited value, reproduced value)`` of an object included on both
sides at the same version."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of a check: ``passed`` (the digest matches and was reproduced), what was
    found, one line each, and — when a bundle was not reproduced — the diff from the cited
    bundle to the reproduced one and the field values that differ. Text is left to
    :func:`octui.render.verify.render_verdict`."""

    passed: bool
    lines: tuple[str, ...]
    diff: Diff | None = None
    fields: tuple[FieldChange, ...] = ()


def read_bundle(path: str) -> dict[str, Any]:
    """The bundle JSON in ``path``; raises :class:`BadBundle` (one line) when it is not one."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BUNDLE_BYTES + 1)
    except OSError as exc:
        raise BadBundle(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_BUNDLE_BYTES:
        raise BadBundle(f"{path}: larger than {MAX_BUNDLE_BYTES} bytes; not read")
    try:
        bundle = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadBundle(f"{path}: not a JSON bundle: {exc}") from None
    if not isinstance(bundle, dict):
        raise BadBundle(f"{path}: not a bundle (expected a JSON object)")
    for key in ("as_of", "inputs", "objects", "exclusions", "warnings", "digest"):
        if key not in bundle:
            raise BadBundle(f"{path}: not a bundle: no {key!r}")
    return bundle


def content_digest(path: str, bundle: dict[str, Any]) -> str:
    try:
        return digest_from_bundle(bundle)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise BadBundle(f"{path}: not a bundle: its entries are malformed ({exc!r})") from None


def query_of(path: str, bundle: dict[str, Any]) -> Query:
    """The query that produced the bundle: its inputs and ``as_of``."""
    inputs = bundle["inputs"]
    try:
        return Query(
            role=inputs["role"],
            as_of=parse_instant(bundle["as_of"]),
            task=inputs.get("task") or "",
            include_historical=bool(inputs.get("include_historical", False)),
            limit=inputs.get("limit"),
            min_relevance=inputs.get("min_relevance"),
            strict=bool(inputs.get("strict", False)),
        )
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise BadBundle(f"{path}: its inputs or as_of cannot be read ({exc})") from None


# -- the diff between two bundles' JSON -----------------------------------------------------------


def _entries(bundle: dict[str, Any]) -> list[EntryView]:
    out = [
        EntryView(
            id=o["id"],
            version=o["version"],
            included=True,
            authority=o.get("authority"),
            lifecycle=o.get("lifecycle"),
            stale=bool(o.get("stale")),
            rank=rank,
            score=o.get("score"),
            path=o.get("path"),
        )
        for rank, o in enumerate(bundle["objects"], start=1)
    ]
    for e in bundle["exclusions"]:
        if e.get("version") is None and "related" not in e:
            out.append(EntryView(id=e["id"], version=None, included=False, reason=e["reason"]))
        else:
            out.append(
                EntryView(
                    id=e["id"],
                    version=e.get("version"),
                    included=False,
                    reason=e["reason"],
                    related=tuple(e.get("related") or ()),
                    detail=e.get("detail"),
                )
            )
    return out


def _warnings(bundle: dict[str, Any]) -> list[WarningView]:
    return [
        WarningView(w["code"], w["severity"], tuple(w["ids"]), w.get("message", ""), w.get("hint"))
        for w in bundle["warnings"]
    ]


def _surplus(mine: list[WarningView], theirs: list[WarningView]) -> tuple[WarningView, ...]:
    left = Counter((w.code, w.ids) for w in theirs)
    out = []
    for w in mine:
        if left[(w.code, w.ids)] > 0:
            left[(w.code, w.ids)] -= 1
        else:
            out.append(w)
    return tuple(out)


def _side(bundle: dict[str, Any], label: str) -> SideInfo:
    inputs = bundle.get("inputs") or {}
    return SideInfo(
        role=inputs.get("role"),
        task=inputs.get("task") or "",
        as_of=str(bundle.get("as_of")),
        digest=str(bundle.get("digest")),
        rev=label,
        include_historical=bool(inputs.get("include_historical")),
        limit=inputs.get("limit"),
        min_relevance=inputs.get("min_relevance"),
    )


def bundle_diff(
    cited: dict[str, Any], reproduced: dict[str, Any], label_a: str, label_b: str
) -> tuple[Diff, list[FieldChange]]:
    """The diff between two bundles' JSON (A cited, B reproduced) and, for every object
    included on both sides at the same version, each field whose value differs."""
    changes, versions = diff_entries(_entries(cited), _entries(reproduced))
    wa, wb = _warnings(cited), _warnings(reproduced)
    diff = Diff(
        a=_side(cited, label_a),
        b=_side(reproduced, label_b),
        objects=tuple(changes),
        versions=tuple(versions),
        warnings_added=_surplus(wb, wa),
        warnings_removed=_surplus(wa, wb),
    )
    before = {(o["id"], o["version"]): o for o in cited["objects"]}
    fields: list[FieldChange] = []
    for o in reproduced["objects"]:
        old = before.get((o["id"], o["version"]))
        if old is None:
            continue
        for name in sorted(set(old) | set(o)):
            if name in _NOT_COMPARED or old.get(name) == o.get(name):
                continue
            fields.append((o["id"], o["version"], name, old.get(name), o.get(name)))
    return diff, fields


# -- the check ------------------------------------------------------------------------------------


def _at_commit(repo_path: str, commit: str) -> Repository:
    try:
        return load_revision(repo_path, commit)
    except (GitRevisionError, NotARepository, ConfigError) as exc:
        raise VerifyError(f"cannot reproduce at commit {commit}: {exc}") from None


def _commit_text(repo_path: str, commit: str) -> str:
    info = commit_info(repo_path, commit)
    return f"commit {commit}" + (f" ({info.subject!r})" if info.subject else "")


def verify_bundle(path: str, repo_path: str) -> Verdict:
    """The verdict on the bundle file ``path``, reproduced from the repository at
    ``repo_path``."""
    bundle = read_bundle(path)
    cited = str(bundle["digest"])
    recomputed = content_digest(path, bundle)
    if recomputed != cited:
        return Verdict(
            False,
            (
                f"{path}: the file was altered: it cites {cited}, but its content digests to "
                f"{recomputed}",
            ),
        )
    query = query_of(path, bundle)
    source = bundle.get("source") if isinstance(bundle.get("source"), dict) else {}
    commit = source.get("commit") if isinstance(source, dict) else None
    lines: list[str] = [f"{path}: its digest matches its content ({cited})"]
    if not isinstance(commit, str) or not commit:
        try:
            generated = parse_instant(bundle.get("generated_at"))
        except ValueError:
            raise BadBundle(f"{path}: no source commit and no readable generated_at") from None
        try:
            commit = known_at_revision(repo_path, generated)
        except GitRevisionError as exc:
            raise VerifyError(str(exc)) from None
        lines.append(
            f"no commit recorded: reproducing at the commit known at its generated_at "
            f"{format_instant(generated)}, {commit}"
        )
    repo = _at_commit(repo_path, commit)
    reproduced = bundle_dict(resolve(repo, query))
    where = _commit_text(repo_path, commit)
    if reproduced["digest"] == cited:
        lines.append(f"reproduced at {where}: {cited}")
        return Verdict(True, tuple(lines))
    lines.append(f"NOT reproduced at {where}: cited {cited}, reproduced {reproduced['digest']}")
    diff, fields = bundle_diff(bundle, reproduced, f"{commit[:12]} (cited)", f"{commit[:12]}")
    return Verdict(False, tuple(lines), diff, tuple(fields))


def verify_digest(repo: Repository, repo_path: str, query: Query, cited: str) -> Verdict:
    """The verdict on the bare digest ``cited``: ``query`` resolved over ``repo`` (read from
    the git repository at ``repo_path``, at a revision or the commit known at an instant)."""
    got = digest(resolve(repo, query))
    where = _commit_text(repo_path, repo.source.commit or "")
    if got == cited:
        return Verdict(True, (f"reproduced at {where}: {got}",))
    return Verdict(False, (f"NOT reproduced at {where}: cited {cited}, reproduced {got}",))


__all__ = [
    "BadBundle",
    "FieldChange",
    "Verdict",
    "VerifyError",
    "bundle_diff",
    "read_bundle",
    "verify_bundle",
    "verify_digest",
]
