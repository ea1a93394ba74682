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

from octui.analysis.history import history
from octui.analysis.whynot import why_not
from octui.core.model import Exclusion
from octui.core.timeutil import parse_instant
from octui.load.loader import load_repository
from octui.resolve.engine import resolve
from octui.resolve.result import Query

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
DENIED_IDS = ("policies.secret", "policies.limited", "policies.refunds", "policies.dup")
CANARY = re.compile(r"canary\w*", re.IGNORECASE)
FLAVOURS = 3
"""How many rewritings of the denied objects each output is compared over."""


def readable() -> dict[str, bytes]:
    return {
        # names a version of a denied id that exists in one rewriting only
        "mission.md": (
            b"---\nid: mission\nauthority: canonical\nlayer: L0\n"
            b"supersedes: [policies.secret@9]\n---\nServe well.\n"
        ),
        "policies/public.md": (
            b"---\nid: policies.public\nauthority: approved\ntitle: Public refunds\n"
            b"superseded_by: policies.secret\nconflicts_with: [policies.limited]\n"
            b"tags: [refund]\nupdated: 2026-05-20\n---\nRefunds within 30 days.\n"
        ),
        "policies/refunds-v1.md": (
            b"---\nid: policies.refunds\nversion: 1\nauthority: canonical\ntitle: Refunds\n"
            b"classification: internal\nupdated: 2026-05-20\n---\nThe refund policy.\n"
        ),
        # two readable copies of one version: a duplicate-version the role may judge
        "policies/dup-a.md": b"---\nid: policies.dup\nauthority: reference\n---\nA.\n",
        "policies/dup-b.md": b"---\nid: policies.dup\nauthority: reference\n---\nB.\n",
        # out of support's scope; other roles' verdicts on it are shown to support
        "notes/scope.md": (
            b"---\nid: notes.scope\nauthority: observed\nclassification: internal\n---\nN.\n"
        ),
    }


def _front(fields: dict[str, object], t: str) -> bytes:
    lines = [f"{k}: {v}" for k, v in fields.items()]
    return ("---\n" + "\n".join(lines) + f"\n---\nrefund {t} content\n").encode()


def denied(token: str, flavour: int = 0) -> dict[str, bytes]:
    """Objects ``support`` may not read; every field carries ``token``, and ``flavour``
    rewrites every field but the id and what makes the id denied: versions, dates, status,
    layer, confidence, freshness, links (to readable and denied objects, with and without
    versions), the classification among the levels support may not read, and how many
    copies each denied id has."""
    t, f = token, flavour
    auth = ["canonical", "approved", "historical"][f]
    above = ["restricted", "confidential", "restricted"][f]

    def obj(object_id: str, deny: str, version: int, **extra: object) -> bytes:
        fields: dict[str, object] = {
            "id": object_id,
            "version": version,
            "authority": auth,
            "title": f"{t} title",
            "summary": f"{t} summary",
            "owner": f"{t}-owner",
            "type": f"{t}type",
            "tags": f"[refund, {t}tag]",
            "applies_to": f"[{t}applies]",
            f"{t}field": 1,
            "created": f"2020-01-0{1 + f}",
            "updated": f"2020-01-0{1 + f}",
        }
        fields.update(
            [
                {},
                {"status": "draft", "layer": "L0", "confidence": 0.5, "review_every": "1d",
                 "valid_from": "2026-05-01", "valid_until": "2026-07-01"},
                {"layer": "L1", "confidence": 1, "review_every": "400d",
                 "valid_until": "2026-01-01", "created": "2027-01-01"},
            ][f]
        )  # fmt: skip
        fields.update(extra)
        key, _, value = deny.partition(": ")
        fields[key] = value
        return _front(fields, t)

    level = f"classification: {above}"
    access = "access: {roles: [ops]}"
    links = [
        {
            "supersedes": "[policies.public, policies.refunds@1, ghost.nowhere, notes.scope]",
            "conflicts_with": f"[policies.public, {t}.ghost]",
        },
        {
            "supersedes": "[policies.public@1, notes.scope, mission, policies.dup@1]",
            "superseded_by": "[policies.public]",
            "conflicts_with": "[policies.refunds]",
        },
        {
            "supersedes": "[policies.secret, notes.scope@1]",
            "superseded_by": "policies.limited",
            "conflicts_with": "[mission, notes.scope]",
        },
    ][f]
    files = {
        f"policies/{t}-secret.md": obj("policies.secret", level, 7 + f, **links),
        f"policies/{t}-limited.md": obj(
            "policies.limited",
            access,
            3 + f,
            classification=["public", "internal", "restricted"][f],
            **(
                [
                    {"superseded_by": "policies.public", "conflicts_with": "[policies.public]"},
                    {"supersedes": "[policies.public, notes.scope]"},
                    {"superseded_by": "[notes.scope@1, policies.refunds@1]"},
                ][f]
            ),
        ),
        f"policies/{t}-refunds-v2.md": obj(
            "policies.refunds",
            level,
            [2, 5, 1][f],
            **(
                [
                    {"supersedes": "[policies.refunds@1]"},
                    {"superseded_by": "policies.refunds@1"},
                    {"supersedes": "[policies.refunds]"},
                ][f]
            ),
        ).replace(f"authority: {auth}".encode(), f"authority: {t}authority".encode()),
        f"policies/{t}-dup.md": obj("policies.dup", level, [1, 3, 1][f]),
    }
    # adding and removing denied copies: 2, 1 and 3 files hold policies.secret
    copies = [[7], [], [9, 4]][f]
    for n, version in enumerate(copies):
        files[f"policies/{t}-secret-copy{n}.md"] = obj("policies.secret", level, version)
    if f == 2:  # a second denied copy of the duplicated readable version, and of refunds
        files[f"policies/{t}-dup-copy.md"] = obj("policies.dup", level, 1, supersedes="[mission]")
        files[f"policies/{t}-refunds-v3.md"] = obj("policies.refunds", level, 3)
    return files


