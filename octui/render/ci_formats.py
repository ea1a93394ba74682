"""Findings in the formats CI systems read: GitHub Actions workflow commands, SARIF 2.1.0
and JUnit XML.

Every renderer takes the findings and a :class:`PathMap`, which turns a finding's path
(relative to the repository's root) into the path the CI system knows the file by: relative
to the root of the git work tree that holds the repository, so an annotation lands on the
right file. A finding's ``line``, when known, is the line of its first path. Repository text
is made inert (control and bidi characters become visible escapes) before it is written.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote
from xml.etree import ElementTree as ET

from octui.bundle.bundle import dumps_bundle
from octui.core.enums import ReportFormat, Severity, WarningCode
from octui.core.model import Finding
from octui.core.textsafe import inert

#: What each warning code means (``shortDescription``) and what to do about it (``help``),
#: for the rules of a SARIF log. Every code of the closed set has an entry.
RULE_TEXT: dict[WarningCode, tuple[str, str]] = {
    WarningCode.DUPLICATE_CANONICAL: (
        "Two or more canonical objects with one id are still standing.",
        "Only one object per id may be canonical once supersession, validity and approval "
        "have been applied. Supersede the older one, or lower its authority to reference.",
    ),
    WarningCode.MULTIPLE_ACTIVE_VERSIONS: (
        "Two or more versions of one id are still standing.",
        "Add supersedes: [id@old] to the newer object so the older version retires.",
    ),
    WarningCode.CONFLICT_AMBIGUOUS: (
        "A declared conflict between objects of equal authority.",
        "Neither object is guessed away. Supersede one, lower the authority of one, or "
        "reconcile their content.",
    ),
    WarningCode.CONFLICT_DECLARED: (
        "A declared conflict that authority settled.",
        "The object of higher authority wins; check that the loser should really lose, or "
        "remove the conflicts_with declaration once it no longer applies.",
    ),
    WarningCode.BROKEN_REFERENCE: (
        "supersedes, superseded_by or conflicts_with names nothing in the repository.",
        "Fix or remove the reference: a broken chain silently resurrects retired policy.",
    ),
    WarningCode.SUPERSESSION_CYCLE: (
        "Supersession edges form a cycle; edges inside the cycle are ignored.",
        "Remove one of the declarations so the chain has a newest end.",
    ),
    WarningCode.STALE: (
        "An object is past its freshness window.",
        "Review it and update `updated`, or set review_every.",
    ),
    WarningCode.UNKNOWN_AUTHORITY: (
        "The authority is missing or not one of the six levels.",
        "Set authority to one of canonical, approved, reference, observed, inferred, "
        "historical; until then the object sorts after every known level.",
    ),
    WarningCode.INVALID_OBJECT: (
        "A file failed to load.",
        "Fix the file (front matter, YAML, encoding or size); until then it is not part of "
        "any bundle.",
    ),
    WarningCode.DUPLICATE_VERSION: (
        "Two files hold the same id and version.",
        "Give each file its own version, or delete the copy.",
    ),
    WarningCode.UNKNOWN_FIELD: (
        "An unknown front-matter key.",
        "Check the spelling; an unknown key is ignored.",
    ),
    WarningCode.SOURCE_UNAVAILABLE: (
        "A configured source cannot be read.",
        "Fix the path in opencontext.yaml or restore the folder.",
    ),
}

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: The base the relative ``uri`` of every SARIF location is resolved against.
SRCROOT = "%SRCROOT%"
TOOL_NAME = "opencontext"
#: The JUnit test case for findings that name no file.
REPOSITORY_CASE = "(repository)"


# -- paths --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PathMap:
    """Turns a path relative to the repository's root into the path a CI system reports.

    ``prefix`` is the repository's folder relative to the root paths are reported against
    (the git work tree's root), ``""`` when the two coincide or the repository is in no
    work tree.
    """

    prefix: str = ""
    in_work_tree: bool = False

    def __call__(self, path: str) -> str:
        if not self.prefix:
            return path
        return posixpath.normpath(f"{self.prefix}/{path}")


def work_tree_root(start: str | Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder, or the file of a
    linked work tree or submodule), or None. No git command runs: a repository's own git
    configuration is never read, and a work tree owned by another user (CI containers) is
    found as well."""
    current = Path(os.path.realpath(os.path.abspath(start)))
    for folder in (current, *current.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def path_map_for(repo_root: str | Path) -> PathMap:
    """The :class:`PathMap` for the repository at ``repo_root``."""
    top = work_tree_root(repo_root)
    if top is None:
        return PathMap()
    real = os.path.realpath(os.path.abspath(repo_root))
    rel = os.path.relpath(real, top).replace(os.sep, "/")
    return PathMap("" if rel == "." else rel, in_work_tree=True)


# -- shared helpers -----------------------------------------------------------------------------


def fails(findings: Iterable[Finding], fail_on: Severity) -> bool:
    """Whether a run fails: any error, or (``fail_on`` warning) any finding at all."""
    return any(_at_least(f.severity, fail_on) for f in findings)


def _at_least(severity: Severity, threshold: Severity) -> bool:
    return threshold is Severity.WARNING or severity is Severity.ERROR


def resolve_format(requested: ReportFormat, environ: dict[str, str] | None = None) -> ReportFormat:
    """``auto`` is ``github`` when ``GITHUB_ACTIONS=true`` (GitHub sets it in every job),
    else ``text``; any other format is itself."""
    if requested is not ReportFormat.AUTO:
        return requested
    env = os.environ if environ is None else environ
    return ReportFormat.GITHUB if env.get("GITHUB_ACTIONS") == "true" else ReportFormat.TEXT


def _line(finding: Finding) -> int | None:
    line = finding.line
    return line if line is not None and line >= 1 else None


def _text(finding: Finding) -> str:
    """The message, and the hint on its own ``→`` line, inert."""
    message = finding.message
    if finding.code is WarningCode.STALE and finding.ids:  # its message names no id
        message = f"{' '.join(finding.ids)} {message}"
    return inert(message if not finding.hint else f"{message}\n→ {finding.hint}")


def _paths(finding: Finding, paths: PathMap) -> list[str]:
    return [inert(paths(p), keep_newlines=False) for p in finding.paths]


# -- GitHub Actions -----------------------------------------------------------------------------


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: Sequence[Finding], paths: PathMap) -> str:
    """One workflow command (``::error`` / ``::warning``) per finding, on its first file
    (the others are named in the message), at its line when known."""
    out = []
    for finding in findings:
        files = _paths(finding, paths)
        props = []
        if files:
            props.append(f"file={_escape_property(files[0])}")
            line = _line(finding)
            if line is not None:
                props.append(f"line={line}")
        props.append(f"title={_escape_property(f'opencontext {finding.code.value}')}")
        message = _text(finding)
        if len(files) > 1:
            message += "\nalso in " + ", ".join(files[1:])
        out.append(f"::{finding.severity.value} {','.join(props)}::{_escape_data(message)}\n")
    return "".join(out)


# -- SARIF 2.1.0 --------------------------------------------------------------------------------


def sarif_rules() -> list[dict[str, Any]]:
    """One rule per warning code, in the closed set's order, with its default level."""
    rules = []
    for code in WarningCode:
        short, help_text = RULE_TEXT[code]
        rules.append(
            {
                "id": code.value,
                "name": "".join(part.capitalize() for part in code.value.split("-")),
                "shortDescription": {"text": short},
                "fullDescription": {"text": f"{short} {help_text}"},
                "help": {"text": help_text},
                "defaultConfiguration": {"level": code.severity.value},
                "properties": {"severity": code.severity.value},
            }
        )
    return rules


def _location(uri: str, line: int | None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(uri), "uriBaseId": SRCROOT}}
    if line is not None:
        physical["region"] = {"startLine": line}
    return {"physicalLocation": physical}


