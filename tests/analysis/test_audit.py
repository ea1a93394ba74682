"""``opencontext audit``: every finding with its files, line and roles; every object with its
fate for each role — and the matrix is exactly what ``resolve`` says for each role."""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import BROKEN_REPO, SAMPLE_REPO
from git_fixture import commit, git
from hypothesis import given
from hypothesis import strategies as st
from properties.test_properties import AS_OFS, SETTINGS, Spec, specs, write
from repo_builder import make_repo, obj

from octui.analysis.audit import Audit, audit
from octui.bundle.bundle import bundle_dict
from octui.cli.main import main
from octui.core.enums import DENIAL_REASONS, WarningCode
from octui.core.model import Finding
from octui.core.timeutil import parse_instant
from octui.load.loader import load_repository
from octui.load.locate import key_lines, locate, problem_line, reader_for
from octui.resolve.engine import resolve
from octui.resolve.result import Query

AS_OF = "2026-11-01"
FINDING_KEYS = ["code", "severity", "ids", "paths", "line", "message", "hint", "roles"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def audit_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, "audit", *argv, "--format", "json")
    assert code in (0, 1), err
    doc: dict[str, Any] = json.loads(out)
    return doc


def resolve_json(capsys: pytest.CaptureFixture[str], repo: Path, role: str) -> dict[str, Any]:
    code, out, err = run(
        capsys, "resolve", str(repo), "--role", role, "--as-of", AS_OF, "--format", "json"
    )
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def audit_of(root: Path, as_of: str = AS_OF) -> Audit:
    repo = load_repository(root)
    with reader_for(root, None) as read:
        return audit(repo, parse_instant(as_of), read=read)


# -- the matrix is what resolve says --------------------------------------------------------------


def check_matrix(doc: dict[str, Any], role: str, bundle: dict[str, Any]) -> None:
    """The audit's column for ``role`` against that role's bundle: same included objects in
    the same order, and the same exclusions (denied ids once, by reason)."""
    included = sorted(
        (o["fates"][role]["rank"], o["id"], o["version"], o["path"])
        for o in doc["objects"]
        if o["fates"][role]["state"] == "included"
    )
    assert [r for r, *_ in included] == list(range(1, len(included) + 1))
    assert [(i, v, p) for _, i, v, p in included] == [
        (o["id"], o["version"], o["path"]) for o in bundle["objects"]
    ]
    excluded = [o for o in doc["objects"] if o["fates"][role]["state"] == "excluded"]
    assert all(set(o["fates"][role]) == {"state", "reason"} for o in excluded)
    assert len(included) + len(excluded) == len(doc["objects"])
    kept = Counter(
        (o["id"], o["version"], o["fates"][role]["reason"])
        for o in excluded
        if o["fates"][role]["reason"] not in DENIAL_REASONS
    )
    bundle_kept = Counter(
        (e["id"], e["version"], e["reason"])
        for e in bundle["exclusions"]
        if e["reason"] not in DENIAL_REASONS and e["reason"] != "source-unavailable"
    )
    assert kept == bundle_kept
    denied = {
        (o["id"], o["fates"][role]["reason"])
        for o in excluded
        if o["fates"][role]["reason"] in DENIAL_REASONS
    }
    assert denied == {
        (e["id"], e["reason"]) for e in bundle["exclusions"] if e["reason"] in DENIAL_REASONS
    }
    # every copy of a denied id is denied the same way, as the bundle's one entry says
    assert len({object_id for object_id, _ in denied}) == len(denied)


