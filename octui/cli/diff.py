"""``opencontext diff`` and ``opencontext changes``.

``diff`` compares two resolutions — two instants, roles, tasks or git revisions,
in any combination. ``changes`` lists the instants at which a role's bundle
changes, each with what changes.

Two questions stay distinct: ``--as-of`` asks what was *in effect* at an
instant; ``--rev`` asks what the repository *said* at a git revision.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from datetime import datetime
from typing import Any

from octui.analysis.agenda import change_agenda
from octui.analysis.agenda import render_text as render_agenda
from octui.analysis.diff import diff_resolutions, render_text
from octui.bundle.bundle import dumps_bundle
from octui.cli.main import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    _examples,
    _non_negative_int,
    _number,
    _when,
    add_repo_args,
    check_exclusive,
    emit,
    load_for,
    open_known_at,
    open_repository,
    open_revision,
)
from octui.core.timeutil import add_days, now_utc, parse_duration, parse_instant
from octui.load.assemble import Repository
from octui.load.known_at import add_known_at_arg, describe_source
from octui.resolve.engine import Query, resolve

#: ``--against-rev`` value meaning "the files on disk" (when side A reads a revision).
WORKING_TREE = "working-tree"


def _rev_help(side: str) -> str:
    """``side``: "side A", "side B", or "" for the one repository."""
    what = f"read {side} from the repository" if side else "read the repository"
    return (
        f"{what} as it was at this git revision (from git objects; the working tree is never "
        "touched)"
    )


def _load(path: str, rev: str | None, cache: dict[str | None, Repository]) -> Repository:
    if rev not in cache:
        cache[rev] = open_repository(path) if rev is None else open_revision(path, rev)
    return cache[rev]


def _load_side(
    path: str, rev: str | None, known_at: datetime | None, cache: dict[str | None, Repository]
) -> tuple[Repository, str | None]:
    """One side's repository and the label naming where it was read from: a revision, the
    commit known at an instant (``known at … · commit …``), or None for the files on disk."""
    if known_at is None:
        return _load(path, rev, cache), rev
    repo = open_known_at(path, known_at)
    return repo, describe_source(path, repo.source)


def _dump(doc: dict[str, Any]) -> None:
    sys.stdout.write(dumps_bundle(doc))


# -- diff ---------------------------------------------------------------------------------------


def add_diff(sub: Any) -> None:
    p = sub.add_parser(
        "diff",
        help="compare two resolutions (instants, roles, tasks or git revisions)",
        description="Resolve twice and compare: side A from --role/--task/--as-of/--rev, side B "
        "the same with every --against-* option applied. Reports every object the role could "
        "receive (it may read it and has it in scope on either side) that was added, removed, "
        "moved between included and excluded, whose exclusion reason, version, lifecycle or "
        "rank changed, each changed field old → new; warnings added and removed; both "
        "digests. --all adds the exclusion changes of objects the role can never receive; "
        "--body shows the body's unified diff. --as-of is what was in effect "
        "at an instant; --rev is what the repository said at a git revision.",
        epilog=_examples(
            "opencontext diff sample-repo --role support --as-of 2026-03-15 "
            "--against-as-of 2026-11-30",
            "opencontext diff sample-repo --role support --against-role sales",
            "opencontext diff sample-repo --role support --rev HEAD~2 --against-rev working-tree",
            "opencontext diff sample-repo --role support --task refund --against-task discount "
            "--format json",
        ),
    )
    add_repo_args(p, role_required=True)
    p.add_argument("--task", "-t", default="", metavar="T", help="what the agent is doing")
    p.add_argument("--rev", metavar="GIT_REV", default=None, help=_rev_help("side A"))
    add_known_at_arg(
        p,
        help="read side A as committed at the last first-parent commit of HEAD at or before "
        "WHEN (what the repository said then; not with --rev)",
    )
    p.add_argument("--include-historical", action="store_true", help="on both sides")
    p.add_argument("--limit", type=_non_negative_int, metavar="N", help="on both sides")
    p.add_argument("--min-relevance", type=_number, metavar="S", help="on both sides")
    p.add_argument("--against-as-of", type=_when, metavar="WHEN", help="side B's instant")
    p.add_argument("--against-role", metavar="R2", help="side B's role")
    p.add_argument("--against-task", metavar="T2", help="side B's task")
    p.add_argument(
        "--against-rev",
        metavar="GIT_REV",
        help=_rev_help("side B") + f"; '{WORKING_TREE}' reads the files on disk",
    )
    add_known_at_arg(
        p,
        "--against-known-at",
        help="read side B as committed at the last first-parent commit of HEAD at or before "
        "WHEN (not with --against-rev)",
    )
    p.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="json: the comparison as one JSON document (default: text)",
    )
    p.add_argument(
        "--all",
        action="store_true",
        dest="everything",
        help="list every exclusion change, also of objects the role can never receive "
        "(default: only objects it may read and has in scope on either side, and its findings)",
    )
    p.add_argument(
        "--body",
        action="store_true",
        help="show the unified diff of each changed body (JSON: body_diff)",
    )
    p.add_argument(
        "--exit-code", action="store_true", help="exit 1 when the two bundles digest differently"
    )
    p.set_defaults(run=run_diff)


def run_diff(args: argparse.Namespace) -> int:
    against = (
        args.against_as_of,
        args.against_role,
        args.against_task,
        args.against_rev,
        args.against_known_at,
    )
    if all(value is None for value in against):
        raise UsageError(
            "diff needs something to compare against: --against-as-of, --against-role, "
            "--against-task, --against-rev and/or --against-known-at"
        )
    check_exclusive(args.rev, args.known_at)
    check_exclusive(args.against_rev, args.against_known_at, "--against-rev")
    as_of = args.as_of or now_utc()
    query_a = Query(
        role=args.role,
        as_of=as_of,
        task=args.task,
        include_historical=args.include_historical,
        limit=args.limit,
        min_relevance=args.min_relevance,
    )
    query_b = replace(
        query_a,
        as_of=args.against_as_of if args.against_as_of is not None else query_a.as_of,
        role=args.against_role if args.against_role is not None else query_a.role,
        task=args.against_task if args.against_task is not None else query_a.task,
    )
    rev_a: str | None = args.rev
    rev_b: str | None = rev_a
    known_b = args.known_at
    if args.against_rev is not None:
        rev_b = None if args.against_rev == WORKING_TREE else args.against_rev
        known_b = None
    if args.against_known_at is not None:
        rev_b, known_b = None, args.against_known_at
    cache: dict[str | None, Repository] = {}
    repo_a, rev_a = _load_side(args.repo, rev_a, args.known_at, cache)
    if known_b is not None and known_b == args.known_at:
        repo_b, rev_b = repo_a, rev_a
    else:
        repo_b, rev_b = _load_side(args.repo, rev_b, known_b, cache)
    diff = diff_resolutions(
        resolve(repo_a, query_a), resolve(repo_b, query_b), rev_a=rev_a, rev_b=rev_b
    )
    shown = diff if args.everything else diff.receivable_only()
    if args.format == "json":
        _dump(shown.to_json(body=args.body))
    else:
        emit(args, render_text(shown, body=args.body))
    return EXIT_FAILED if args.exit_code and not diff.same else EXIT_OK


# -- changes ------------------------------------------------------------------------------------


def _when_or_span(text: str) -> datetime | int:
    """A date / RFC 3339 instant, or a duration (``90d``) counted from --as-of."""
    try:
        return parse_duration(text)
    except ValueError:
        pass
    try:
        return parse_instant(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a date (YYYY-MM-DD), an RFC 3339 datetime or a duration such as 90d, "
            f"got {text!r}"
        ) from None


def add_changes(sub: Any) -> None:
    p = sub.add_parser(
        "changes",
        help="list the instants at which a role's bundle changes, and what changes",
        description="The change agenda: every instant at which the role's bundle changes, "
        "with what changes. An instant is a candidate when an object starts (valid_from, "
        "else created), expires (valid_until), supersedes another or goes stale; the "
        "candidates are swept in order, re-judging only what each one touches. By default "
        "only the changes to what the role receives are listed; --all lists every digest "
        "change.\n\n"
        "Lists the changes after --as-of (default: now); --since reaches back, --until stops. "
        "Both take a date, an RFC 3339 datetime or a duration counted from --as-of (90d).",
        epilog=_examples(
            "opencontext changes sample-repo --role support --as-of 2026-11-30 --until 90d",
            "opencontext changes sample-repo --role support --since 2026-01-01 --until 2026-12-31",
            "opencontext changes sample-repo --role sales --format json",
        ),
    )
    add_repo_args(p, role_required=True)
    p.add_argument("--task", "-t", default="", metavar="T", help="what the agent is doing")
    p.add_argument(
        "--since",
        type=_when_or_span,
        metavar="WHEN",
        help="list changes after this instant, or this long before --as-of (default: --as-of)",
    )
    p.add_argument(
        "--until",
        type=_when_or_span,
        metavar="WHEN",
        help="list changes up to this instant, or this long after --as-of (default: no end)",
    )
    p.add_argument("--rev", metavar="GIT_REV", default=None, help=_rev_help(""))
    add_known_at_arg(p)
    p.add_argument(
        "--all",
        action="store_true",
        dest="everything",
        help="every digest change (default: the changes to what the role receives — objects "
        "entering, leaving or changing in its bundle, and its findings)",
    )
    p.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="json: the agenda as one JSON document (default: text)",
    )
    p.set_defaults(run=run_changes)


def run_changes(args: argparse.Namespace) -> int:
    as_of = args.as_of or now_utc()
    since = as_of if args.since is None else args.since
    if isinstance(since, int):
        since = add_days(as_of, -since)
    until = args.until
    if isinstance(until, int):
        until = add_days(as_of, until)
    if until is not None and until <= since:
        raise UsageError("--until must be later than --since (which defaults to --as-of)")
    repo = load_for(args)
    query = Query(role=args.role, as_of=as_of, task=args.task)
    rev = args.rev if args.known_at is None else describe_source(args.repo, repo.source)
    agenda = change_agenda(repo, query, since=since, until=until, rev=rev)
    if not args.everything:
        agenda = agenda.receiving()
    if args.format == "json":
        _dump(agenda.to_json())
    else:
        emit(args, render_agenda(agenda))
    return EXIT_OK


def add_parser(sub: Any) -> None:
    """Register ``diff`` and ``changes`` (called by :mod:`octui.cli.main`)."""
    add_diff(sub)
    add_changes(sub)


__all__ = ["WORKING_TREE", "add_parser", "run_changes", "run_diff"]
