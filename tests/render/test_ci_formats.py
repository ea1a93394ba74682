"""validate in CI: GitHub workflow commands, SARIF 2.1.0, JUnit XML, --fail-on, auto."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import jsonschema
import pytest
import yaml
from git_fixture import GitSample, git, git_sample
from repo_builder import make_repo, obj

from octui.core.enums import ReportFormat, Severity, WarningCode
from octui.core.model import Finding
from octui.render.ci_formats import (
    RULE_TEXT,
    PathMap,
    fails,
    path_map_for,
    render_github,
    render_junit,
    render_sarif,
    resolve_format,
    sarif_log,
    work_tree_root,
)

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE_REPO = PROJECT_ROOT / "sample-repo"
SARIF_SCHEMA = json.loads(
    (Path(__file__).parent.parent / "fixtures" / "sarif-2.1.0.json").read_text(encoding="utf-8")
)
_SCRIPT = Path(sys.executable).parent / "opencontext"
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "octui.cli.main"]
AS_OF = "2026-11-30"

W = WarningCode
__all__ = ["git_sample"]  # the fixture, imported for its registration


def run(
    *args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    return subprocess.run(
        [*COMMAND, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=base | (env or {}),
        timeout=120,
        check=False,
    )


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def sarif_errors(log: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft4Validator(SARIF_SCHEMA)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]


FINDINGS = [
    Finding(W.BROKEN_REFERENCE, ("a",), 'a@1 supersedes "ghost"', "Fix it.", ("p/a.md",), 7),
    Finding(W.UNKNOWN_FIELD, ("b",), "b@1 has an unknown key 'x'", None, ("b.md",)),
    Finding(W.CONFLICT_AMBIGUOUS, ("c", "d"), "c and d conflict", "Pick one.", ("c.md", "d.md")),
    Finding(W.SOURCE_UNAVAILABLE, (), "source 'tickets' is unavailable", "Restore it."),
]


# -- the rules ----------------------------------------------------------------------------------


def test_every_code_has_rule_text() -> None:
    assert set(RULE_TEXT) == set(WarningCode)
    assert all(short and help_text for short, help_text in RULE_TEXT.values())


def test_sarif_rules_are_the_closed_set_with_its_severities() -> None:
    rules = sarif_log([], PathMap())["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [c.value for c in WarningCode]
    for rule in rules:
        code = WarningCode(rule["id"])
        assert rule["defaultConfiguration"]["level"] == code.severity.value
        assert rule["help"]["text"] == RULE_TEXT[code][1]


# -- GitHub workflow commands -------------------------------------------------------------------


def test_github_annotation_with_file_line_and_title() -> None:
    out = render_github(FINDINGS[:1], PathMap("ctx"))
    assert out == (
        "::error file=ctx/p/a.md,line=7,title=opencontext broken-reference::"
        'a@1 supersedes "ghost"%0A→ Fix it.\n'
    )


def test_github_without_line_or_file() -> None:
    out = render_github(FINDINGS[1:], PathMap()).splitlines()
    assert (
        out[0] == "::warning file=b.md,title=opencontext unknown-field::b@1 has an unknown key 'x'"
    )
    assert out[1].startswith("::error file=c.md,title=opencontext conflict-ambiguous::")
    assert out[1].endswith("%0Aalso in d.md")
    assert out[2] == (
        "::error title=opencontext source-unavailable::"
        "source 'tickets' is unavailable%0A→ Restore it."
    )


def test_github_escapes_data_and_properties() -> None:
    finding = Finding(
        W.INVALID_OBJECT,
        ("x",),
        "100% bad\r\n::warning::injected",
        None,
        ("odd,name:with%.md",),
        3,
    )
    out = render_github([finding], PathMap())
    assert out == (
        "::error file=odd%2Cname%3Awith%25.md,line=3,title=opencontext invalid-object::"
        "100%25 bad\\x0d%0A::warning::injected\n"
    )
    assert out.count("\n") == 1  # repository text never starts a command of its own


def test_github_makes_control_characters_inert() -> None:
    finding = Finding(W.UNKNOWN_FIELD, ("x",), "key '\x1b[31mred\u202e'", None, ("x.md",))
    out = render_github([finding], PathMap())
    assert "\x1b" not in out and "\u202e" not in out
    assert "\\x1b[31mred\\u202e" in out


def test_github_ignores_a_line_below_one() -> None:
    finding = Finding(W.UNKNOWN_FIELD, ("x",), "m", None, ("x.md",), 0)
    assert "line=" not in render_github([finding], PathMap())


# -- SARIF --------------------------------------------------------------------------------------


def test_sarif_validates_against_the_schema() -> None:
    odd = Finding(W.STALE, ("e",), "has not been updated", None, ("dir with space/a:b%.md",), 2)
    log = json.loads(render_sarif([*FINDINGS, odd], PathMap("sub/ctx"), version="1.2.3"))
    assert sarif_errors(log) == []
    assert log["version"] == "2.1.0"
    assert log["runs"][0]["tool"]["driver"]["version"] == "1.2.3"


def test_sarif_schema_fixture_rejects_a_broken_log() -> None:
    log = sarif_log(FINDINGS, PathMap())
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    del log["runs"][0]["tool"]["driver"]["name"]
    assert len(sarif_errors(log)) == 2


def test_sarif_one_result_per_finding_with_locations() -> None:
    results = sarif_log(FINDINGS, PathMap("ctx"))["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [f.code.value for f in FINDINGS]
    assert [r["level"] for r in results] == ["error", "warning", "error", "error"]
    first = results[0]["locations"][0]["physicalLocation"]
    assert first == {
        "artifactLocation": {"uri": "ctx/p/a.md", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 7},
    }
    assert "region" not in results[1]["locations"][0]["physicalLocation"]  # line unknown
    assert results[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "ctx/c.md"
    related = results[2]["relatedLocations"]
    assert [r["physicalLocation"]["artifactLocation"]["uri"] for r in related] == ["ctx/d.md"]
    assert "locations" not in results[3]  # names no file
    assert results[0]["message"]["text"] == 'a@1 supersedes "ghost"\n→ Fix it.'
    rules = sarif_log([], PathMap())["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)


def test_sarif_uri_is_a_relative_reference() -> None:
    finding = Finding(W.STALE, ("e",), "m", None, ("a:b/c d%.md",))
    results = sarif_log([finding], PathMap())["runs"][0]["results"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "a%3Ab/c%20d%25.md"
    )


# -- JUnit --------------------------------------------------------------------------------------


def cases(xml: str) -> dict[str, ET.Element]:
    root = ET.fromstring(xml)
    return {c.attrib["name"]: c for c in root.iter("testcase")}


def test_junit_one_case_per_file_failures_for_errors() -> None:
    xml = render_junit(FINDINGS, PathMap("ctx"), files=["p/a.md", "b.md", "clean.md"])
    root = ET.fromstring(xml)
    by_name = cases(xml)
    assert set(by_name) == {"ctx/p/a.md", "ctx/b.md", "ctx/clean.md", "ctx/c.md", "(repository)"}
    suite = root.find("testsuite")
    assert suite is not None and suite.attrib["tests"] == "5" and suite.attrib["failures"] == "3"
    failure = by_name["ctx/p/a.md"].find("failure")
    assert failure is not None and failure.attrib["type"] == "broken-reference"
    assert "at ctx/p/a.md:7" in (failure.text or "")
    assert by_name["ctx/b.md"].find("failure") is None  # a warning does not fail by default
    assert "unknown-field" in (by_name["ctx/b.md"].findtext("system-out") or "")
    assert list(by_name["ctx/clean.md"]) == []
    assert by_name["(repository)"].find("failure") is not None
    assert by_name["ctx/p/a.md"].attrib["file"] == "ctx/p/a.md"


def test_junit_fail_on_warning_fails_warnings() -> None:
    xml = render_junit(FINDINGS, PathMap(), fail_on=Severity.WARNING)
    failure = cases(xml)["b.md"].find("failure")
    assert failure is not None and failure.attrib["type"] == "unknown-field"


def test_junit_stays_parseable_with_characters_xml_cannot_hold() -> None:
    finding = Finding(W.INVALID_OBJECT, ("x",), "bad \x00\x01\x0c\ufffe\ud800 <&>", None, ("x.md",))
    failure = cases(render_junit([finding], PathMap()))["x.md"].find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "bad \\x00\\x01\\x0c\\ufffe\\ud800 <&>"


# -- thresholds and auto ------------------------------------------------------------------------


def test_fails_on_errors_or_on_anything() -> None:
    warning_only = [FINDINGS[1]]
    assert not fails(warning_only, Severity.ERROR)
    assert fails(warning_only, Severity.WARNING)
    assert fails(FINDINGS[:1], Severity.ERROR)
    assert not fails([], Severity.WARNING)


def test_auto_is_github_inside_github_actions() -> None:
    assert resolve_format(ReportFormat.AUTO, {"GITHUB_ACTIONS": "true"}) is ReportFormat.GITHUB
    assert resolve_format(ReportFormat.AUTO, {}) is ReportFormat.TEXT
    assert resolve_format(ReportFormat.AUTO, {"GITHUB_ACTIONS": "false"}) is ReportFormat.TEXT
    assert resolve_format(ReportFormat.SARIF, {"GITHUB_ACTIONS": "true"}) is ReportFormat.SARIF


# -- paths --------------------------------------------------------------------------------------


def test_path_map_finds_the_work_tree_root(tmp_path: Path) -> None:
    assert work_tree_root(tmp_path) is None  # the test's own folder is in no work tree
    assert path_map_for(tmp_path) == PathMap()
    (tmp_path / ".git").mkdir()
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert path_map_for(tmp_path / "a" / "b") == PathMap("a/b", in_work_tree=True)
    assert path_map_for(tmp_path) == PathMap("", in_work_tree=True)
    (tmp_path / "a" / ".git").write_text("gitdir: /elsewhere\n")  # a linked work tree
    assert path_map_for(tmp_path / "a" / "b") == PathMap("b", in_work_tree=True)
    assert PathMap("a/b")("../c.md") == "a/c.md"


# -- end to end on sample-repo inside a git work tree -------------------------------------------


@pytest.fixture(scope="module")
def git_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample-repo at ``work/org/context`` of a git work tree; returns the work tree."""
    work = tmp_path_factory.mktemp("ci") / "work"
    work.mkdir()
    git(work, "init", "-q")
    shutil.copytree(SAMPLE_REPO, work / "org" / "context")
    return work