def check_roles(doc: dict[str, Any], bundles: dict[str, dict[str, Any]]) -> None:
    """A finding's roles are exactly the roles whose bundle carries its code and ids, and
    every warning of every bundle is among the findings."""
    carried = {
        role: {(w["code"], tuple(w["ids"])) for w in bundle["warnings"]}
        for role, bundle in bundles.items()
    }
    for f in doc["findings"]:
        key = (f["code"], tuple(f["ids"]))
        assert f["roles"] == sorted(r for r in bundles if key in carried[r]), f
    listed = {(f["code"], tuple(f["ids"])) for f in doc["findings"]}
    for role, keys in carried.items():
        assert keys <= listed, role


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    doc = audit_json(capsys, str(SAMPLE_REPO), "--as-of", AS_OF)
    assert list(doc) == ["as_of", "revision", "roles", "findings", "objects", "summary"]
    assert doc["as_of"] == "2026-11-01T00:00:00Z"
    assert doc["revision"] == {
        "commit": None,
        "revision": None,
        "known_at": None,
        "working_tree": True,
    }
    assert doc["roles"] == ["engineering", "leadership", "public-bot", "sales", "support"]
    assert doc["findings"] and all(list(f) == FINDING_KEYS for f in doc["findings"])
    severities = [f["severity"] for f in doc["findings"]]
    assert severities == sorted(severities, key=lambda s: s != "error")  # errors first
    assert len(doc["objects"]) == len(load_repository(SAMPLE_REPO).objects)
    for o in doc["objects"]:
        assert list(o) == ["id", "version", "path", "source", "authority", "fates"]
        assert list(o["fates"]) == doc["roles"]
    assert list(doc["summary"]) == doc["roles"]
    for role, s in doc["summary"].items():
        assert list(s) == ["included", "excluded", "errors", "warnings"]
        fates = [o["fates"][role] for o in doc["objects"]]
        assert s["included"] == sum(f["state"] == "included" for f in fates)
        assert s["excluded"] == dict(
            sorted(Counter(f["reason"] for f in fates if f["state"] == "excluded").items())
        )
    # a ticket is forced to observed by its source, and says so
    ticket = next(o for o in doc["objects"] if o["path"] == "inbox/tickets/ticket-4812.md")
    assert (ticket["source"], ticket["authority"]) == ("tickets", "observed")


