"""``opencontext history ID``: every version of an id and the lineage joined to it.

Oldest first: version, authority, effective window, lifecycle at ``--as-of``, edges, path.
``--log`` instead walks every commit of HEAD that changed a file holding the id.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from octui.bundle.bundle import dumps_bundle
from octui.cli.args import add_format_arg, add_repo_args, add_source_args, examples
from octui.cli.common import UsageError, emit, load_for
from octui.core.enums import ExitCode
from octui.core.timeutil import format_instant, now_utc


def add_parser(sub: Any, name: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help="list every version of an id and the lineage joined to it",
        description="List every version of ID and every object joined to it by supersession, "
        "oldest first: version, authority, effective window, lifecycle at --as-of, edges, path.",
        epilog=examples(
            "opencontext history pricing.enterprise sample-repo",
            "opencontext history policies.refunds sample-repo --role support --as-of 2026-03-15",
            "opencontext history policies.refunds sample-repo --log",
        ),
    )
    p.add_argument("id", metavar="ID", help="the object id")
    p.add_argument(
        "--log",
        action="store_true",
        help="instead: every commit of HEAD (first parent) that changed a file holding ID, "
        "renames followed, newest first, with author, date and subject, and per version what "
        "was added, removed or changed (each field old → new, the body as a unified diff)",
    )
    add_repo_args(p, role_required=False)
    add_format_arg(p, "json: the lineage as one JSON document (default: text)")
    add_source_args(p)
    return p


def run(args: argparse.Namespace) -> ExitCode:
    if args.log:
        return run_log(args)
    from octui.analysis.history import history  # imported when used: not on every start
    from octui.render.history import render_text as render_history

    repo = load_for(args)
    as_of = args.as_of or now_utc()
    rows = history(repo, args.id, args.role, as_of)
    if args.format == "json":
        doc = {
            "id": args.id,
            "role": args.role,
            "as_of": format_instant(as_of),
            "lineage": [r.to_json() for r in rows],
        }
        sys.stdout.write(dumps_bundle(doc))  # C1/bidi escaped like the bundle
        return ExitCode.OK
    emit(args, render_history(rows, args.id, args.role, as_of))
    return ExitCode.OK


def run_log(args: argparse.Namespace) -> ExitCode:
    """``history --log``: the id's commits, read from git (not with ``--rev``/``--known-at``)."""
    if args.rev is not None or args.known_at is not None:
        raise UsageError("history --log reads every commit of HEAD: not with --rev or --known-at")
    from octui.analysis.objlog import object_log  # imported when used: not on every start
    from octui.load.gitrun import GitRevisionError
    from octui.render.history import render_log

    try:
        log = object_log(args.repo, args.id)
    except GitRevisionError as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        sys.stdout.write(dumps_bundle(log.to_json()))
    else:
        emit(args, render_log(log))
    return ExitCode.OK
