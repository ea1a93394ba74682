"""``opencontext verify``: check that a cited bundle is reproducible from the repository's
history (the check itself is :mod:`octui.analysis.verify`).

Exits 0 when the bundle is reproduced; 1 when the file was altered or the bundle is not
reproduced (with the diff); 2, one line, when its commit is not in this history or the
repository is not git. ``--digest`` checks a bare digest from the inputs given here.

``REPO`` defaults to the current folder, as on every command; the parser leaves it None so
that ``--digest``, whose one folder is the first positional, can refuse a second one.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from octui.cli.args import (
    add_known_at_arg,
    add_repo_arg,
    add_rev_arg,
    add_task_arg,
    examples,
    non_negative_int,
    number,
    query_from,
    when,
)
from octui.cli.common import UsageError, check_exclusive, emit, open_known_at, open_revision
from octui.core.enums import ExitCode

if TYPE_CHECKING:
    from octui.analysis.verify import Verdict

#: The folder read when none is named.
CURRENT_FOLDER = "."


def digest_arg(text: str) -> str:
    """An argparse type: a bundle digest, ``sha256:`` and 64 lower-case hex digits."""
    body = text[len("sha256:") :] if text.startswith("sha256:") else ""
    if len(body) != 64 or any(c not in "0123456789abcdef" for c in body):
        raise argparse.ArgumentTypeError(f"expected sha256:<64 lower-case hex>, got {text!r}")
    return text


def add_parser(sub: Any, name: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help="check that a cited bundle is reproducible from the repository's history",
        description="Check a cited bundle: its digest must match its content (else the file "
        "was altered, exit 1); then it is resolved again with its inputs and as_of at its "
        "source commit (with no commit recorded: at the commit known at its generated_at) "
        "and the digests compared: equal, exit 0; different, exit 1 with the diff. The "
        "commit is not in this history, or the repository is not git: exit 2.\n\n"
        "With --digest, check a bare digest from the inputs given here.",
        epilog=examples(
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
    add_repo_arg(p, default=None)
    p.add_argument(
        "--digest", type=digest_arg, metavar="DIGEST", help="check this digest instead of a file"
    )
    p.add_argument("--role", "-r", metavar="R", help="with --digest: the role")
    add_task_arg(p, "with --digest: the task")
    p.add_argument("--as-of", type=when, metavar="WHEN", help="with --digest: the instant")
    p.add_argument("--include-historical", action="store_true", help="with --digest")
    p.add_argument("--limit", type=non_negative_int, metavar="N", help="with --digest")
    p.add_argument("--min-relevance", type=number, metavar="S", help="with --digest")
    add_rev_arg(p, "with --digest: the revision it was read at")
    add_known_at_arg(p, help="with --digest: the repository as committed at WHEN")
    return p


def check_digest(args: argparse.Namespace, repo_path: str) -> Verdict:
    """``verify --digest``: the inputs given here, read at ``--rev`` or ``--known-at``."""
    if args.role is None or args.as_of is None:
        raise UsageError("verify --digest needs --role and --as-of (and --rev or --known-at)")
    if (args.rev is None) == (args.known_at is None):
        check_exclusive(args.rev, args.known_at)
        raise UsageError("verify --digest needs --rev REV or --known-at WHEN")
    if args.known_at is not None:
        repo = open_known_at(repo_path, args.known_at)
    else:
        repo = open_revision(repo_path, args.rev)
    from octui.analysis.verify import verify_digest  # imported when used: not on every start

    return verify_digest(repo, repo_path, query_from(args), args.digest)


def check_file(args: argparse.Namespace) -> Verdict:
    """``verify BUNDLE [REPO]``: the bundle carries its inputs, so none is taken here."""
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
    from octui.analysis.verify import verify_bundle  # imported when used: not on every start

    return verify_bundle(args.bundle, args.repo or CURRENT_FOLDER)


def run(args: argparse.Namespace) -> ExitCode:
    if args.digest is not None:
        if args.repo is not None:
            raise UsageError("verify --digest takes one folder, REPO, and no bundle file")
        verdict = check_digest(args, args.bundle or CURRENT_FOLDER)
    else:
        verdict = check_file(args)
    from octui.render.verify import render_verdict  # imported when used: not on every start

    emit(args, render_verdict(verdict))
    return ExitCode.OK if verdict.passed else ExitCode.FAILED