def _uri(path: str) -> str:
    """A relative URI reference for ``path``: percent-encoded, never read as a scheme."""
    return quote(path, safe="/-._~!$&'()*+,;=@")


def sarif_log(
    findings: Sequence[Finding], paths: PathMap, *, version: str | None = None
) -> dict[str, Any]:
    """The SARIF 2.1.0 log: one run, every rule, one result per finding."""
    order = {code: i for i, code in enumerate(WarningCode)}
    results = []
    for finding in findings:
        files = _paths(finding, paths)
        result: dict[str, Any] = {
            "ruleId": finding.code.value,
            "ruleIndex": order[finding.code],
            "level": finding.severity.value,
            "message": {"text": _text(finding)},
        }
        if files:
            result["locations"] = [_location(files[0], _line(finding))]
        if len(files) > 1:
            result["relatedLocations"] = [
                {"id": i, **_location(f, None)} for i, f in enumerate(files[1:], start=1)
            ]
        result["properties"] = {"ids": list(finding.ids)}
        results.append(result)
    driver: dict[str, Any] = {"name": TOOL_NAME}
    if version is not None:
        driver["version"] = version
    driver["rules"] = sarif_rules()
    where = "the git work tree" if paths.in_work_tree else "the repository"
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "originalUriBaseIds": {SRCROOT: {"description": {"text": f"The root of {where}"}}},
                "results": results,
            }
        ],
    }


