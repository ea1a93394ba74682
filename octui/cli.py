"""``opencontext``: the command line over the resolver core.

Exit codes: 0 done; 1 a strict run failed (or ``validate`` found errors);
2 a usage or configuration error, reported as one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

from octui.bundle import bundle_dict, digest, dumps_bundle, warning_json
from octui.config import ConfigError, NotARepository
from octui.explain import explain, finding_lines
from octui.history import UnknownId, history
from octui.loader import Repository, load_repository
from octui.meta import add_version_flag
from octui.pipeline import Query, UnknownRole, resolve
from octui.textsafe import inert
from octui.timeutil import format_day, format_instant, now_utc, parse_instant

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A mistake in how the tool was called or in the repository's configuration."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def _when(text: str) -> datetime:
    try:
        return parse_instant(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def whole_number(minimum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number, at least ``minimum`` when one is given."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"expected {minimum} or more, got {value}")
        return value

    return parse


_non_negative_int = whole_number(0)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def open_repository(path: str, *, cache: bool = True) -> Repository:
    """Load the working tree; parsed files are cached in the user's cache directory unless
    ``cache`` is False or ``OCTUI_NO_CACHE=1`` (the cache never changes results)."""
    from octui.cache import open_store

    try:
        return load_repository(Path(path), store=open_store(path) if cache else None)
    except (NotARepository, ConfigError) as exc:
        raise UsageError(str(exc)) from None


def add_repo_args(p: argparse.ArgumentParser, *, role_required: bool) -> None:
    p.add_argument(
        "repo",
        nargs="?",
        default=".",
        metavar="REPO",
        help="the repository folder (default: the current folder)",
    )
    p.add_argument(
        "--role",
        "-r",
        required=role_required,
        metavar="R",
        help="the consumer role (declared in opencontext.yaml)",
    )
    p.add_argument(
        "--as-of",
        type=_when,
        default=None,
        metavar="WHEN",
        help="the instant to resolve at: YYYY-MM-DD or RFC 3339 (default: now)",
    )


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


# -- resolve ------------------------------------------------------------------------------------


def add_resolve(sub: Any) -> None:
    p = sub.add_parser(
        "resolve",
        help="resolve the bundle for a role, task and instant",
        description="Resolve the repository for a role, task and instant: what the role is "
        "given, what was left out and why, what is wrong, and the digest.",
        epilog=_examples(
            "opencontext resolve sample-repo --role support --task refund --explain",
            "opencontext resolve sample-repo --role support --task refund --as-of 2026-03-15",
            "opencontext resolve sample-repo --role sales --include-historical --format json",
            "opencontext resolve sample-repo --role support --task refund --limit 5 --strict",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_repo_args(p, role_required=True)
    p.add_argument("--task", "-t", default="", metavar="T", help="what the agent is doing")
    p.add_argument(
        "--include-historical",
        action="store_true",
        help="include superseded and expired objects, marked, after current ones",
    )
    p.add_argument(
        "--limit",
        type=_non_negative_int,
        metavar="N",
        help="keep the N best-ranked objects that are not L0/L1",
    )
    p.add_argument(
        "--min-relevance",
        type=_number,
        metavar="S",
        help="drop objects (not L0/L1) scoring below S",
    )
    p.add_argument(
        "--strict", action="store_true", help="exit 1 when any warning of severity error is present"
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--explain", action="store_true", help="print the human layout (the default)")
    out.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="json: print the bundle and nothing else",
    )
    add_rev_arg(p)
    p.set_defaults(run=run_resolve)


def load_for(args: argparse.Namespace) -> Repository:
    """The repository named by ``args.repo``: the files on disk, or a git revision (``--rev``)."""
    rev = getattr(args, "rev", None)
    if rev is None:
        return open_repository(args.repo, cache=not getattr(args, "no_cache", False))
    return open_revision(args.repo, rev)


def open_revision(path: str, rev: str) -> Repository:
    """The repository at ``path`` exactly as it was at git revision ``rev`` (read from git)."""
    from octui.gitrev import GitRevisionError, load_revision

    try:
        return load_revision(path, rev)
    except (GitRevisionError, NotARepository, ConfigError) as exc:
        raise UsageError(str(exc)) from None


def add_rev_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rev",
        metavar="GIT_REV",
        default=None,
        help="read the repository as it was at this git revision (from git objects; the "
        "working tree is never touched). Not the same as --as-of: --rev is what the repository "
        "said then, --as-of is what was in effect then",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="parse every file; neither read nor write the parse cache in the user's cache "
        "directory (also: OCTUI_NO_CACHE=1). The cache never changes results",
    )


def query_from(args: argparse.Namespace) -> Query:
    return Query(
        role=args.role,
        as_of=args.as_of or now_utc(),
        task=args.task,
        include_historical=args.include_historical,
        limit=args.limit,
        min_relevance=args.min_relevance,
        strict=args.strict,
    )


def run_resolve(args: argparse.Namespace) -> int:
    repo = load_for(args)
    resolution = resolve(repo, query_from(args))
    if args.format == "json":
        sys.stdout.write(dumps_bundle(bundle_dict(resolution)))
    else:
        sys.stdout.write(explain(resolution, digest(resolution)))
    if resolution.strict_failed:
        errors = sum(1 for w in resolution.warnings if w.severity == "error")
        print(
            f"opencontext: strict: {errors} error{'s' if errors != 1 else ''} in the bundle",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK


# -- validate -----------------------------------------------------------------------------------


def add_validate(sub: Any) -> None:
    p = sub.add_parser(
        "validate",
        help="judge the whole repository and report every finding with its file",
        description="Judge the whole repository at an instant (approval, validity and "
        "supersession over every object; no role, no scope) and report every finding with "
        "its file. Exits 1 when any finding is an error.",
        epilog=_examples(
            "opencontext validate sample-repo",
            "opencontext validate sample-repo --as-of 2026-03-15 --format json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "repo",
        nargs="?",
        default=".",
        metavar="REPO",
        help="the repository folder (default: the current folder)",
    )
    p.add_argument(
        "--as-of",
        type=_when,
        default=None,
        metavar="WHEN",
        help="YYYY-MM-DD or RFC 3339 (default: now)",
    )
    p.add_argument("--format", choices=["text", "json"], default="text")
    add_rev_arg(p)
    p.set_defaults(run=run_validate)


def run_validate(args: argparse.Namespace) -> int:
    repo = load_for(args)
    as_of = args.as_of or now_utc()
    resolution = resolve(repo, Query(role=None, as_of=as_of))
    findings = resolution.warnings
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = len(findings) - errors
    if args.format == "json":
        doc = {
            "as_of": format_instant(as_of),
            "objects": len(repo.objects),
            "errors": errors,
            "warnings": warnings,
            "findings": [warning_json(f) | {"paths": list(f.paths)} for f in findings],
        }
        sys.stdout.write(dumps_bundle(doc))  # C1/bidi escaped like the bundle
    else:
        for f in findings:
            for line in finding_lines(f, with_paths=True):
                print(line)
        print(
            f"{len(repo.objects)} objects; {errors} error{'s' if errors != 1 else ''}, "
            f"{warnings} warning{'s' if warnings != 1 else ''} at {format_instant(as_of)}"
        )
    return EXIT_FAILED if errors else EXIT_OK


# -- history ------------------------------------------------------------------------------------


def add_history(sub: Any) -> None:
    p = sub.add_parser(
        "history",
        help="list every version of an id and the lineage joined to it",
        description="List every version of ID and every object joined to it by supersession, "
        "oldest first: version, authority, effective window, lifecycle at --as-of, edges, path.",
        epilog=_examples(
            "opencontext history pricing.enterprise sample-repo",
            "opencontext history policies.refunds sample-repo --role support --as-of 2026-03-15",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("id", metavar="ID", help="the object id")
    add_repo_args(p, role_required=False)
    p.add_argument("--format", choices=["text", "json"], default="text")
    add_rev_arg(p)
    p.set_defaults(run=run_history)


def run_history(args: argparse.Namespace) -> int:
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
        return EXIT_OK
    print(
        inert(
            f"History of {args.id} at {format_instant(as_of)}"
            + (f" for role {args.role}" if args.role else " (whole repository)"),
            keep_newlines=False,
        )
    )
    for r in rows:
        if r.obj is None:
            print(inert(f"  {r.id}  {r.state}", keep_newlines=False))
            continue
        o = r.obj
        start = format_day(r.start) if r.start else "always"
        until = format_day(o.valid_until) if o.valid_until else "open"
        line = (
            f"  {o.id}@{o.version}  {o.authority or '(no authority)'}  "
            f"{start} → {until}  {r.state}  {o.path}"
        )
        print(inert(line, keep_newlines=False))
        for edge in r.edges:
            print(inert(f"      {edge}", keep_newlines=False))
    return EXIT_OK


# -- main ---------------------------------------------------------------------------------------

#: Commands: (name, parser adder). Other modules append their own.
COMMANDS: list[Callable[[Any], None]] = [add_resolve, add_validate, add_history]


def _extra_commands() -> list[Callable[[Any], None]]:
    extra: list[Callable[[Any], None]] = []
    for module_name in ("octui.diffcli", "octui.synth", "octui.extracli"):
        try:
            module = __import__(module_name, fromlist=["add_parser"])
        except ImportError:
            continue
        extra.append(module.add_parser)
    return extra


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="opencontext",
        description="Resolve an OpenContext repository into a deterministic bundle for a role, "
        "a task and an instant — and say why for everything it leaves out.",
        epilog="Run 'opencontext COMMAND --help' for a command's options and examples.",
    )
    add_version_flag(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for add in COMMANDS + _extra_commands():
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
    except (UsageError, UnknownRole, UnknownId) as exc:  # the user's mistake: one line
        print(f"opencontext: error: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.flush()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