def github_annotations(out: str) -> list[dict[str, str]]:
    parsed = []
    for line in out.splitlines():
        assert line.startswith(("::error ", "::warning ")), line
        head, message = line[2:].split("::", 1)
        level, props = head.split(" ", 1)
        fields = dict(p.split("=", 1) for p in props.split(","))
        parsed.append({"level": level, "message": message, **fields})
    return parsed


def test_github_annotations_land_on_the_files(git_copy: Path) -> None:
    proc = run("validate", git_copy / "org" / "context", "--as-of", AS_OF, "--format", "github")
    assert proc.returncode == 1, proc.stderr  # sample-repo has errors
    found = github_annotations(proc.stdout)
    js = run("validate", git_copy / "org" / "context", "--as-of", AS_OF, "--format", "json")
    findings = json.loads(js.stdout)["findings"]
    assert len(found) == len(findings) == 20
    for ann, finding in zip(found, findings, strict=True):
        assert ann["level"] == finding["severity"]
        assert ann["title"] == f"opencontext {finding['code']}"
        assert ann["file"] == "org/context/" + finding["paths"][0]
        assert (git_copy / ann["file"]).is_file()
    typo = next(a for a in found if "superseeded_by" in a["message"])
    assert typo["file"] == "org/context/pricing/team.v1.md"
    # The annotation lands on the offending key's line.
    assert typo["line"] == "17"
    lines = (git_copy / typo["file"]).read_text(encoding="utf-8").splitlines()
    assert lines[int(typo["line"]) - 1].startswith("superseeded_by:")