def render_sarif(findings: Sequence[Finding], paths: PathMap, *, version: str | None = None) -> str:
    """:func:`sarif_log` as JSON text (control and bidi characters escaped)."""
    return dumps_bundle(sarif_log(findings, paths, version=version))


# -- JUnit XML ----------------------------------------------------------------------------------

# Characters XML 1.0 cannot carry at all (inert() has escaped the C0/C1 controls already).
_NOT_XML = re.compile("[\ufffe\uffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", inert(text))


def render_junit(
    findings: Sequence[Finding],
    paths: PathMap,
    *,
    files: Iterable[str] = (),
    fail_on: Severity = Severity.ERROR,
    suite: str = "opencontext validate",
) -> str:
    """A JUnit XML report: one test case per file (``files``, relative to the repository,
    plus every file a finding names), failed when it has a finding at or above ``fail_on``;
    the findings below it are listed in the case's ``system-out``. Findings that name no
    file belong to the case ``(repository)``."""
    cases: dict[str, list[Finding]] = {paths(f): [] for f in files}
    for finding in findings:
        mapped = [paths(p) for p in finding.paths[:1]] or [REPOSITORY_CASE]
        cases.setdefault(mapped[0], []).append(finding)
    failures = sum(1 for fs in cases.values() if fails(fs, fail_on))
    root = ET.Element(
        "testsuites", name=suite, tests=str(len(cases)), failures=str(failures), errors="0"
    )
    testsuite = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(cases)),
        failures=str(failures),
        errors="0",
        skipped="0",
    )
    for name in sorted(cases):
        case_findings = cases[name]
        attrs = {"classname": TOOL_NAME, "name": _xml(name)}
        if name != REPOSITORY_CASE:
            attrs["file"] = _xml(name)
        case = ET.SubElement(testsuite, "testcase", attrs)
        failing = [f for f in case_findings if _at_least(f.severity, fail_on)]
        passing = [f for f in case_findings if not _at_least(f.severity, fail_on)]
        if failing:
            first = failing[0]
            summary = first.message if len(failing) == 1 else f"{len(failing)} findings"
            failure = ET.SubElement(
                case,
                "failure",
                message=_xml(summary),
                type=",".join(sorted({f.code.value for f in failing})),
            )
            failure.text = "".join(_junit_entry(f, paths) for f in failing)
        if passing:
            ET.SubElement(case, "system-out").text = "".join(
                _junit_entry(f, paths) for f in passing
            )
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _junit_entry(finding: Finding, paths: PathMap) -> str:
    where = ", ".join(_paths(finding, paths))
    line = _line(finding)
    if where and line is not None:
        where += f":{line}"
    head = f"{finding.severity.value} {finding.code.value}"
    return _xml(f"{head}: {_text(finding)}" + (f"\n  at {where}" if where else "") + "\n")
