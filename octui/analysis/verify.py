"""``opencontext verify``: check that a cited bundle is what the repository gives.

1. The bundle's digest must match its own content, recomputed by SPEC §5 — else the
   file was altered (exit 1).
2. It is resolved again with the bundle's inputs and ``as_of`` over the repository as
   it was at ``source.commit`` (or, with no commit recorded, at the commit known at its
   ``generated_at``, which is said). Equal digests: exit 0, "reproduced at commit …".
   Different: exit 1 and the diff between the cited and the reproduced bundle.
   The commit is not in this history, or the repository is not git: exit 2, one line.

``--digest`` checks a bare digest the same way, from the inputs given on the command line.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from datetime import datetime
from typing import Any

from octui.analysis.diff import Diff, EntryView, SideInfo, WarningView, diff_entries, render_text
from octui.analysis.objlog import show_value
from octui.bundle.bundle import bundle_dict, digest, digest_from_bundle
from octui.cli.main import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    _examples,
    _non_negative_int,
    _number,
    check_exclusive,
    emit,
    open_known_at,
    open_revision,
)
from octui.core.textsafe import inert
from octui.core.timeutil import format_instant, parse_instant
from octui.load.assemble import Repository
from octui.load.gitrun import GitRevisionError
from octui.load.known_at import add_known_at_arg, commit_info, known_at_revision
from octui.resolve.engine import Query, resolve

MAX_BUNDLE_BYTES = 512 * 1024 * 1024

_NOT_COMPARED = ("score", "matched", "path", "source")


class BadBundle(UsageError):
    """The file is not a bundle of SPEC §5."""


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
) -> tuple[Diff, list[str]]:
    """The diff between two bundles' JSON (A cited, B reproduced) and, for every object
    included on both sides at the same version, each field whose value differs as
    ``id@version field: old → new``."""
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
    lines = []
    for o in reproduced["objects"]:
        old = before.get((o["id"], o["version"]))
        if old is None:
            continue
        for name in sorted(set(old) | set(o)):
            if name in _NOT_COMPARED or old.get(name) == o.get(name):
                continue
            lines.append(
                f"  ~ {o['id']}@{o['version']} {name}: "
                f"{show_value(old.get(name))} → {show_value(o.get(name))}"
            )
    return diff, lines


def render_bundle_diff(diff: Diff, field_lines: list[str]) -> str:
    text = render_text(diff)
    if field_lines:
        text += "Field values changed (cited → reproduced):\n"
        text += "".join(inert(line, keep_newlines=False) + "\n" for line in field_lines)
    return text


# -- the command ----------------------------------------------------------------------------------


def _at_commit(repo_path: str, commit: str) -> Repository:
    try:
        return open_revision(repo_path, commit)
    except UsageError as exc:
        raise UsageError(f"cannot reproduce at commit {commit}: {exc}") from None


def _commit_text(repo_path: str, commit: str) -> str:
    info = commit_info(repo_path, commit)
    return f"commit {commit}" + (f" ({info.subject!r})" if info.subject else "")


def verify_bundle(path: str, repo_path: str) -> tuple[int, str]:
    """Exit code and report for ``opencontext verify BUNDLE [REPO]``."""
    bundle = read_bundle(path)
    cited = str(bundle["digest"])
    recomputed = content_digest(path, bundle)
    if recomputed != cited:
        return EXIT_FAILED, (
            f"{path}: the file was altered: it cites {cited}, but its content digests to "
            f"{recomputed}\n"
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
            raise UsageError(str(exc)) from None
        lines.append(
            f"no commit recorded: reproducing at the commit known at its generated_at "
            f"{format_instant(generated)}, {commit}"
        )
    repo = _at_commit(repo_path, commit)
    reproduced = bundle_dict(resolve(repo, query))
    where = _commit_text(repo_path, commit)
    if reproduced["digest"] == cited:
        lines.append(f"reproduced at {where}: {cited}")
        return EXIT_OK, "".join(inert(line, keep_newlines=False) + "\n" for line in lines)
    lines.append(f"NOT reproduced at {where}: cited {cited}, reproduced {reproduced['digest']}")
    head = "".join(inert(line, keep_newlines=False) + "\n" for line in lines)
    diff, fields = bundle_diff(bundle, reproduced, f"{commit[:12]} (cited)", f"{commit[:12]}")
    return EXIT_FAILED, head + render_bundle_diff(diff, fields)


def verify_digest(args: argparse.Namespace, repo_path: str) -> tuple[int, str]:
    """Exit code and report for ``opencontext verify --digest …``."""
    if args.role is None or args.as_of is None:
        raise UsageError("verify --digest needs --role and --as-of (and --rev or --known-at)")
    if (args.rev is None) == (args.known_at is None):
        check_exclusive(args.rev, args.known_at)
        raise UsageError("verify --digest needs --rev REV or --known-at WHEN")
    if args.known_at is not None:
        repo = open_known_at(repo_path, args.known_at)
    else:
        repo = open_revision(repo_path, args.rev)
    query = Query(
        role=args.role,
        as_of=args.as_of,
        task=args.task,
        include_historical=args.include_historical,
        limit=args.limit,
        min_relevance=args.min_relevance,
    )
    got = digest(resolve(repo, query))
    commit = repo.source.commit or ""
    where = _commit_text(repo_path, commit)
    if got == args.digest:
        return EXIT_OK, inert(f"reproduced at {where}: {got}", keep_newlines=False) + "\n"
    return EXIT_FAILED, inert(
        f"NOT reproduced at {where}: cited {args.digest}, reproduced {got}", keep_newlines=False
    ) + "\n"


def _when(text: str) -> datetime:
    try:
        return parse_instant(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _digest_arg(text: str) -> str:
    body = text[len("sha256:") :] if text.startswith("sha256:") else ""
    if len(body) != 64 or any(c not in "0123456789abcdef" for c in body):
        raise argparse.ArgumentTypeError(f"expected sha256:<64 lower-case hex>, got {text!r}")
    return text


def add_verify(sub: Any) -> None:
    p = sub.add_parser(
        "verify",
        help="check that a cited bundle is reproducible from the repository's history",
        description="Check a cited bundle: its digest must match its content (else the file "
        "was altered, exit 1); then it is resolved again with its inputs and as_of at its "
        "source commit (with no commit recorded: at the commit known at its generated_at) "
        "and the digests compared: equal, exit 0; different, exit 1 with the diff. The "
        "commit is not in this history, or the repository is not git: exit 2.\n\n"
        "With --digest, check a bare digest from the inputs given here.",
        epilog=_examples(
            "opencontext verify decision-42.bundle.json sample-repo",
            "opencontext verify sample-repo --digest sha256:0123... --role support "
            "--task refund --as-of 2026-03-15 --known-at 2026-03-15",
        ),
    )
    p.add_argument(
        "bundle",
        nargs="?",
        metavar="BUNDLE",
        help="the bundle JSON (as resolve --format json or the explorer's export wrote it)",
    )
    p.add_argument(
        "repo",
        nargs="?",
        default=None,
        metavar="REPO",
        help="the repository folder (default: the current folder)",
    )
    p.add_argument(
        "--digest", type=_digest_arg, metavar="DIGEST", help="check this digest instead of a file"
    )
    p.add_argument("--role", "-r", metavar="R", help="with --digest: the role")
    p.add_argument("--task", "-t", default="", metavar="T", help="with --digest: the task")
    p.add_argument("--as-of", type=_when, metavar="WHEN", help="with --digest: the instant")
    p.add_argument("--include-historical", action="store_true", help="with --digest")
    p.add_argument("--limit", type=_non_negative_int, metavar="N", help="with --digest")
    p.add_argument("--min-relevance", type=_number, metavar="S", help="with --digest")
    p.add_argument("--rev", metavar="GIT_REV", help="with --digest: the revision it was read at")
    add_known_at_arg(p, help="with --digest: the repository as committed at WHEN")
    p.set_defaults(run=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    if args.digest is not None:
        if args.repo is not None:
            raise UsageError("verify --digest takes one folder, REPO, and no bundle file")
        code, text = verify_digest(args, args.bundle or ".")
    else:
        if args.bundle is None:
            raise UsageError("verify needs a BUNDLE file (or --digest)")
        extra = [
            flag
            for flag, value in (
                ("--role", args.role),
                ("--as-of", args.as_of),
                ("--rev", args.rev),
                ("--known-at", args.known_at),
            )
            if value is not None
        ]
        if extra:
            raise UsageError(f"{extra[0]} goes with --digest; a bundle file carries its inputs")
        code, text = verify_bundle(args.bundle, args.repo or ".")
    emit(args, text)
    return code


def add_parser(sub: Any) -> None:
    """Register ``verify`` (called by :mod:`octui.cli.main`)."""
    add_verify(sub)


__all__ = [
    "add_parser",
    "bundle_diff",
    "read_bundle",
    "run_verify",
    "verify_bundle",
]