def test_paths_from_inside_the_repository_and_at_a_revision(
    git_copy: Path, git_sample: GitSample
) -> None:
    here = run("validate", ".", "--as-of", AS_OF, "--format", "github", cwd=git_copy / "org")
    assert here.returncode == 2  # org/ is no repository: a usage error, as before
    inside = run(
        "validate", ".", "--as-of", AS_OF, "--format", "github", cwd=git_copy / "org" / "context"
    )
    files = [a["file"] for a in github_annotations(inside.stdout)]
    assert files and all(f.startswith("org/context/") for f in files)
    rev = run(
        "validate", git_sample.context, "--rev", "HEAD~2", "--as-of", AS_OF, "--format", "github"
    )
    found = github_annotations(rev.stdout)
    assert found and all(a["file"].startswith("context/") for a in found)
    assert all((git_sample.work / a["file"]).exists() for a in found)


def test_sarif_on_sample_repo_validates_and_points_into_the_work_tree(git_copy: Path) -> None:
    proc = run("validate", git_copy / "org" / "context", "--as-of", AS_OF, "--format", "sarif")
    assert proc.returncode == 1
    log = json.loads(proc.stdout)
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    assert len(results) == 20
    for result in results:
        for loc in result["locations"] + result.get("relatedLocations", []):
            uri = loc["physicalLocation"]["artifactLocation"]["uri"]
            assert uri.startswith("org/context/") and (git_copy / uri).is_file()
            region = loc["physicalLocation"].get("region")
            assert region is None or region["startLine"] >= 1
    typos = [r for r in results if r["ruleId"] == "unknown-field"]
    assert typos and all(
        r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in typos
    )
    again = run("validate", git_copy / "org" / "context", "--as-of", AS_OF, "--format", "sarif")
    assert again.stdout == proc.stdout  # same inputs, same bytes


