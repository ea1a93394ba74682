"""``opencontext``: the command line over the resolver core.

Exit codes: 0 done; 1 a strict run failed (or ``validate`` found errors, or with
``--fail-on warning`` any finding);
2 a usage or configuration error, reported as one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import textwrap
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

from octui.analysis.history import UnknownId, history
from octui.analysis.history import render_text as render_history
from octui.bundle.bundle import bundle_dict, digest, dumps_bundle, warning_json
from octui.cli.version import add_version_flag, package_version
from octui.core.enums import ColorMode, ReportFormat, Severity
from octui.core.model import Finding
from octui.core.suggest import did_you_mean
from octui.core.textsafe import inert
from octui.core.timeutil import format_instant, now_utc, parse_instant
from octui.load.assemble import Repository
from octui.load.config import ConfigError, NotARepository
from octui.load.heap import gc_paused
from octui.load.loader import load_repository
from octui.render.ansi import colour_enabled, paint_marks
from octui.render.ci_formats import (
    PathMap,
    fails,
    path_map_for,
    render_github,
    render_junit,
    render_sarif,
    resolve_format,
)
from octui.render.explain import WORKING_TREE_SOURCE, explain, finding_lines
from octui.resolve.engine import Query, UnknownRole, resolve

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A mistake in how the tool was called or in the repository's configuration."""