def test_matrix_and_roles_equal_resolve_for_every_role_on_the_sample(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = audit_json(capsys, str(SAMPLE_REPO), "--as-of", AS_OF)
    bundles = {role: resolve_json(capsys, SAMPLE_REPO, role) for role in doc["roles"]}
    for role, bundle in bundles.items():
        check_matrix(doc, role, bundle)
        errors = sum(w["severity"] == "error" for w in bundle["warnings"])
        assert doc["summary"][role]["errors"] == errors
        assert doc["summary"][role]["warnings"] == len(bundle["warnings"]) - errors
    check_roles(doc, bundles)
    # the denied view is the owner's: every object is listed, with its denial for the role
    bot = {o["path"]: o["fates"]["public-bot"] for o in doc["objects"]}
    assert {f["reason"] for f in bot.values() if f["state"] == "excluded"} == {
        "classification-denied",
        "permission-denied",
    }


def test_every_validate_finding_is_listed_with_its_files(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(capsys, "validate", str(SAMPLE_REPO), "--as-of", AS_OF, "--format", "json")
    validated = json.loads(out)["findings"]
    doc = audit_json(capsys, str(SAMPLE_REPO), "--as-of", AS_OF)
    strip = [
        {k: f[k] for k in ("code", "ids", "paths", "line", "message", "hint")}
        for f in doc["findings"]
    ]
    for f in validated:
        assert {k: f[k] for k in ("code", "ids", "paths", "line", "message", "hint")} in strip


@SETTINGS
@given(spec=specs(), as_of=st.sampled_from(AS_OFS))
def test_matrix_and_roles_equal_resolve_on_generated_repositories(spec: Spec, as_of: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = write(spec, Path(tmp) / "repo")
        repo = load_repository(root)
        when = parse_instant(as_of)
        result = audit(repo, when)
        doc = result.to_json()
        fresh = load_repository(root)  # a separate load: no memo shared with the audit
        bundles = {
            role: json.loads(json.dumps(bundle_dict(resolve(fresh, Query(role=role, as_of=when)))))
            for role in sorted(fresh.config.roles)
        }
        for role, bundle in bundles.items():
            check_matrix(doc, role, bundle)
        check_roles(doc, bundles)
        whole = resolve(fresh, Query(role=None, as_of=when)).warnings
        listed = [f.finding for f in result.findings]
        assert all(f in listed for f in whole)


def test_a_finding_only_a_role_sees_is_listed_with_that_role(tmp_path: Path) -> None:
    """The whole repository includes p@2 (fresh); the role may not read it, so it gets the
    stale p@1 — a stale warning the whole repository does not have."""
    root = make_repo(
        tmp_path,
        {
            "p1.md": obj("p", version=1, updated="2020-01-01"),
            # p@2 only for reader: outsider cannot read it, so never sees the supersession
            "p2.md": obj(
                "p",
                version=2,
                updated="2026-10-01",
                supersedes=["p@1"],
                access={"roles": ["reader"]},
            ),
        },
        {
            "roles": {"reader": {"clearance": "restricted"}, "outsider": {}},
            "freshness": {"default": "90d"},
        },
    )
    result = audit_of(root)
    stale = [f for f in result.findings if f.finding.code.value == "stale"]
    assert [(f.finding.ids, f.roles) for f in stale] == [(("p",), ("outsider",))]
    whole = resolve(load_repository(root), Query(role=None, as_of=parse_instant(AS_OF)))
    assert "stale" not in {w.code.value for w in whole.warnings}


# -- lines -----------------------------------------------------------------------------------------


def finding(doc: dict[str, Any], code: str, path: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [
        f for f in doc["findings"] if f["code"] == code and path in f["paths"]
    ]
    assert len(found) == 1, found
    return found[0]


def test_line_of_unknown_field_is_the_typo_in_pricing_team(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = audit_json(capsys, str(SAMPLE_REPO), "--as-of", AS_OF)
    typo = finding(doc, "unknown-field", "pricing/team.v1.md")
    lines = (SAMPLE_REPO / "pricing/team.v1.md").read_text(encoding="utf-8").split("\n")
    assert lines[typo["line"] - 1].startswith("superseeded_by:")
    assert typo["line"] == 17
    assert typo["roles"] == ["engineering", "leadership", "sales", "support"]


def test_line_of_broken_reference_is_the_reference_key(capsys: pytest.CaptureFixture[str]) -> None:
    doc = audit_json(capsys, str(SAMPLE_REPO), "--as-of", AS_OF)
    for path, key in (
        ("policies/security.md", "supersedes:"),
        ("decisions/2026-10-03-sso-provider.md", "conflicts_with:"),
    ):
        f = finding(doc, "broken-reference", path)
        lines = (SAMPLE_REPO / path).read_text(encoding="utf-8").split("\n")
        assert lines[f["line"] - 1].startswith(key), (path, f["line"])


def test_line_of_superseded_by_in_a_yaml_file(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.yaml": "# a comment\nid: a\nauthority: canonical\n"
            "content: |\n  superseded_by: not this one\nsuperseded_by: ghost\n",
            "b.md": '---\nid: b\nauthority: canonical\n"sumary": typo\n---\nsumary: body\n',
        },
    )
    result = audit_of(root)
    lines = {(f.finding.code.value, f.finding.paths[0]): f.finding.line for f in result.findings}
    assert lines[("broken-reference", "a.yaml")] == 6
    assert lines[("unknown-field", "b.md")] == 4


def test_line_of_invalid_object_is_the_yaml_error_or_the_refused_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = audit_json(capsys, str(BROKEN_REPO), "--as-of", "2026-06-01")
    invalid = {f["paths"][0]: f["line"] for f in doc["findings"] if f["code"] == "invalid-object"}
    assert invalid["policies/bad-version.md"] == 3  # version: two
    assert invalid["policies/unknown-classification.md"] == 6  # classification: top-secret
    assert invalid["policies/Upper-Case.md"] == 2  # id
    assert invalid["policies/duplicate-keys.md"] == 6  # the repeated key
    assert invalid["policies/malformed-yaml.md"] == 7  # PyYAML's problem mark
    assert invalid["procedures/unclosed-front-matter.md"] == 1
    # no line is guessed where the problem has none
    assert invalid["notes/latin1.md"] is None
    assert invalid["policies/list-front-matter.md"] is None
    for f in doc["findings"]:
        if f["code"] == "invalid-object":
            assert f["roles"] == doc["roles"]  # each role's bundle says files failed to load


def test_a_file_changed_since_the_load_gets_no_guessed_line(tmp_path: Path) -> None:
    raw = b"---\nid: p\nversion: two\n---\n"
    assert problem_line("p.md", raw, "version: Input should be a valid integer") == 3
    # the same file, fixed after the load: the problem is not there any more
    assert problem_line("p.md", b"---\nid: p\nversion: 2\n---\n", "version: Input should") is None
    assert problem_line("p.md", raw, "not read: this load's read budget ...") is None
    f = Finding(WarningCode.UNKNOWN_FIELD, ("p",), "m", None, ("p.md",), key="nope")
    assert locate([f], lambda rel: raw)[0].line is None
    assert locate([f], None)[0].line is None

    def unreadable(rel: str) -> bytes:
        raise OSError("gone")

    assert locate([f], unreadable)[0].line is None


def test_key_lines_ignore_nested_keys_list_items_and_the_body() -> None:
    text = (
        "---\nid: x\naccess:\n  roles: [a]\ntags:\n  - supersedes: no\n"
        "'quoted key': 1\n---\nsupersedes: body text\n"
    )
    assert key_lines("x.md", text.encode()) == {"id": 2, "access": 3, "tags": 5, "quoted key": 7}


def test_validate_json_gains_line_and_keeps_its_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", str(SAMPLE_REPO), "--as-of", AS_OF, "--format", "json")
    doc = json.loads(out)
    assert code == 1
    for f in doc["findings"]:
        assert list(f) == ["code", "severity", "ids", "message", "hint", "paths", "line"]
    typo = finding(doc, "unknown-field", "pricing/team.v1.md")
    assert typo["line"] == 17


def test_role_bundles_keep_their_warning_fields(capsys: pytest.CaptureFixture[str]) -> None:
    bundle = resolve_json(capsys, SAMPLE_REPO, "sales")
    assert all(
        list(w) == ["code", "severity", "ids", "message", "hint"] for w in bundle["warnings"]
    )


def test_lines_at_a_git_revision_are_those_of_the_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    make_repo(work, {"p.md": "---\nid: p\nauthority: canonical\ntypo: 1\n---\n"})
    git(work, "init", "-q")
    commit(work, "one", "2026-01-01T00:00:00Z")
    (work / "p.md").write_text(
        "---\nid: p\nauthority: canonical\ntitle: t\nsummary: s\ntypo: 1\n---\n", encoding="utf-8"
    )
    at_head = audit_json(capsys, str(work), "--rev", "HEAD", "--as-of", AS_OF)
    on_disk = audit_json(capsys, str(work), "--as-of", AS_OF)
    assert finding(at_head, "unknown-field", "p.md")["line"] == 4
    assert finding(on_disk, "unknown-field", "p.md")["line"] == 6
    assert at_head["revision"]["commit"] and at_head["revision"]["revision"] == "HEAD"


# -- layouts ---------------------------------------------------------------------------------------


def test_csv_is_the_role_by_object_matrix(capsys: pytest.CaptureFixture[str]) -> None:
    doc = audit_json(capsys, str(SAMPLE_REPO), "--as-of", AS_OF)
    code, out, _ = run(capsys, "audit", str(SAMPLE_REPO), "--as-of", AS_OF, "--format", "csv")
    assert code == 1
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["id", "version", "path", *doc["roles"]]
    assert len(rows) == 1 + len(doc["objects"])
    for row, o in zip(rows[1:], doc["objects"], strict=True):
        assert row[:3] == [o["id"], str(o["version"]), o["path"]]
        for cell, role in zip(row[3:], doc["roles"], strict=True):
            fate = o["fates"][role]
            want = f"included#{fate['rank']}" if fate["state"] == "included" else fate["reason"]
            assert cell == want
    team = dict(zip(rows[0], next(r for r in rows if r[2] == "pricing/team.v1.md"), strict=True))
    assert team["engineering"] == "not-in-scope"
    assert team["public-bot"] == "classification-denied"
    assert team["sales"] == "outranked"  # by pricing.team@2, on version


def test_text_lists_errors_first_with_roles_and_files(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "audit", str(SAMPLE_REPO), "--as-of", AS_OF, "--color", "never")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("Audit at 2026-11-01T00:00:00Z (working tree): ")
    heads = [line for line in lines if line.startswith("  ") and line[2] in "✗⚠!"]
    marks = [h[2] for h in heads]
    assert marks == sorted(marks, key=lambda m: m != "✗")
    errors = [h.split()[1] for h in heads if h[2] == "✗"]
    assert errors == sorted(errors)
    typo = lines.index(next(line for line in lines if "'superseeded_by'" in line))
    assert lines[typo + 2] == "      files: pricing/team.v1.md:17"
    assert lines[typo + 3] == "      roles: engineering, leadership, sales, support"
    summary = lines.index("Summary:")
    assert lines[summary + 1].startswith("  engineering: ")
    assert len(lines) == summary + 6


def test_exit_code_is_zero_without_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, {"p.md": obj("p")})
    code, out, _ = run(capsys, "audit", str(root), "--as-of", AS_OF)
    assert code == 0 and "Findings: 0 errors, 0 warnings" in out


def test_an_undeclared_repository_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "audit", str(tmp_path))
    assert code == 2 and out == "" and "not an OpenContext repository" in err


# -- --output --------------------------------------------------------------------------------------


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_output_writes_atomically_what_stdout_would_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(
        tmp_path / "repo", {"p.md": obj("p"), "q.md": obj("q", conflicts_with=["ghost"])}
    )
    for fmt in ("json", "csv", "markdown", "text"):
        code, printed, _ = run(capsys, "audit", str(root), "--as-of", AS_OF, "--format", fmt)
        target = tmp_path / "out" / f"audit.{fmt}"
        target.parent.mkdir(exist_ok=True)
        code2, out, err = run(
            capsys, "audit", str(root), "--as-of", AS_OF, "--format", fmt, "--output", str(target)
        )
        assert (code, code2) == (1, 1) and out == "" and str(target) in err
        assert target.read_text(encoding="utf-8") == printed
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "audit.csv",
        "audit.json",
        "audit.markdown",
        "audit.text",
    ]  # no temporary files left behind


def test_output_refuses_the_repository_and_an_existing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo", {"p.md": obj("p")})
    before = snapshot(root)
    for inside in (root / "audit.json", root / "sub" / ".." / "audit.json"):
        code, out, err = run(capsys, "audit", str(root), "--output", str(inside))
        assert code == 2 and out == "" and "inside the repository" in err
    (root / "sub").mkdir()
    os.symlink(root, tmp_path / "link")
    code, _, err = run(capsys, "audit", str(root), "--output", str(tmp_path / "link" / "a.json"))
    assert code == 2 and "inside the repository" in err
    (root / "sub").rmdir()
    assert snapshot(root) == before
    target = tmp_path / "audit.txt"
    target.write_text("old", encoding="utf-8")
    code, _, err = run(capsys, "audit", str(root), "--output", str(target))
    assert code == 2 and "already exists" in err and target.read_text(encoding="utf-8") == "old"
    code, _, _ = run(capsys, "audit", str(root), "--output", str(target), "--force")
    assert code == 0 and target.read_text(encoding="utf-8").startswith("Audit at ")