def test_junit_on_sample_repo(git_copy: Path) -> None:
    proc = run("validate", git_copy / "org" / "context", "--as-of", AS_OF, "--format", "junit")
    assert proc.returncode == 1
    by_name = cases(proc.stdout)
    assert len(by_name) == 57  # one case per object file; no invalid file in sample-repo
    assert all(name.startswith("org/context/") for name in by_name)
    js = json.loads(run("validate", SAMPLE_REPO, "--as-of", AS_OF, "--format", "json").stdout)
    erring = {"org/context/" + f["paths"][0] for f in js["findings"] if f["severity"] == "error"}
    failed = {name for name, case in by_name.items() if case.find("failure") is not None}
    assert failed == erring
    team = by_name["org/context/pricing/team.v1.md"]
    assert "pricing/team.v1.md:17" in "".join(team.itertext())


def test_paths_are_relative_to_the_repository_outside_a_work_tree(tmp_path: Path) -> None:
    assert work_tree_root(tmp_path) is None
    shutil.copytree(SAMPLE_REPO, tmp_path / "ctx")
    proc = run("validate", tmp_path / "ctx", "--as-of", AS_OF, "--format", "github")
    assert "file=pricing/team.v1.md" in proc.stdout
    assert "file=ctx/" not in proc.stdout


# -- --fail-on and auto through the command -----------------------------------------------------


@pytest.fixture
def warning_only_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "w",
        {"mission.md": obj("mission", layer="L0", title="Mission", reviewer="someone")},
        {"roles": {"reader": {}}},
    )


def test_fail_on_warning(warning_only_repo: Path) -> None:
    default = run("validate", warning_only_repo, "--as-of", AS_OF)
    assert default.returncode == 0 and "unknown-field" in default.stdout
    strict = run("validate", warning_only_repo, "--as-of", AS_OF, "--fail-on", "warning")
    assert strict.returncode == 1 and strict.stdout == default.stdout
    as_error = run("validate", warning_only_repo, "--as-of", AS_OF, "--fail-on", "error")
    assert as_error.returncode == 0
    junit = run("validate", warning_only_repo, "--fail-on", "warning", "--format", "junit")
    assert junit.returncode == 1
    assert cases(junit.stdout)["mission.md"].find("failure") is not None
    bad = run("validate", warning_only_repo, "--fail-on", "info")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_auto_format_follows_github_actions(warning_only_repo: Path) -> None:
    inside = run("validate", warning_only_repo, "--format", "auto", env={"GITHUB_ACTIONS": "true"})
    assert inside.stdout.startswith("::warning file=mission.md,")
    outside = run("validate", warning_only_repo, "--format", "auto")
    text = run("validate", warning_only_repo, "--format", "text")
    assert outside.stdout.splitlines()[:3] == text.stdout.splitlines()[:3]
    assert not outside.stdout.startswith("::")


# -- pre-commit ---------------------------------------------------------------------------------


def test_pre_commit_hook_definition() -> None:
    hooks = yaml.safe_load((PROJECT_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = (h for h in hooks if h["id"] == "opencontext-validate")
    assert hook["entry"] == "opencontext validate"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False and hook["always_run"] is True


def _pre_commit(cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo`` of this project: pre-commit builds the hook's environment
    from the project (a fresh venv, ``pip install .``) and runs the hook as a user would."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(PROJECT_ROOT)]
    return subprocess.run(
        [*command, "opencontext-validate", "--all-files"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )


def _commit_all(work: Path) -> None:
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "context")


def test_pre_commit_try_repo_runs_the_hook(tmp_path: Path) -> None:
    home = tmp_path / "pre-commit-home"
    sample = tmp_path / "sample"
    shutil.copytree(SAMPLE_REPO, sample)
    _commit_all(sample)
    failed = _pre_commit(sample, home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "opencontext validate" in failed.stdout and "Failed" in failed.stdout
    assert "57 objects; 7 errors, 13 warnings" in failed.stdout
    assert "pricing/team.v1.md" in failed.stdout

    clean = make_repo(
        tmp_path / "clean", {"mission.md": obj("mission", layer="L0", title="Mission")}
    )
    _commit_all(clean)
    passed = _pre_commit(clean, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
