"""``octui [REPO] [--role R] [--task T] [--as-of WHEN]``: the interactive explorer."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from octui.config import ConfigError, NotARepository, load_config
from octui.meta import add_version_flag
from octui.textsafe import inert
from octui.tui.sample import default_repo

DESCRIPTION = """\
Explore an OpenContext repository: what a role is given for a task at an instant,
what is left out and why, what is wrong, and how each object's lineage evolved.

Without REPO, octui opens the current folder if it holds opencontext.yaml, else the
bundled sample repository. Every change of the inputs re-resolves at once; edits to
the files on disk are picked up automatically. Press F1 inside for every key."""

EPILOG = """\
keys (F1 lists them all):
  r role   / task   a as_of   [ ] ±1 day   { } ±1 month   n now⇄date
  h include-historical   s strict   l limit   m min-relevance
  1 2 3 Included / Excluded / Warnings   f filter exclusions by reason
  Enter open / jump   e export bundle   c copy digest   ctrl+p commands   q quit
  p pin and compare   D diff   . , next/previous change   A change agenda   g git revision

examples:
  octui                                   the current repository, or the sample
  octui sample-repo --role support --task refund
  octui sample-repo --role sales --as-of 2026-03-15"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="octui",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "repo",
        nargs="?",
        metavar="REPO",
        help="repository folder (default: the current folder if it holds opencontext.yaml, "
        "else the bundled sample repository)",
    )
    p.add_argument(
        "--role", "-r", metavar="R", help="role to resolve for (default: first declared, sorted)"
    )
    p.add_argument("--task", "-t", default="", metavar="T", help="what the agent is doing")
    p.add_argument(
        "--as-of",
        metavar="WHEN",
        help="instant to resolve at: YYYY-MM-DD or RFC 3339 (default: now)",
    )
    p.add_argument(
        "--rev",
        metavar="GIT_REV",
        help="read the repository as it was at this git revision (nothing is checked out); "
        "--as-of still picks the instant",
    )
    add_version_flag(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from octui.tui.app import create_app, first_as_of

    parser = build_parser()
    args = parser.parse_args(argv)

    def fail(message: str) -> int:
        print(f"octui: error: {inert(message, keep_newlines=False)}", file=sys.stderr)
        return 2

    try:
        as_of = first_as_of(args.as_of)
    except ValueError as exc:
        return fail(str(exc))
    if args.repo is not None:
        root = Path(args.repo)
        if not root.is_dir():
            return fail(f"{root}: no such folder")
    else:
        found = default_repo()
        if found is None:
            return fail("no opencontext.yaml here and the sample repository is not installed")
        root = found
    if args.role is not None:
        try:
            config = load_config(root)
        except (NotARepository, ConfigError):
            config = None  # the explorer shows the problem and waits for a fix
        if config is not None and args.role not in config.roles:
            declared = ", ".join(sorted(config.roles)) or "none are declared"
            return fail(f"unknown role {args.role!r}; declared roles: {declared}")
    app = create_app(root, role=args.role, task=args.task, as_of=as_of)
    if args.rev is not None:
        from octui.gitrev import GitRevisionError
        from octui.tui.extras import start_at_revision

        try:
            start_at_revision(app, args.rev)
        except GitRevisionError as exc:
            return fail(str(exc))
    app.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
