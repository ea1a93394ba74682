"""Canaries: a denied object contributes nothing but its id and reason, in every output.

The repository holds objects the role ``support`` may not read (above its clearance, or
not naming it in ``access.roles``). Every field they have carries a canary token —
title, summary, owner, type, tags, applies_to, content, an unknown key, an unknown
authority, the file's own path — and they are wired to readable objects every way the
format allows: superseding them, being named as their replacement, declaring conflicts
with them, sharing their id at a higher version, duplicating each other, pointing at
nothing, going stale.

Each role-facing output is then checked twice:

1. no canary token appears, and a denied object shows up only as ``id`` + reason;
2. rewriting every field of the denied objects (keeping only their id and what makes
   them denied) leaves the output byte-for-byte the same — so nothing about them,
   not even a count or an ordering, reaches the role.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hostile_util import cli, write_repo

from octui.history import history
from octui.loader import load_repository
from octui.pipeline import Query, resolve
from octui.timeutil import parse_instant

AS_OF = "2026-06-01"
CONFIG = b"""spec: 1
classification:
  levels: [public, internal, confidential, restricted]
freshness: {default: 30d}
roles:
  support:
    clearance: internal
    scope: {include: ["policies.*", "mission"], exclude: ["policies.internal.*"]}
  ops: {clearance: restricted}
