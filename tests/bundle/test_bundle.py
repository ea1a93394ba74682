"""The bundle of SPEC §5 and its digest."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

from repo_builder import fixed_bundle, make_repo, obj, resolve_at

from octui.bundle.bundle import (
    bundle_dict,
    digest,
    digest_from_bundle,
    dumps_bundle,
    random_uuid,
)
from octui.core.model import OBJECT_FIELDS
from octui.render.explain import explain

TOP_KEYS = [
    "bundle_id",
    "generated_at",
    "as_of",
    "inputs",
    "source",
    "objects",
    "exclusions",
    "warnings",
    "digest",
]
INPUT_KEYS = {"role", "task", "limit", "min_relevance", "include_historical", "strict"}
OBJECT_KEYS = set(OBJECT_FIELDS) | {"lifecycle", "stale", "score", "matched", "path", "source"}
RFC3339_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")

FILES: dict[str, Any] = {
    "mission.md": obj("mission", layer="L0", title="Mission"),
    "policies/refunds.v1.md": obj(
        "policies.refunds", version=1, title="Refunds", created="2026-01-01"
    ),
    "policies/refunds.v2.md": obj(
        "policies.refunds",
        version=2,
        title="Refunds",
        valid_from="2026-03-01T01:00:00+01:00",
        review_every="12w",
        supersedes=["policies.refunds@1"],
        tags=["refund"],
        access={"roles": ["reader", "boss"]},
        confidence=0.5,
        summary="How refunds work",
        owner="ops",
        type="policy",
        updated="2026-03-02",
        content="Refund within 30 days.\n",
    ),
    "policies/secret.md": obj("policies.secret", classification="restricted", title="S"),
    "notes/draft.md": obj("notes.draft", status="draft", authority="observed"),
    "notes/old.md": obj("notes.old", valid_until="2026-02-01", authority=None),
}
CONFIG = {
    "roles": {"reader": {"clearance": "internal"}, "boss": {"clearance": "restricted"}},
    "freshness": {"default": "180d"},
}


def _repo(tmp_path: Path, files: dict[str, Any] | None = None, name: str = "repo") -> Path:
    return make_repo(tmp_path / name, files if files is not None else FILES, CONFIG)


def test_a_bundle_id_is_a_random_version_4_uuid_written_as_uuid_writes_it() -> None:
    made = [random_uuid() for _ in range(200)]
    assert len(set(made)) == len(made)
    for text in made:
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, text)


def test_bundle_shape(tmp_path: Path) -> None:
    res = resolve_at(_repo(tmp_path), task="refund", as_of="2026-05-01")
    b = bundle_dict(res)
    assert list(b) == TOP_KEYS
    uuid.UUID(b["bundle_id"], version=4)
    assert RFC3339_Z.match(b["generated_at"])
    assert b["as_of"] == "2026-05-01T00:00:00Z"
    assert set(b["inputs"]) == INPUT_KEYS
    assert b["inputs"] == {
        "role": "reader",
        "task": "refund",
        "limit": None,
        "min_relevance": None,
        "include_historical": False,
        "strict": False,
    }
    assert b["source"] == {"commit": None, "revision": None, "known_at": None, "working_tree": True}
    assert [o["id"] for o in b["objects"]] == ["mission", "policies.refunds"]
    for o in b["objects"]:
        assert set(o) == OBJECT_KEYS
        assert list(o)[:3] == ["id", "version", "authority"]
    refunds = b["objects"][1]
    assert refunds["valid_from"] == "2026-03-01T00:00:00Z"
    assert refunds["updated"] == "2026-03-02T00:00:00Z"
    assert refunds["review_every"] == "84d"
    assert refunds["access"] == {"roles": ["reader", "boss"]}
    assert refunds["supersedes"] == ["policies.refunds@1"]
    assert refunds["superseded_by"] == [] and refunds["conflicts_with"] == []
    assert refunds["status"] == "active" and refunds["layer"] is None
    assert refunds["classification"] == "public"
    assert refunds["lifecycle"] == "active" and refunds["stale"] is False
    assert refunds["path"] == "policies/refunds.v2.md" and refunds["source"] == "main"
    assert refunds["matched"] == {
        "tags": ["refund"],
        "title": ["refund"],
        "id": ["refund"],
        "summary": ["refund"],
        "content": ["refund"],
    }
    assert refunds["score"] == 6 + 5 + 4 + 3 + 1
    assert b["objects"][0]["access"] is None and b["objects"][0]["created"] is None
    for e in b["exclusions"]:
        assert list(e) == ["id", "version", "reason", "related", "detail"]
    denied = [e for e in b["exclusions"] if e["id"] == "policies.secret"]
    assert denied == [
        {
            "id": "policies.secret",
            "version": None,
            "reason": "classification-denied",
            "related": [],
            "detail": None,
        }
    ]
    for w in b["warnings"]:
        assert list(w) == ["code", "severity", "ids", "message", "hint"]
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", b["digest"])
    assert b["digest"] == digest(res)


def test_exclusions_and_warnings_sorted(tmp_path: Path) -> None:
    files = {
        "a.md": obj("b", version=2, authority="reference"),
        "b.md": obj("b", version=1),
        "c.md": obj("a", status="draft"),
        "d.md": obj("c", supersedes=["zz"], authority=None),
        "e.md": obj("c", version=3, supersedes=["yy"], authority=None),
    }
    b = bundle_dict(resolve_at(_repo(tmp_path, files)))
    keys = [(e["id"], e["version"] or 0, e["reason"]) for e in b["exclusions"]]
    assert keys == sorted(keys)
    wkeys = [(w["code"], w["ids"]) for w in b["warnings"]]
    assert wkeys == sorted(wkeys) and len(wkeys) >= 3


def test_digest_is_sha256_of_canonical_json(tmp_path: Path) -> None:
    """Recompute the digest independently from SPEC §5's definition."""
    res = resolve_at(_repo(tmp_path), task="refund")
    b = bundle_dict(res)
    objects = [
        {k: v for k, v in o.items() if k not in ("score", "matched", "path", "source")}
        for o in b["objects"]
    ]
    exclusions = [
        {"id": e["id"], "reason": e["reason"]}
        if e["reason"] in ("permission-denied", "classification-denied")
        else {
            "id": e["id"],
            "version": e["version"],
            "reason": e["reason"],
            "related": e["related"],
        }
        for e in b["exclusions"]
    ]
    warnings = [
        {"code": w["code"], "severity": w["severity"], "ids": w["ids"]} for w in b["warnings"]
    ]
    payload = json.dumps(
        {"objects": objects, "exclusions": exclusions, "warnings": warnings},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8")
    assert b["digest"] == "sha256:" + hashlib.sha256(payload).hexdigest()


def test_digest_from_bundle_json_roundtrip(tmp_path: Path) -> None:
    for role in ("reader", "boss"):
        res = resolve_at(_repo(tmp_path), role=role, task="refund", include_historical=True)
        text = dumps_bundle(bundle_dict(res))
        assert digest_from_bundle(json.loads(text)) == digest(res) == json.loads(text)["digest"]


def test_digest_excludes_run_fields_and_query(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    a = resolve_at(root, task="refund", as_of="2026-06-01")
    b = resolve_at(root, task="something else entirely", as_of="2026-06-02", strict=True)
    assert digest(a) == digest(b)
    ba, bb = bundle_dict(a), bundle_dict(b)
    assert ba["bundle_id"] != bb["bundle_id"]
    assert ba["objects"][1]["score"] != bb["objects"][1]["score"]
    assert ba["digest"] == bb["digest"]


def test_two_as_of_selecting_same_context_digest_same(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    assert digest(resolve_at(root, as_of="2026-04-01")) == digest(
        resolve_at(root, as_of="2026-05-20T23:59:59Z")
    )
    # a change in what is selected changes the digest
    assert digest(resolve_at(root, as_of="2026-02-15")) != digest(
        resolve_at(root, as_of="2026-04-01")
    )
    # and so does a change of lifecycle state (staleness) alone
    assert digest(resolve_at(root, as_of="2026-04-01")) != digest(
        resolve_at(root, as_of="2026-06-01")
    )


def test_three_spellings_of_one_instant_digest_same(tmp_path: Path) -> None:
    digests = set()
    for i, spelling in enumerate(
        ["2026-03-01", "2026-03-01T00:00:00Z", "2026-03-01T01:00:00+01:00", "'2026-03-01'"]
    ):
        root = make_repo(
            tmp_path / f"r{i}",
            {"a.md": f"---\nid: a\ncreated: {spelling}\nvalid_until: {spelling}\n---\n"},
        )
        res = resolve_at(root, as_of="2026-01-01", include_historical=True)
        b = bundle_dict(res)
        assert b["exclusions"][0]["reason"] == "not-yet-valid"
        digests.add(digest(res))
    assert len(digests) == 1


def test_durations_in_days_digest_same(tmp_path: Path) -> None:
    ds = {
        digest(resolve_at(make_repo(tmp_path / s, {"a.md": obj("a", review_every=s)})))
        for s in ("14d", "2w")
    }
    assert len(ds) == 1


def test_moving_files_keeps_digest(tmp_path: Path) -> None:
    one = _repo(tmp_path, name="one")
    moved = {f"elsewhere/{i}-{Path(k).name}": v for i, (k, v) in enumerate(reversed(FILES.items()))}
    two = _repo(tmp_path, moved, name="two")
    d1 = digest(resolve_at(one, task="refund"))
    d2 = digest(resolve_at(two, task="refund"))
    assert d1 == d2
    b1 = fixed_bundle(resolve_at(one, task="refund"))
    b2 = fixed_bundle(resolve_at(two, task="refund"))
    assert [o["path"] for o in b1["objects"]] != [o["path"] for o in b2["objects"]]


def test_messages_do_not_enter_the_digest(tmp_path: Path) -> None:
    res = resolve_at(_repo(tmp_path))
    before = digest(res)
    res.warnings[:] = [w.__class__(w.code, w.ids, "reworded", None, ()) for w in res.warnings]
    res.exclusions[:] = [
        e.__class__(e.id, e.version, e.reason, e.related, "reworded") for e in res.exclusions
    ]
    assert digest(res) == before


def test_content_change_changes_digest(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    before = digest(resolve_at(root))
    (root / "mission.md").write_text(
        "---\nid: mission\nlayer: L0\nauthority: canonical\n---\nnew\n"
    )
    assert digest(resolve_at(root)) != before


def test_same_inputs_same_bytes(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    a = dumps_bundle(fixed_bundle(resolve_at(root, task="refund")))
    b = dumps_bundle(fixed_bundle(resolve_at(copy, task="refund")))
    assert a == b


def test_dumps_bundle_escapes_terminal_controls(tmp_path: Path) -> None:
    body = "x\u202ey\x85z\u2028\x1b[31mred\x9b"
    root = make_repo(tmp_path, {"a.md": obj("a", title="x\u202ey", content=body)})
    res = resolve_at(root)
    text = dumps_bundle(bundle_dict(res))
    for bad in ("\u202e", "\x85", "\x9b", "\u2028", "\x1b"):
        assert bad not in text, repr(bad)
    loaded = json.loads(text)
    assert loaded["objects"][0]["title"] == "x\u202ey"
    assert loaded["objects"][0]["content"] == body
    assert digest_from_bundle(loaded) == digest(res)


def test_explain_layout(tmp_path: Path) -> None:
    res = resolve_at(_repo(tmp_path), task="refund", as_of="2026-06-01")
    text = explain(res, digest(res))
    lines = text.splitlines()
    assert lines[0].startswith("Role: ") and lines[1].endswith(" warnings (0 errors)")
    assert lines[2] == "Included:"
    assert "  ✓ mission canonical" in lines
    assert any(line.startswith("  ✓ policies.refunds canonical") for line in lines)
    assert "Excluded:" in lines and "Warnings:" in lines
    assert lines[-1] == f"Digest: {digest(res)}"
    assert "  - policies.secret classification-denied" in lines
    assert "  - policies.refunds@1 superseded (by policies.refunds@2)" in lines
    assert "  - notes.draft@1 unapproved (status: draft)" in lines
    assert not any("policies.secret" in line and "(" in line for line in lines)


def test_explain_tells_versions_apart_without_comparing_every_pair(tmp_path: Path) -> None:
    """Whether an id is included in two versions is counted once per text: the text of a
    bundle of thousands of objects compared every pair of ids (at 50k objects, about a
    quarter of a second of ``opencontext resolve``)."""
    compared: list[int] = []

    class Id(str):
        def __eq__(self, other: object) -> bool:
            compared.append(1)
            return str.__eq__(self, other)

        __hash__ = str.__hash__

    res = resolve_at(_repo(tmp_path), task="refund", as_of="2026-06-01")
    one = res.included[0]
    many = []
    for i in range(400):
        obj = dataclasses.replace(one.obj, id=Id(f"x{i // 2}"), version=1)
        many.append(dataclasses.replace(one, obj=obj))
    res.included = many
    lines = explain(res, digest(res)).splitlines()
    assert lines.count(f"  ✓ x7 {one.obj.authority}  v1") == 2  # both copies say their version
    assert len(compared) <= 2 * len(many)  # each pair: a few look-ups, not every other id


def test_explain_marks_history_staleness_and_versions(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "h",
        {
            "v1.md": obj("p", version=1, updated="2026-01-01"),
            "v2.md": obj("p", version=2, supersedes=["p@1"], updated="2026-05-30"),
            "e.md": obj("e", valid_until="2026-02-01"),
            "none.md": obj("n", authority=None),
        },
        {"freshness": {"default": "30d"}},
    )
    res = resolve_at(root, include_historical=True, as_of="2026-06-01")
    lines = explain(res, digest(res)).splitlines()
    assert "  ✓ n (no authority)" in lines
    assert "  ✓ p canonical  v2" in lines
    assert "  ✓ e canonical  (expired)" in lines
    assert "  ✓ p canonical  v1 (superseded) stale" in lines
    assert "  (nothing)" in lines  # nothing excluded
    assert any(line.startswith("  ! stale p:") for line in lines)
    assert any(line.startswith("  ⚠ unknown-authority:") for line in lines)
    assert any(line.startswith("    → ") for line in lines)
