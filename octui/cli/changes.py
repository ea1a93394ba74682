"""``opencontext changes``: the change agenda — the instants at which a role's bundle
changes, each with what changes.

Lists the changes after ``--as-of`` (default: now); ``--since`` reaches back, ``--until``
stops; both take an instant or a duration counted from ``--as-of``.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

from octui.bundle.bundle import dumps_bundle
from octui.cli.args import (
    add_format_arg,
    add_repo_args,
    add_source_args,
    add_task_arg,
    examples,
    rev_help,
)
from octui.cli.common import UsageError, emit, load_for
from octui.core.enums import ExitCode
from octui.core.timeutil import add_days, now_utc, parse_duration, parse_instant
from octui.resolve.result import Query


def when_or_span(text: str) -> datetime | int:
    """An argparse type: a date / RFC 3339 instant, or a duration (``90d``) counted from
    --as-of."""
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


def add_parser(sub: Any, name: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help="list the instants at which a role's bundle changes, and what changes",
        description="The change agenda: every instant at which the role's bundle changes, "
        "with what changes. An instant is a candidate when an object starts (valid_from, "
        "else created), expires (valid_until), supersedes another or goes stale; the "
        "candidates are swept in order, re-judging only what each one touches. By default "
        "only the changes to what the role receives are listed; --all lists every digest "
        "change.\n\n"
        "Lists the changes after --as-of (default: now); --since reaches back, --until stops. "
        "Both take a date, an RFC 3339 datetime or a duration counted from --as-of (90d).",
        epilog=examples(
            "opencontext changes sample-repo --role support --as-of 2026-11-30 --until 90d",
            "opencontext changes sample-repo --role support --since 2026-01-01 --until 2026-12-31",
            "opencontext changes sample-repo --role sales --format json",
        ),
    )
    add_repo_args(p, role_required=True)
    add_task_arg(p)
    p.add_argument(
        "--since",
        type=when_or_span,
        metavar="WHEN",
        help="list changes after this instant, or this long before --as-of (default: --as-of)",
    )
    p.add_argument(
        "--until",
        type=when_or_span,
        metavar="WHEN",
        help="list changes up to this instant, or this long after --as-of (default: no end)",
    )
    add_source_args(p, rev_help=rev_help())
    p.add_argument(
        "--all",
        action="store_true",
        dest="everything",
        help="every digest change (default: the changes to what the role receives — objects "
        "entering, leaving or changing in its bundle, and its findings)",
    )
    add_format_arg(p, "json: the agenda as one JSON document (default: text)")
    return p


def run(args: argparse.Namespace) -> ExitCode:
    as_of = args.as_of or now_utc()
    since = as_of if args.since is None else args.since
    if isinstance(since, int):
        since = add_days(as_of, -since)
    until = args.until
    if isinstance(until, int):
        until = add_days(as_of, until)
    if until is not None and until <= since:
        raise UsageError("--until must be later than --since (which defaults to --as-of)")
    from octui.analysis.agenda import change_agenda  # imported when used: not on every start
    from octui.load.known_at import describe_source
    from octui.render.agenda import render_text as render_agenda

    repo = load_for(args)
    query = Query(role=args.role, as_of=as_of, task=args.task)
    rev = args.rev if args.known_at is None else describe_source(args.repo, repo.source)
    agenda = change_agenda(repo, query, since=since, until=until, rev=rev)
    if not args.everything:
        agenda = agenda.receiving()
    if args.format == "json":
        sys.stdout.write(dumps_bundle(agenda.to_json()))
    else:
        emit(args, render_agenda(agenda))
    return ExitCode.OK
