"""The canonical JSON of SPEC §5, one rule at a time, and the bundle's ``source``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from git_fixture import GitSample, git, git_sample
from repo_builder import make_repo, obj, resolve_at

from octui.bundle.bundle import (
    bundle_dict,
    canonical_json,
    digest,
    exclusion_digest_form,
    included_digest_form,
    warning_digest_form,
)
from octui.cli.main import main
from octui.core.timeutil import parse_instant
from octui.load.revisions import load_revision
from octui.resolve.engine import resolve
from octui.resolve.result import Query

__all__ = ["git_sample"]


def _payload(res) -> bytes:  # type: ignore[no-untyped-def]
    return canonical_json(
        {
            "objects": [included_digest_form(i) for i in res.included],
            "exclusions": [exclusion_digest_form(e) for e in res.exclusions],
            "warnings": [warning_digest_form(w) for w in res.warnings],
        }
    )


def test_the_digest_is_the_sha256_of_the_canonical_payload(tmp_path: Path) -> None:
    res = resolve_at(make_repo(tmp_path, {"a.md": obj("a", title="Ä\u0301")}))
    assert digest(res) == "sha256:" + hashlib.sha256(_payload(res)).hexdigest()


def test_exclusion_order_is_total_id_version_reason_related_then_path(tmp_path: Path) -> None:
    """Three copies of x@1 compete on confidence: the two losers share id, version, reason and
    related; the source path orders them (not their human-readable detail), whatever the
    order the files were written in."""
    files = {
        "b.md": obj("x", confidence=0.2),
        "a.md": obj("x", confidence=0.5),
        "c.md": obj("x", confidence=0.9),
    }
    res = resolve_at(make_repo(tmp_path, files))
    losers = [e for e in res.exclusions if e.id == "x"]
    assert [(e.version, e.reason.value, e.related) for e in losers] == [
        (1, "outranked", ("x@1",))
    ] * 2
    assert [e.path for e in losers] == ["a.md", "b.md"]
    bundle = bundle_dict(res)
    assert [e["detail"] for e in bundle["exclusions"]] == [
        "by x@1 in c.md: confidence 0.9 over 0.5",
        "by x@1 in c.md: confidence 0.9 over 0.2",
    ]


def test_exclusions_with_one_id_version_and_reason_sort_by_related(tmp_path: Path) -> None:
    files = {
        "a.md": obj("x", superseded_by=["q"]),
        "z.md": obj("x", superseded_by=["p"]),
        "p.md": obj("p"),
        "q.md": obj("q"),
    }
    res = resolve_at(make_repo(tmp_path, files))
    assert [(e.related, e.path) for e in res.exclusions if e.id == "x"] == [
        (("p@1",), "z.md"),
        (("q@1",), "a.md"),
    ]


@pytest.mark.parametrize(
    ("written", "canonical"),
    [("1", b"1.0"), ("0", b"0.0"), ("0.25", b"0.25"), ("1.0e-7", b"1e-07"), ("0.1", b"0.1")],
)
def test_confidence_is_the_shortest_round_trip_with_a_fraction_or_exponent(
    tmp_path: Path, written: str, canonical: bytes
) -> None:
    res = resolve_at(make_repo(tmp_path, {"a.yaml": f"id: a\nconfidence: {written}\n"}))
    assert b'"confidence":' + canonical + b"," in _payload(res)


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("2026-03-01", "2026-03-01T00:00:00Z"),
        ("2026-03-01T10:00:00+02:00", "2026-03-01T08:00:00Z"),
        ("2026-03-01T10:00:00.5+02:00", "2026-03-01T08:00:00.500000Z"),
        ("2026-03-01T10:00:00.000001Z", "2026-03-01T10:00:00.000001Z"),
        ("2026-03-01T10:00:00.000Z", "2026-03-01T10:00:00Z"),
        ("2026-03-01T10:00:00", "2026-03-01T10:00:00Z"),
    ],
)
def test_datetimes_are_utc_with_z_and_six_digit_fractions_only_when_non_zero(
    tmp_path: Path, written: str, canonical: str
) -> None:
    res = resolve_at(make_repo(tmp_path, {"a.yaml": f"id: a\ncreated: '{written}'\n"}))
    assert f'"created":"{canonical}"'.encode() in _payload(res)


def test_strings_lose_the_bom_and_crlf_but_are_never_normalised(tmp_path: Path) -> None:
    nfd = "Cafe\u0301"  # NFD: e + combining acute
    plain = f"---\nid: a\ntitle: {nfd}\n---\nline one\nline two\n".encode()
    windows = b"\xef\xbb\xbf" + plain.replace(b"\n", b"\r\n")
    old_mac = plain.replace(b"\n", b"\r")
    nfc = plain.replace(nfd.encode(), "Caf\u00e9".encode())
    digests = {}
    for name, raw in (("plain", plain), ("windows", windows), ("mac", old_mac), ("nfc", nfc)):
        res = resolve_at(make_repo(tmp_path / name, {"a.md": raw}))
        digests[name] = digest(res)
        if name != "nfc":
            assert nfd.encode() in _payload(res)
            assert b'"content":"line one\\nline two\\n"' in _payload(res)
    assert digests["plain"] == digests["windows"] == digests["mac"]
    assert digests["nfc"] != digests["plain"]


def test_object_order_ends_with_the_source_path(tmp_path: Path) -> None:
    """Two copies of x@1, both superseded and shown with --include-historical, tie on every
    other key of the bundle order."""
    files = {
        "b.md": obj("x", title="from b"),
        "a.md": obj("x", title="from a"),
        "y.md": obj("y", supersedes=["x@1"]),
    }
    res = resolve_at(make_repo(tmp_path, files), include_historical=True)
    assert [(i.obj.key, i.obj.path) for i in res.included] == [
        ("y@1", "y.md"),
        ("x@1", "a.md"),
        ("x@1", "b.md"),
    ]


def test_source_of_the_working_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repo(tmp_path, {"a.md": obj("a")})
    assert main(["resolve", str(root), "--role", "reader", "--format", "json"]) == 0
    bundle = json.loads(capsys.readouterr().out)
    assert list(bundle)[:5] == ["bundle_id", "generated_at", "as_of", "inputs", "source"]
    assert bundle["source"] == {
        "commit": None,
        "revision": None,
        "known_at": None,
        "working_tree": True,
    }


def test_source_of_a_revision_names_the_commit_and_stays_out_of_the_digest(
    git_sample: GitSample, capsys: pytest.CaptureFixture[str]
) -> None:
    context = git_sample.context
    head = git(git_sample.work, "rev-parse", "HEAD~1").strip()
    argv = ["resolve", str(context), "--role", "support", "--as-of", "2026-11-30"]
    assert main([*argv, "--rev", "HEAD~1", "--format", "json"]) in (0, 1)
    at_rev = json.loads(capsys.readouterr().out)
    assert at_rev["source"] == {
        "commit": head,
        "revision": "HEAD~1",
        "known_at": "2026-06-02T09:00:00Z",
        "working_tree": False,
    }
    # same content under another name: same digest, different source
    repo = load_revision(context, head)
    res = resolve(repo, Query(role="support", as_of=parse_instant("2026-11-30")))
    assert digest(res) == at_rev["digest"]
    assert bundle_dict(res)["source"]["revision"] == head