TOKENS = ("canaryalpha", "canarybravo", "canarycharlie")


@pytest.fixture
def repos(tmp_path: Path) -> list[Path]:
    return [
        write_repo(tmp_path / f"r{f}", readable() | denied(TOKENS[f], f), CONFIG)
        for f in range(FLAVOURS)
    ]


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
    name: str, argv: list[str], repos: list[Path]
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
            denials = [
                (e["id"], e["reason"])
                for e in bundle["exclusions"]
                if e["reason"].endswith("-denied")
            ]
            # each denied id once, however many copies hold it
            assert denials == [
                ("policies.dup", "classification-denied"),
                ("policies.limited", "permission-denied"),
                ("policies.refunds", "classification-denied"),
                ("policies.secret", "classification-denied"),
            ]
            for w in bundle["warnings"]:
                assert not set(w["ids"]) & {"policies.secret", "policies.limited"}, w
                assert w["code"] != "broken-reference" or w["ids"] != ["mission"], w
            codes = {(w["code"], tuple(w["ids"])) for w in bundle["warnings"]}
            # judged among the copies the role may read
            assert ("duplicate-version", ("policies.dup",)) in codes
            included = {o["id"]: o for o in bundle["objects"]}
            if "--as-of" in argv and AS_OF in argv and "--limit" not in argv:
                # A denied replacement never retires what the role can read.
                assert included["policies.public"]["lifecycle"] == "active"
                assert included["policies.refunds"]["version"] == 1
    # Rewriting everything about the denied objects changes nothing the role sees.
    first = runs[0]
    for run, root in zip(runs[1:], repos[1:], strict=True):
        assert _normalise(run.out, root) == _normalise(first.out, repos[0]), name
        assert run.code == first.code
        assert _normalise(run.err, root) == _normalise(first.err, repos[0])


def test_why_not_and_history_never_depend_on_denied_objects(repos: list[Path]) -> None:
    """The explorer's detail pane (why not, and what other roles get) and every lineage say
    the same for each readable object, however the denied objects are rewritten."""
    answers = []
    for root in repos:
        repo = load_repository(root)
        for historical in (False, True):
            res = resolve(
                repo,
                Query(role="support", as_of=parse_instant(AS_OF), include_historical=historical),
            )
            seen: dict[str, object] = {}
            for obj in repo.objects:
                fate = res.fates[obj.uid]
                if isinstance(fate, Exclusion) and fate.reason.is_denial:
                    continue
                seen[obj.path] = why_not(res, repo, obj.uid)
            for object_id in sorted({o.id for o in repo.objects}):
                rows = history(repo, object_id, "support", parse_instant(AS_OF))
                seen[f"history {object_id}"] = [r.to_json() for r in rows]
            answers.append(seen)
    text = json.dumps(answers)
    assert not CANARY.findall(text)
    assert "ops: excluded" not in text  # verdicts judged on what support may read
    plain, with_historical = answers[0::2], answers[1::2]
    assert all(a == plain[0] for a in plain)
    assert all(a == with_historical[0] for a in with_historical)


def _normalise(text: str, root: Path) -> str:
    """Drop what differs per run by design: the bundle id, the clock, the folder name."""
    text = text.replace(str(root), "REPO")
    text = re.sub(r'"bundle_id": "[^"]+"', '"bundle_id": ""', text)
    return re.sub(r'"generated_at": "[^"]+"', '"generated_at": ""', text)


def test_history_rows_for_denied_objects_hold_only_id_and_state(repos: list[Path]) -> None:
    repo = load_repository(repos[0])
    rows = history(repo, "policies.refunds", "support", parse_instant(AS_OF))
    hidden = [r for r in rows if r.obj is None]
    assert [r.to_json() for r in hidden] == [
        {"id": "policies.refunds", "state": "classification-denied"}
    ]
    assert [r.obj.version for r in rows if r.obj is not None] == [1]


def test_the_same_objects_are_visible_to_a_cleared_role(repos: list[Path]) -> None:
    """The canary is not vacuous: with clearance, the tokens are there to be found."""
    repo = load_repository(repos[0])
    res = resolve(repo, Query(role="ops", as_of=parse_instant(AS_OF), include_historical=True))
    seen = " ".join(f"{i.obj.title} {i.obj.content}" for i in res.included)
    assert "canaryalpha" in seen
    run = cli(["resolve", str(repos[0]), "--role", "ops", "--as-of", AS_OF, "--format", "json"])
    assert "canaryalpha" in run.out