"""
DENIED_IDS = ("policies.secret", "policies.limited", "policies.refunds")
CANARY = re.compile(r"canary\w*", re.IGNORECASE)


def readable() -> dict[str, bytes]:
    return {
        "mission.md": b"---\nid: mission\nauthority: canonical\nlayer: L0\n---\nServe well.\n",
        "policies/public.md": (
            b"---\nid: policies.public\nauthority: approved\ntitle: Public refunds\n"
            b"superseded_by: policies.secret\nconflicts_with: [policies.limited]\n"
            b"tags: [refund]\nupdated: 2026-05-20\n---\nRefunds within 30 days.\n"
        ),
        "policies/refunds-v1.md": (
            b"---\nid: policies.refunds\nversion: 1\nauthority: canonical\ntitle: Refunds\n"
            b"classification: internal\nupdated: 2026-05-20\n---\nThe refund policy.\n"
        ),
    }


def denied(token: str, flavour: int = 0) -> dict[str, bytes]:
    """Objects ``support`` may not read; every field carries ``token`` (and ``flavour``
    varies everything but the id and what makes them denied)."""
    t = token
    auth = ["canonical", "approved", "historical"][flavour % 3]

    def body(object_id: str, deny: str, extra: str = "") -> bytes:
        return (
            f"---\nid: {object_id}\nversion: {7 + flavour}\nauthority: {auth}\n{deny}\n"
            f"title: {t} title\nsummary: {t} summary\nowner: {t}-owner\ntype: {t}type\n"
            f"tags: [refund, {t}tag]\napplies_to: [{t}applies]\n{t}field: 1\n"
            f"created: 2020-01-0{1 + flavour}\nupdated: 2020-01-0{1 + flavour}\n{extra}"
            f"---\nrefund {t} content\n"
        ).encode()

    restricted = "classification: restricted"
    return {
        f"policies/{t}-secret.md": body(
            "policies.secret",
            restricted,
            "supersedes: [policies.public, policies.refunds@1, ghost.nowhere]\n"
            f"conflicts_with: [policies.public, {t}.ghost]\n",
        ),
        f"policies/{t}-secret-copy.md": body("policies.secret", restricted),
        f"policies/{t}-limited.md": body(
            "policies.limited",
            "access: {roles: [ops]}",
            "superseded_by: policies.public\nconflicts_with: [policies.public]\n",
        ),
        f"policies/{t}-refunds-v2.md": body(
            "policies.refunds", restricted, "supersedes: [policies.refunds@1]\n"
        ).replace(f"authority: {auth}".encode(), f"authority: {t}authority".encode()),
    }


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    a = write_repo(tmp_path / "a", readable() | denied("canaryalpha"), CONFIG)
    b = write_repo(tmp_path / "b", readable() | denied("canarybravo", 1), CONFIG)
    return a, b


def _outputs() -> list[tuple[str, list[str]]]:
    base = ["--role", "support", "--as-of", AS_OF]
    out: list[tuple[str, list[str]]] = []
    for fmt in (["--format", "json"], ["--explain"]):
        tag = "json" if "json" in fmt else "explain"
        out += [
            (f"resolve-{tag}", ["resolve", "{repo}", *base, *fmt]),
            (
                f"resolve-task-{tag}",
                ["resolve", "{repo}", *base, "--task", "refund summary content tag type", *fmt],
            ),
            (
                f"resolve-historical-{tag}",
                ["resolve", "{repo}", *base, "--include-historical", *fmt],
            ),
            (f"resolve-strict-{tag}", ["resolve", "{repo}", *base, "--strict", *fmt]),
            (f"resolve-limit-{tag}", ["resolve", "{repo}", *base, "--limit", "1", *fmt]),
            (
                f"resolve-min-relevance-{tag}",
                ["resolve", "{repo}", *base, "--min-relevance", "3", "--task", "refund", *fmt],
            ),
            (
                f"resolve-past-{tag}",
                ["resolve", "{repo}", "--role", "support", "--as-of", "2020-01-05", *fmt],
            ),
        ]
    for fmt in ([], ["--format", "json"]):
        tag = "json" if fmt else "text"
        for object_id in (*DENIED_IDS, "policies.public", "mission"):
            out.append(
                (f"history-{object_id}-{tag}", ["history", object_id, "{repo}", *base, *fmt])
            )
    for fmt in ([], ["--format", "json"]):
        tag = "json" if fmt else "text"
        out += [
            (f"diff-as-of-{tag}", ["diff", "{repo}", *base, "--against-as-of", "2020-01-05", *fmt]),
            (f"diff-task-{tag}", ["diff", "{repo}", *base, "--against-task", "refund", *fmt]),
            (
                f"changes-{tag}",
                ["changes", "{repo}", "--role", "support", "--as-of", "2019-01-01", *fmt],
            ),
        ]
    return out


OUTPUTS = _outputs()


@pytest.mark.parametrize(("name", "argv"), OUTPUTS, ids=[o[0] for o in OUTPUTS])
def test_denied_objects_leave_only_id_and_reason(
    name: str, argv: list[str], repos: tuple[Path, Path]
) -> None:
    runs = [cli([a.format(repo=r) for a in argv]) for r in repos]
    for run in runs:
        assert run.code in (0, 1), run.err
        text = run.out + run.err
        assert not CANARY.findall(text), (name, CANARY.findall(text))
        assert "ghost.nowhere" not in text and "@7" not in text and "@8" not in text
        if argv[-1] == "json" and argv[0] == "resolve":
            bundle = json.loads(run.out)
            for ex in bundle["exclusions"]:
                if ex["reason"] in ("permission-denied", "classification-denied"):
                    assert ex == {
                        "id": ex["id"],
                        "version": None,
                        "reason": ex["reason"],
                        "related": [],
                        "detail": None,
                    }
            denials = {
                (e["id"], e["reason"])
                for e in bundle["exclusions"]
                if e["reason"].endswith("-denied")
            }
            assert denials == {
                ("policies.secret", "classification-denied"),
                ("policies.limited", "permission-denied"),
                ("policies.refunds", "classification-denied"),
            }
            for w in bundle["warnings"]:
                assert not set(w["ids"]) & {"policies.secret", "policies.limited"}, w
            included = {o["id"]: o for o in bundle["objects"]}
            if "--as-of" in argv and AS_OF in argv and "--limit" not in argv:
                # A denied replacement never retires what the role can read.
                assert included["policies.public"]["lifecycle"] == "active"
                assert included["policies.refunds"]["version"] == 1
    # Rewriting everything about the denied objects changes nothing the role sees.
    a, b = (_normalise(r.out, root) for r, root in zip(runs, repos, strict=True))
    assert a == b, name
    assert runs[0].code == runs[1].code
    assert _normalise(runs[0].err, repos[0]) == _normalise(runs[1].err, repos[1])


def _normalise(text: str, root: Path) -> str:
    """Drop what differs per run by design: the bundle id, the clock, the folder name."""
    text = text.replace(str(root), "REPO")
    text = re.sub(r'"bundle_id": "[^"]+"', '"bundle_id": ""', text)
    return re.sub(r'"generated_at": "[^"]+"', '"generated_at": ""', text)


def test_history_rows_for_denied_objects_hold_only_id_and_state(repos: tuple[Path, Path]) -> None:
    repo = load_repository(repos[0])
    rows = history(repo, "policies.refunds", "support", parse_instant(AS_OF))
    hidden = [r for r in rows if r.obj is None]
    assert [r.to_json() for r in hidden] == [
        {"id": "policies.refunds", "state": "classification-denied"}
    ]
    assert [r.obj.version for r in rows if r.obj is not None] == [1]


def test_the_same_objects_are_visible_to_a_cleared_role(repos: tuple[Path, Path]) -> None:
    """The canary is not vacuous: with clearance, the tokens are there to be found."""
    repo = load_repository(repos[0])
    res = resolve(repo, Query(role="ops", as_of=parse_instant(AS_OF), include_historical=True))
    seen = " ".join(f"{i.obj.title} {i.obj.content}" for i in res.included)
    assert "canaryalpha" in seen
    run = cli(["resolve", str(repos[0]), "--role", "ops", "--as-of", AS_OF, "--format", "json"])
    assert "canaryalpha" in run.out
