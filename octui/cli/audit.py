"""``opencontext audit``: the whole repository at once, for its owner.

Every finding with its files, its line and the roles whose bundle carries it; every object
with what each declared role gets; a summary per role. Exit codes as ``validate``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from octui.cli.args import add_as_of_arg, add_format_arg, add_repo_arg, add_source_args, examples
from octui.cli.common import UsageError, emit, load_for
from octui.core.enums import AuditFormat, ExitCode
from octui.core.timeutil import now_utc

if TYPE_CHECKING:
    from octui.analysis.audit import Audit


def add_parser(sub: Any, name: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help="every finding with the roles it affects, every object with what each role gets",
        description="Judge the whole repository at an instant, as validate does, and resolve "
        "every declared role (empty task, no trimming, not historical): every finding with "
        "its files, the line of the offending key and the roles whose bundle carries it; "
        "every object with its fate for each role; a summary per role. This is the owner's "
        "view: it names every object and file. Exits 1 when any finding is an error.",
        epilog=examples(
            "opencontext audit sample-repo",
            "opencontext audit sample-repo --as-of 2026-11-01 --format json",
            "opencontext audit sample-repo --format csv --output /tmp/matrix.csv",
            "opencontext audit sample-repo --format markdown --output ~/audit.md --force",
        ),
    )
    add_repo_arg(p)
    add_as_of_arg(p)
    add_format_arg(
        p,
        "text (default): findings, errors first, with roles and files, then the summary; "
        "json: the whole audit as one document; csv: the role × object matrix; markdown: a "
        "report (findings, summary, the objects whose fate differs between roles)",
        choices=[f.value for f in AuditFormat],
        default=AuditFormat.TEXT.value,
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        default=None,
        help="write to FILE instead of stdout: atomically (a temporary file renamed into "
        "place), never inside the repository, and never over an existing file unless --force",
    )
    p.add_argument("--force", action="store_true", help="with --output: replace FILE if it exists")
    add_source_args(p)
    return p


def audit_for(args: argparse.Namespace) -> Audit:
    """The audit of the repository ``args`` names (files on disk or ``--rev``)."""
    from octui.analysis.audit import audit  # imported when used: not on every start
    from octui.load.locate import reader_for

    repo = load_for(args)
    as_of = args.as_of or now_utc()
    with reader_for(args.repo, repo.source.commit) as read:
        return audit(repo, as_of, read=read)


def run(args: argparse.Namespace) -> ExitCode:
    from octui.render.atomicwrite import ExportRefused, write_atomic  # imported when used
    from octui.render.audit import render

    result = audit_for(args)
    fmt = AuditFormat(args.format)
    text = render(result, fmt)
    if args.output is not None:
        try:
            target = write_atomic(args.output, text, args.repo, overwrite=args.force)
        except ExportRefused as exc:
            raise UsageError(str(exc)) from None
        print(f"opencontext: wrote {target}", file=sys.stderr)
    elif fmt is AuditFormat.TEXT:
        emit(args, text)
    else:
        sys.stdout.write(text)
    return ExitCode.FAILED if result.errors else ExitCode.OK