class HelpFormatter(argparse.HelpFormatter):
    """Prose (descriptions, epilog text) is wrapped to the terminal; an indented line is an
    example command, wrapped at spaces with a shell continuation (``\\``) so it can still be
    pasted."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out: list[str] = []
        prose: list[str] = []

        def flush() -> None:
            if prose:
                out.extend(
                    textwrap.wrap(
                        " ".join(prose),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_on_hyphens=False,
                    )
                )
                prose.clear()

        for line in text.splitlines():
            if line.startswith("  "):
                flush()
                out.extend(_wrap_command(line, width, indent))
            elif not line.strip():
                flush()
                out.append("")
            else:
                prose.append(line.strip())
        flush()
        return "\n".join(out)


def _wrap_command(line: str, width: int, indent: str) -> list[str]:
    """An example command in lines of at most ``width`` where it can be, continued with
    ``\\``; an option stays on the line of its value."""
    lead = indent + line[: len(line) - len(line.lstrip())]
    units: list[str] = []
    for word in line.split():
        if units and units[-1].startswith("-") and " " not in units[-1] and word[0] != "-":
            units[-1] += " " + word
        else:
            units.append(word)
    lines: list[str] = []
    current = lead + units[0]
    for unit in units[1:]:
        if len(current) + 1 + len(unit) + 2 > width:  # room for " \\"
            lines.append(current + " \\")
            current = lead + "    " + unit
        else:
            current += " " + unit
    lines.append(current)
    return lines


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["formatter_class"] = HelpFormatter  # every opencontext parser wraps its help
        super().__init__(*args, **kwargs)

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
    from octui.load.parse_cache import open_store

    try:
        return load_repository(Path(path), store=open_store(path) if cache else None)
    except (NotARepository, ConfigError) as exc:
        raise UsageError(str(exc)) from None


def add_repo_arg(p: argparse.ArgumentParser) -> None:
    """``REPO``, the same on every command that reads a repository."""
    p.add_argument(
        "repo",
        nargs="?",
        default=".",
        metavar="REPO",
        help="the repository folder (default: the current folder)",
    )


def add_as_of_arg(
    p: argparse.ArgumentParser, what: str = "YYYY-MM-DD or RFC 3339 (default: now)"
) -> None:
    """``--as-of WHEN``, parsed to a UTC instant (None: now)."""
    p.add_argument("--as-of", type=_when, default=None, metavar="WHEN", help=what)


def add_repo_args(p: argparse.ArgumentParser, *, role_required: bool) -> None:
    add_repo_arg(p)
    p.add_argument(
        "--role",
        "-r",
        required=role_required,
        metavar="R",
        help="the consumer role (declared in opencontext.yaml)",
    )
    add_as_of_arg(p, "the instant to resolve at: YYYY-MM-DD or RFC 3339 (default: now)")


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
    """The repository named by ``args.repo``: the files on disk, a git revision (``--rev``) or
    the commit known at an instant (``--known-at``)."""
    rev = getattr(args, "rev", None)
    known_at = getattr(args, "known_at", None)
    if known_at is not None:
        check_exclusive(rev, known_at)
        return open_known_at(args.repo, known_at)
    if rev is None:
        return open_repository(args.repo, cache=not getattr(args, "no_cache", False))
    return open_revision(args.repo, rev)


def check_exclusive(rev: str | None, known_at: datetime | None, what: str = "--rev") -> None:
    """A usage error when both ``--rev`` (or ``what``) and ``--known-at`` are given."""
    from octui.load.known_at import check_axes

    try:
        check_axes(rev, known_at, what=what)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def open_known_at(path: str, when: datetime) -> Repository:
    """The repository at ``path`` as committed at the last first-parent commit of HEAD
    whose committer date is at or before ``when``."""
    from octui.load.gitrun import GitRevisionError
    from octui.load.known_at import load_known_at

    try:
        return load_known_at(path, when)
    except (GitRevisionError, NotARepository, ConfigError) as exc:
        raise UsageError(str(exc)) from None


def open_revision(path: str, rev: str) -> Repository:
    """The repository at ``path`` exactly as it was at git revision ``rev`` (read from git)."""
    from octui.load.gitrun import GitRevisionError
    from octui.load.revisions import load_revision

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
    from octui.load.known_at import add_known_at_arg

    add_known_at_arg(p)
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="parse every file; neither read nor write the parse cache in the user's cache "
        "directory (also: OCTUI_NO_CACHE=1). The cache never changes results",
    )


def source_of(args: argparse.Namespace, repo: Repository | None = None) -> str:
    """Where the repository was read from, as the explain header names it (with the commit
    and its subject when it was read at ``--known-at``)."""
    if repo is not None and getattr(args, "known_at", None) is not None:
        from octui.load.known_at import describe_source

        return describe_source(args.repo, repo.source)
    rev = getattr(args, "rev", None)
    return WORKING_TREE_SOURCE if rev is None else f"git revision {rev}"


def emit(args: argparse.Namespace, text: str) -> None:
    """Write a text layout to stdout, its marks coloured when ``--color`` asks for it."""
    sys.stdout.write(paint_marks(text) if getattr(args, "colour", False) else text)


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
    with gc_paused():  # the bundle is tens of MB of short-lived containers at 50k objects
        if args.format == "json":
            sys.stdout.write(dumps_bundle(bundle_dict(resolution)))
        else:
            emit(args, explain(resolution, digest(resolution), source=source_of(args, repo)))
    if resolution.strict_failed:
        errors = resolution.error_count
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
        "its file. Exits 1 when any finding is an error (with --fail-on warning: when there "
        "is any finding). In CI, --format github annotates the files, sarif and junit write "
        "reports; their paths are relative to the git work tree's root.",
        epilog=_examples(
            "opencontext validate sample-repo",
            "opencontext validate sample-repo --as-of 2026-03-15 --format json",
            "opencontext validate sample-repo --format auto --fail-on warning",
            "opencontext validate sample-repo --format sarif > opencontext.sarif",
        ),
    )
    add_repo_arg(p)
    add_as_of_arg(p)
    p.add_argument(
        "--format",
        choices=[f.value for f in ReportFormat],
        default=ReportFormat.TEXT.value,
        help="json: the findings as one JSON document; github: GitHub Actions annotations; "
        "sarif: a SARIF 2.1.0 log; junit: a JUnit XML report; auto: github when "
        "GITHUB_ACTIONS=true, else text (default: text)",
    )
    p.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default=Severity.ERROR.value,
        help="exit 1 when a finding of this severity or worse is found; warning: on any "
        "finding (default: error)",
    )
    add_rev_arg(p)
    p.set_defaults(run=run_validate)


def run_validate(args: argparse.Namespace) -> int:
    repo = load_for(args)
    as_of = args.as_of or now_utc()
    resolution = resolve(repo, Query(role=None, as_of=as_of))
    findings = located(args, repo, resolution.warnings)
    errors = resolution.error_count
    warnings = len(findings) - errors
    fail_on = Severity(args.fail_on)
    report = resolve_format(ReportFormat(args.format))
    if report in (ReportFormat.GITHUB, ReportFormat.SARIF, ReportFormat.JUNIT):
        sys.stdout.write(ci_report(report, repo, findings, path_map_for(args.repo), fail_on))
    elif report is ReportFormat.JSON:
        doc = {
            "as_of": format_instant(as_of),
            "objects": len(repo.objects),
            "errors": errors,
            "warnings": warnings,
            "findings": [
                warning_json(f) | {"paths": list(f.paths), "line": f.line} for f in findings
            ],
        }
        sys.stdout.write(dumps_bundle(doc))  # C1/bidi escaped like the bundle
    else:
        lines = [line for f in findings for line in finding_lines(f, with_paths=True)]
        lines.append(
            f"{len(repo.objects)} objects; {errors} error{'s' if errors != 1 else ''}, "
            f"{warnings} warning{'s' if warnings != 1 else ''} at {format_instant(as_of)}"
        )
        emit(args, "".join(line + "\n" for line in lines))
    return EXIT_FAILED if fails(findings, fail_on) else EXIT_OK


def ci_report(
    report: ReportFormat,
    repo: Repository,
    findings: Sequence[Finding],
    paths: PathMap,
    fail_on: Severity,
) -> str:
    """The findings as GitHub workflow commands, a SARIF log or a JUnit report."""
    if report is ReportFormat.GITHUB:
        return render_github(findings, paths)
    if report is ReportFormat.SARIF:
        return render_sarif(findings, paths, version=package_version())
    files = [obj.path for obj in repo.objects]
    return render_junit(findings, paths, files=files, fail_on=fail_on)


def located(args: argparse.Namespace, repo: Repository, findings: list[Finding]) -> list[Finding]:
    """``findings`` with the line of the offending key (or YAML error) where it is known,
    read again from the repository ``args`` names (its files, or the commit ``--rev`` named)."""
    from octui.load.locate import locate, reader_for

    with reader_for(args.repo, repo.source.commit) as read:
        return locate(findings, read)


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
    p.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="json: the lineage as one JSON document (default: text)",
    )
    add_rev_arg(p)
    p.set_defaults(run=run_history)


def run_history(args: argparse.Namespace) -> int:
    if args.log:
        return run_history_log(args)
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
    emit(args, render_history(rows, args.id, args.role, as_of))
    return EXIT_OK


def run_history_log(args: argparse.Namespace) -> int:
    from octui.analysis.objlog import object_log
    from octui.analysis.objlog import render_text as render_log
    from octui.load.gitrun import GitRevisionError

    if args.rev is not None or args.known_at is not None:
        raise UsageError("history --log reads every commit of HEAD: not with --rev or --known-at")
    try:
        log = object_log(args.repo, args.id)
    except GitRevisionError as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        sys.stdout.write(dumps_bundle(log.to_json()))
    else:
        emit(args, render_log(log))
    return EXIT_OK


# -- main ---------------------------------------------------------------------------------------

#: Commands: (name, parser adder). Other modules append their own.
COMMANDS: list[Callable[[Any], None]] = [add_resolve, add_validate, add_history]


def _extra_commands() -> list[Callable[[Any], None]]:
    extra: list[Callable[[Any], None]] = []
    for module_name in (
        "octui.cli.diff",
        "octui.synth",
        "octui.cli.extra",
        "octui.cli.audit",
        "octui.analysis.verify",
    ):
        try:
            module = __import__(module_name, fromlist=["add_parser"])
        except ImportError:
            continue
        extra.append(module.add_parser)
    return extra


def add_color_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--color",
        choices=[m.value for m in ColorMode],
        default=ColorMode.AUTO.value,
        help="colour the marks (✓ ✗ ⚠ !) of the text layouts; auto: only on a terminal and "
        "when NO_COLOR is unset or empty (default: auto). JSON is never coloured",
    )


def user_error(exc: Exception) -> str:
    """The one line for a mistake of the user's, with "did you mean" for a mistyped role."""
    if isinstance(exc, UnknownRole):
        declared = ", ".join(exc.declared) if exc.declared else "none are declared"
        hint = did_you_mean(exc.role, exc.declared)
        return f"unknown role {exc.role!r}{hint}; declared roles: {declared}"
    return str(exc)


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
    for command in sub.choices.values():  # every command, whoever registered it
        add_color_arg(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.colour = colour_enabled(getattr(args, "color", ColorMode.AUTO), sys.stdout)
    try:
        code: int = args.run(args)
    except (UsageError, UnknownRole, UnknownId) as exc:  # the user's mistake: one line
        print(f"opencontext: error: {inert(user_error(exc), keep_newlines=False)}", file=sys.stderr)
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
