"""``opencontext diff``: compare two resolutions — two instants, roles, tasks or git
revisions, in any combination.

Side A is read and resolved from ``--role/--task/--as-of/--rev/--known-at``; side B is the
same with every ``--against-*`` option applied. Two questions stay distinct: ``--as-of``
asks what was *in effect* at an instant; ``--rev`` asks what the repository *said* at a git
revision. ``--no-cache`` applies to both sides.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from datetime import datetime
from typing import Any

from octui.bundle.bundle import dumps_bundle
from octui.cli.args import (
    add_format_arg,
    add_known_at_arg,
    add_no_cache_arg,
    add_repo_args,
    add_rev_arg,
    add_task_arg,
    examples,
    non_negative_int,
    number,
    query_from,
    rev_help,
    when,
)
from octui.cli.common import (
    UsageError,
    check_exclusive,
    emit,
    open_known_at,
    open_repository,
    open_revision,
    uses_cache,
)
from octui.core.enums import ExitCode
from octui.load.assemble import Repository
from octui.resolve.engine import resolve
from octui.resolve.result import Query

#: ``--against-rev`` value meaning "the files on disk" (when side A reads a revision).
WORKING_TREE = "working-tree"


def add_parser(sub: Any, name: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help="compare two resolutions (instants, roles, tasks or git revisions)",
        description="Resolve twice and compare: side A from --role/--task/--as-of/--rev, side B "
        "the same with every --against-* option applied. Reports every object the role could "
        "receive (it may read it and has it in scope on either side) that was added, removed, "
        "moved between included and excluded, whose exclusion reason, version, lifecycle or "
        "rank changed, each changed field old → new; warnings added and removed; both "
        "digests. --all adds the exclusion changes of objects the role can never receive; "
        "--body shows the body's unified diff. --as-of is what was in effect "
        "at an instant; --rev is what the repository said at a git revision.",
        epilog=examples(
            "opencontext diff sample-repo --role support --as-of 2026-03-15 "
            "--against-as-of 2026-11-30",
            "opencontext diff sample-repo --role support --against-role sales",
            "opencontext diff sample-repo --role support --rev HEAD~2 --against-rev working-tree",
            "opencontext diff sample-repo --role support --task refund --against-task discount "
            "--format json",
        ),
    )
    add_repo_args(p, role_required=True)
    add_task_arg(p)
    add_rev_arg(p, rev_help("side A"))
    add_known_at_arg(
        p,
        help="read side A as committed at the last first-parent commit of HEAD at or before "
        "WHEN (what the repository said then; not with --rev)",
    )
    p.add_argument("--include-historical", action="store_true", help="on both sides")
    p.add_argument("--limit", type=non_negative_int, metavar="N", help="on both sides")
    p.add_argument("--min-relevance", type=number, metavar="S", help="on both sides")
    _add_against_args(p)
    add_no_cache_arg(p)
    add_format_arg(p, "json: the comparison as one JSON document (default: text)")
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
    return p


def _add_against_args(p: argparse.ArgumentParser) -> None:
    """Side B: each ``--against-*`` option replaces one of side A's inputs."""
    p.add_argument("--against-as-of", type=when, metavar="WHEN", help="side B's instant")
    p.add_argument("--against-role", metavar="R2", help="side B's role")
    p.add_argument("--against-task", metavar="T2", help="side B's task")
    add_rev_arg(
        p,
        rev_help("side B") + f"; '{WORKING_TREE}' reads the files on disk",
        flag="--against-rev",
    )
    add_known_at_arg(
        p,
        "--against-known-at",
        help="read side B as committed at the last first-parent commit of HEAD at or before "
        "WHEN (not with --against-rev)",
    )


def _queries(args: argparse.Namespace) -> tuple[Query, Query]:
    """Side A's query, and side B's: A's with every ``--against-*`` input applied."""
    query_a = query_from(args)
    query_b = replace(
        query_a,
        as_of=args.against_as_of if args.against_as_of is not None else query_a.as_of,
        role=args.against_role if args.against_role is not None else query_a.role,
        task=args.against_task if args.against_task is not None else query_a.task,
    )
    return query_a, query_b


class _Sides:
    """Loads each side's repository once: two sides read from the same place share it."""

    def __init__(self, path: str, *, cache: bool) -> None:
        self.path = path
        self.cache = cache
        self.loaded: dict[str | None, Repository] = {}

    def load(self, rev: str | None) -> Repository:
        if rev not in self.loaded:
            self.loaded[rev] = (
                open_repository(self.path, cache=self.cache)
                if rev is None
                else open_revision(self.path, rev)
            )
        return self.loaded[rev]

    def side(self, rev: str | None, known_at: datetime | None) -> tuple[Repository, str | None]:
        """One side's repository and the label naming where it was read from: a revision, the
        commit known at an instant (``known at … · commit …``), or None for the files on disk."""
        if known_at is None:
            return self.load(rev), rev
        from octui.load.known_at import describe_source  # git: imported when used

        repo = open_known_at(self.path, known_at)
        return repo, describe_source(self.path, repo.source)


def _read_both(args: argparse.Namespace) -> tuple[Repository, str | None, Repository, str | None]:
    """Both sides' repositories and labels, read as ``--rev``/``--known-at`` and their
    ``--against-`` counterparts say."""
    rev_b: str | None = args.rev
    known_b = args.known_at
    if args.against_rev is not None:
        rev_b = None if args.against_rev == WORKING_TREE else args.against_rev
        known_b = None
    if args.against_known_at is not None:
        rev_b, known_b = None, args.against_known_at
    sides = _Sides(args.repo, cache=uses_cache(args))
    repo_a, label_a = sides.side(args.rev, args.known_at)
    if known_b is not None and known_b == args.known_at:
        return repo_a, label_a, repo_a, label_a
    repo_b, label_b = sides.side(rev_b, known_b)
    return repo_a, label_a, repo_b, label_b


def run(args: argparse.Namespace) -> ExitCode:
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
    query_a, query_b = _queries(args)
    from octui.analysis.diff import diff_resolutions  # imported when used: not on every start
    from octui.render.diff import render_text

    repo_a, rev_a, repo_b, rev_b = _read_both(args)
    diff = diff_resolutions(
        resolve(repo_a, query_a), resolve(repo_b, query_b), rev_a=rev_a, rev_b=rev_b
    )
    shown = diff if args.everything else diff.receivable_only()
    if args.format == "json":
        sys.stdout.write(dumps_bundle(shown.to_json(body=args.body)))
    else:
        emit(args, render_text(shown, body=args.body))
    return ExitCode.FAILED if args.exit_code and not diff.same else ExitCode.OK
