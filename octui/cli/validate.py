"""``opencontext validate``: judge the whole repository and report every finding with its file.

No role and no scope: approval, validity and supersession over every object. Exits 1 when
any finding is at ``--fail-on`` or worse. In CI, ``--format github`` annotates the files and
``sarif``/``junit`` write reports, their paths relative to the git work tree's root.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from octui.bundle.bundle import dumps_bundle, warning_json
from octui.cli.args import add_as_of_arg, add_format_arg, add_repo_arg, add_source_args, examples
from octui.cli.common import emit, keep, load_for
from octui.cli.version import package_version
from octui.core.enums import ExitCode, ReportFormat, Severity
from octui.core.model import Finding
from octui.core.timeutil import format_instant, now_utc
from octui.load.assemble import Repository
from octui.render.findings import finding_lines
from octui.resolve.engine import resolve
from octui.resolve.result import Query

if TYPE_CHECKING:
    from octui.render.ci_formats import PathMap


def add_parser(sub: Any, name: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help="judge the whole repository and report every finding with its file",
        description="Judge the whole repository at an instant (approval, validity and "
        "supersession over every object; no role, no scope) and report every finding with "
        "its file. Exits 1 when any finding is an error (with --fail-on warning: when there "
        "is any finding). In CI, --format github annotates the files, sarif and junit write "
        "reports; their paths are relative to the git work tree's root.",
        epilog=examples(
            "opencontext validate sample-repo",
            "opencontext validate sample-repo --as-of 2026-03-15 --format json",
            "opencontext validate sample-repo --format auto --fail-on warning",
            "opencontext validate sample-repo --format sarif > opencontext.sarif",
        ),
    )
    add_repo_arg(p)
    add_as_of_arg(p)
    add_format_arg(
        p,
        "json: the findings as one JSON document; github: GitHub Actions annotations; "
        "sarif: a SARIF 2.1.0 log; junit: a JUnit XML report; auto: github when "
        "GITHUB_ACTIONS=true, else text (default: text)",
        choices=[f.value for f in ReportFormat],
        default=ReportFormat.TEXT.value,
    )
    p.add_argument(
        "--fail-on",
        choices=[s.value for s in Severity],
        default=Severity.ERROR.value,
        help="exit 1 when a finding of this severity or worse is found; warning: on any "
        "finding (default: error)",
    )
    add_source_args(p)
    return p


def run(args: argparse.Namespace) -> ExitCode:
    from octui.render.ci_formats import fails, path_map_for, resolve_format  # when used

    repo = load_for(args)
    as_of = args.as_of or now_utc()
    resolution = resolve(repo, Query(role=None, as_of=as_of))
    keep(args, resolution)
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
    return ExitCode.FAILED if fails(findings, fail_on) else ExitCode.OK


def ci_report(
    report: ReportFormat,
    repo: Repository,
    findings: Sequence[Finding],
    paths: PathMap,
    fail_on: Severity,
) -> str:
    """The findings as GitHub workflow commands, a SARIF log or a JUnit report."""
    from octui.render.ci_formats import render_github, render_junit, render_sarif

    if report is ReportFormat.GITHUB:
        return render_github(findings, paths)
    if report is ReportFormat.SARIF:
        return render_sarif(findings, paths, version=package_version())
    files = [obj.path for obj in repo.objects]
    return render_junit(findings, paths, files=files, fail_on=fail_on)


def located(args: argparse.Namespace, repo: Repository, findings: list[Finding]) -> list[Finding]:
    """``findings`` with the line of the offending key (or YAML error) where it is known,
    read again from the repository ``args`` names (its files, or the commit ``--rev`` named)."""
    from octui.load.locate import locate, reader_for  # imported when used: not on every start

    with reader_for(args.repo, repo.source.commit) as read:
        return locate(findings, read)
