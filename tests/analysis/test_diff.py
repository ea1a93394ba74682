"""diff: comparing two resolutions — instants, roles, tasks and git revisions."""

from __future__ import annotations

import json
import random
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from campaign import examples
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent.parent))

from repo_builder import obj

from octui.analysis.diff import diff_entries, diff_resolutions, entries
from octui.analysis.diff_result import EntryView
from octui.bundle.bundle import digest
from octui.cli.main import main
from octui.core.enums import DiffAspect
from octui.core.timeutil import parse_instant
from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.render.diff import render_text
from octui.resolve.engine import resolve
from octui.resolve.result import Query

SAMPLE = Path(__file__).resolve().parent.parent.parent / "sample-repo"
MARCH = parse_instant("2026-03-15")
TODAY = parse_instant("2026-11-30")


@pytest.fixture(scope="module")
def sample() -> Repository:
    return load_repository(SAMPLE)


def changes_by_key(d: Any) -> dict[str, Any]:
    out = {}
    for c in d.objects:
        v = c.after.version if c.after and c.after.version is not None else None
        if v is None and c.before is not None:
            v = c.before.version
        out[f"{c.id}@{v}"] = c
    return out


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_identical_resolutions_have_no_differences(sample: Repository) -> None:
    q = Query(role="support", as_of=TODAY, task="refund")
    d = diff_resolutions(resolve(sample, q), resolve(sample, q))
    assert d.same and d.objects == () and d.versions == ()
    assert d.warnings_added == () and d.warnings_removed == ()
    assert "No differences." in render_text(d)


def test_support_between_march_and_today(sample: Repository) -> None:
    a = resolve(sample, Query(role="support", as_of=MARCH))
    b = resolve(sample, Query(role="support", as_of=TODAY))
    d = diff_resolutions(a, b)
    assert d.a.digest == digest(a) and d.b.digest == digest(b) and not d.same
    by_key = changes_by_key(d)
    # The refund policy moved from v1 to v2: one id, version changed.
    assert any(
        v.id == "policies.refunds" and v.before == (1,) and v.after == (2,) for v in d.versions
    )
    v1 = by_key["policies.refunds@1"]
    assert v1.aspects[0] == "now-excluded"
    assert v1.after is not None and v1.after.reason == "superseded"
    assert v1.after.related == ("policies.refunds@2",)
    v2 = by_key["policies.refunds@2"]
    assert v2.aspects[0] == "now-included"
    assert v2.before is not None and v2.before.reason == "not-yet-valid"
    outage = by_key["policies.outage-credit-2026-q1@1"]
    assert outage.after is not None and outage.after.reason == "expired"
    # The refund procedure went stale; its warning appeared.
    assert "stale" in by_key["procedures.refund@1"].aspects
    assert any(w.code == "stale" and w.ids == ("procedures.refund",) for w in d.warnings_added)
    # Nothing left the repository between the two instants.
    assert not d.by_aspect(DiffAspect.ADDED) and not d.by_aspect(DiffAspect.REMOVED)
    # Every object that changed place is reported exactly once.
    moved = {
        e.label
        for e in entries(a)
        if any(
            (x.label == e.label and x.state != e.state) for x in entries(b) if x.version is not None
        )
    }
    reported = {k for k, c in by_key.items() if set(c.aspects) - {"rank", "stale", "fields"}}
    assert moved == reported


def test_version_edited_in_place_is_a_version_change_not_add_and_remove(
    repo_factory: Any,
) -> None:
    before = repo_factory({"p/x.md": obj("p.x", version=1, title="one")}, name="a")
    after = repo_factory({"p/x.md": obj("p.x", version=2, title="two")}, name="b")
    q = Query(role="reader", as_of=TODAY)
    d = diff_resolutions(resolve(load_repository(before), q), resolve(load_repository(after), q))
    assert len(d.objects) == 1
    change = d.objects[0]
    assert change.aspects == ("version", "fields")
    assert change.changed_fields == ("title",)
    assert [v.to_json() for v in d.versions] == [{"id": "p.x", "before": [1], "after": [2]}]
    assert "version 1 → 2" in render_text(d)


def test_added_and_removed_objects(repo_factory: Any) -> None:
    before = repo_factory({"a.md": obj("a"), "b.md": obj("b")}, name="a")
    after = repo_factory({"a.md": obj("a"), "c.md": obj("c")}, name="b")
    q = Query(role="reader", as_of=TODAY)
    d = diff_resolutions(resolve(load_repository(before), q), resolve(load_repository(after), q))
    kinds = {c.id: c.aspects for c in d.objects}
    assert kinds == {"b": ("removed",), "c": ("added",)}


def test_denied_entries_match_by_id_and_show_only_id_and_reason(sample: Repository) -> None:
    a = resolve(sample, Query(role="support", as_of=TODAY))
    b = resolve(sample, Query(role="sales", as_of=TODAY))
    d = diff_resolutions(a, b)
    assert not d.by_aspect(DiffAspect.ADDED) and not d.by_aspect(DiffAspect.REMOVED)
    enterprise = [c for c in d.objects if c.id == "pricing.enterprise"]
    # Three versions denied to support, each now visible to sales: paired one to one.
    assert len(enterprise) == 3
    for c in enterprise:
        before = c.to_json()["before"]
        assert before == {"state": "excluded", "version": None, "reason": "classification-denied"}
    assert any(c.after is not None and c.after.included for c in enterprise)


def test_reason_and_rank_changes(sample: Repository) -> None:
    a = resolve(sample, Query(role="support", as_of=TODAY, task="refund"))
    b = resolve(sample, Query(role="support", as_of=TODAY, task="password"))
    d = diff_resolutions(a, b)
    ranks = d.by_aspect(DiffAspect.RANK)
    assert ranks, "a different task reorders the bundle"
    for c in ranks:
        assert c.before is not None and c.after is not None
        assert c.before.rank is not None and c.after.rank is not None
        assert c.before.rank != c.after.rank
        assert a.included[c.before.rank - 1].obj.key == b.included[c.after.rank - 1].obj.key
    # The digest keeps bundle order, so a reordering alone changes it.
    assert d.a.digest != d.b.digest

    limited = resolve(sample, Query(role="support", as_of=TODAY, task="refund", limit=3))
    d2 = diff_resolutions(a, limited)
    trimmed = d2.by_aspect(DiffAspect.NOW_EXCLUDED)
    assert trimmed and all(
        c.after is not None and c.after.reason == "not-relevant" for c in trimmed
    )


def test_warnings_matched_by_code_and_ids(repo_factory: Any) -> None:
    q = Query(role="reader", as_of=TODAY)
    base = {"x.md": obj("x", typo_one=1)}
    more = {"x.md": obj("x", typo_one=1, typo_two=2), "y.md": obj("y", authority="gospel")}
    a = resolve(load_repository(repo_factory(base, name="a")), q)
    b = resolve(load_repository(repo_factory(more, name="b")), q)
    d = diff_resolutions(a, b)
    added = sorted((w.code, w.ids) for w in d.warnings_added)
    assert added == [("unknown-authority", ("y",)), ("unknown-field", ("x",))]
    assert "typo_two" in next(w.message for w in d.warnings_added if w.code == "unknown-field")
    back = diff_resolutions(b, a)
    assert sorted((w.code, w.ids) for w in back.warnings_removed) == added


def test_diff_is_deterministic_whatever_the_file_order(repo_factory: Any) -> None:
    files = {f"p/o{i}.md": obj(f"p.o{i}", version=1 + i % 2, tags=[f"t{i % 3}"]) for i in range(12)}
    names = list(files)
    random.Random(4).shuffle(names)
    shuffled = {n: files[n] for n in names}
    q_a = Query(role="reader", as_of=TODAY, task="t1")
    q_b = Query(role="reader", as_of=TODAY, task="t2")
    one = load_repository(repo_factory(files, name="a"))
    two = load_repository(repo_factory(shuffled, name="b"))
    j1 = diff_resolutions(resolve(one, q_a), resolve(one, q_b)).to_json()
    j2 = diff_resolutions(resolve(two, q_a), resolve(two, q_b)).to_json()
    assert json.dumps(j1, sort_keys=True) == json.dumps(j2, sort_keys=True)


MIRROR = {
    "added": "removed",
    "removed": "added",
    "now-included": "now-excluded",
    "now-excluded": "now-included",
}


@settings(max_examples=examples(30), deadline=None)
@given(
    role_a=st.sampled_from(["support", "sales", "engineering", "leadership", "public-bot"]),
    role_b=st.sampled_from(["support", "sales", "engineering", "leadership", "public-bot"]),
    day_a=st.integers(min_value=0, max_value=3 * 365),
    day_b=st.integers(min_value=0, max_value=3 * 365),
    historical=st.booleans(),
)
def test_diff_properties_over_roles_and_instants(
    role_a: str, role_b: str, day_a: int, day_b: int, historical: bool
) -> None:
    repo = _SAMPLE_REPO
    start = parse_instant("2025-06-01")
    a = resolve(
        repo, Query(role=role_a, as_of=start + timedelta(days=day_a), include_historical=historical)
    )
    b = resolve(
        repo, Query(role=role_b, as_of=start + timedelta(days=day_b), include_historical=historical)
    )
    forward, backward = diff_resolutions(a, b), diff_resolutions(b, a)
    assert forward.same == (digest(a) == digest(b))
    if forward.same:
        assert not forward.objects
    # Reversing the sides mirrors every change.
    kinds = sorted(MIRROR.get(c.primary, c.primary) for c in forward.objects)
    assert kinds == sorted(c.primary for c in backward.objects)
    assert {(w.code, w.ids) for w in forward.warnings_added} == {
        (w.code, w.ids) for w in backward.warnings_removed
    }
    # What moved in and out is exactly the difference of the included sets.
    keys_a = {i.obj.key for i in a.included}
    keys_b = {i.obj.key for i in b.included}
    moved_in = {
        f"{c.id}@{c.after.version}" for c in forward.by_aspect(DiffAspect.NOW_INCLUDED) if c.after
    }
    moved_out = {
        f"{c.id}@{c.before.version}" for c in forward.by_aspect(DiffAspect.NOW_EXCLUDED) if c.before
    }
    assert moved_in == keys_b - keys_a
    assert moved_out == keys_a - keys_b


_SAMPLE_REPO = load_repository(SAMPLE)


# -- what the role could receive; one heading per object; old → new ------------------------------

MARCH_VS_NOW = ("--role", "support", "--as-of", "2026-03-15", "--against-as-of", "2026-11-30")


def test_by_default_a_diff_lists_only_what_the_role_could_receive(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["diff", str(SAMPLE), *MARCH_VS_NOW]) == 0
    default = capsys.readouterr().out
    assert main(["diff", str(SAMPLE), *MARCH_VS_NOW, "--all"]) == 0
    everything = capsys.readouterr().out
    # decisions.* and notes.* are out of support's scope: their reason changes are noise
    assert "decisions.2026-05-12-event-bus-sqs" not in default
    assert "decisions.2026-05-12-event-bus-sqs@1: not-yet-valid" in everything
    assert "pricing.team@2" not in default and "pricing.team@2" in everything
    assert "12 changes to objects the role cannot receive not shown" in default
    assert "not shown" not in everything
    # what the role receives and its findings are in both
    for text in (default, everything):
        assert "policies.refunds-observed@1: not-yet-valid" in text  # in scope: a conflict loser
        assert "conflict-declared policies.refunds policies.refunds-observed" in text
    doc = cli_json(capsys, "diff", str(SAMPLE), *MARCH_VS_NOW, "--format", "json")
    full = cli_json(capsys, "diff", str(SAMPLE), *MARCH_VS_NOW, "--all", "--format", "json")
    assert all(c["receivable"] for c in doc["objects"])
    assert doc["hidden"] == 12 and full["hidden"] == 0
    hidden = [c for c in full["objects"] if not c["receivable"]]
    assert len(hidden) == 12 and all(c["changes"] == ["reason"] for c in hidden)
    assert doc["warnings"] == full["warnings"]


def test_a_denied_id_is_not_receivable(sample: Repository) -> None:
    a = resolve(sample, Query(role="public-bot", as_of=MARCH))
    b = resolve(sample, Query(role="public-bot", as_of=TODAY))
    d = diff_resolutions(a, b)
    denied = {e.id for e in a.exclusions if e.reason.is_denial}
    assert denied
    assert not any(c.receivable for c in d.objects if c.id in denied)
    assert all(c.id not in denied for c in d.receivable_only().objects)


def _headings(text: str) -> dict[str, list[str]]:
    """Object label (id@version, or the id of a version change) → the headings it is listed
    under (top-level lines end with ':')."""
    found: dict[str, list[str]] = {}
    heading = ""
    for line in text.splitlines():
        if not line.startswith(" ") and line.endswith(":"):
            heading = line
            continue
        stripped = line.strip()
        if line.startswith("  ") and heading and not heading.startswith("Warnings"):
            label = stripped.split(" ")[1] if stripped[:1] in "+-*~↕" else stripped.split(":")[0]
            found.setdefault(label.split("→")[0].rstrip(":"), []).append(heading)
    return found


def test_each_object_appears_under_exactly_one_heading(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["diff", str(SAMPLE), *MARCH_VS_NOW, "--all"]) == 0
    text = capsys.readouterr().out
    headings = _headings(text)
    for label in ("policies.refunds", "policies.refunds@1", "policies.refunds@2"):
        assert headings[label] == ["Version changed:"]
    assert all(len(h) == 1 for h in headings.values()), headings
    assert "Now included:\n" in text and "policies.refunds@2: not-yet-valid" in text
    now_included = text.split("Now included:\n")[1].split(":\n")[0]
    assert "policies.refunds" not in now_included


def test_changed_fields_show_old_and_new_values(
    repo_factory: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    old = obj(
        "policies.refunds",
        version=2,
        summary="Refunds within 30 days.",
        updated="2026-03-01",
        tags=["refund"],
        content="Customers may ask for a refund within 30 days.\nKeep the receipt.\n",
    )
    new = {
        **old,
        "summary": "Refunds within 45 days.",
        "updated": "2026-04-01",
        "tags": ["refund", "billing"],
        "content": "Customers may ask for a refund within 45 days.\nKeep the receipt.\n",
    }
    before = load_repository(repo_factory({"p.md": old}, name="a"))
    after = load_repository(repo_factory({"p.md": new}, name="b"))
    q = Query(role="reader", as_of=TODAY)
    d = diff_resolutions(resolve(before, q), resolve(after, q))
    text = render_text(d)
    assert "fields changed" not in text
    assert 'summary: "Refunds within 30 days." → "Refunds within 45 days."' in text
    assert 'updated: "2026-03-01T00:00:00Z" → "2026-04-01T00:00:00Z"' in text
    assert 'tags: ["refund"] → ["refund", "billing"]' in text
    assert "content: body changed (2 → 2 lines; --body shows the diff)" in text
    with_body = render_text(d, body=True)
    assert "-Customers may ask for a refund within 30 days." in with_body
    assert "+Customers may ask for a refund within 45 days." in with_body
    doc = d.to_json(body=True)
    change = doc["objects"][0]
    assert change["changed_fields"] == ["content", "summary", "tags", "updated"]
    assert change["fields"]["updated"] == ["2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"]
    assert change["fields"]["tags"] == [["refund"], ["refund", "billing"]]
    assert "+Customers may ask for a refund within 45 days." in change["body_diff"]
    assert "body_diff" not in d.to_json()["objects"][0]


def _entry(**fields: Any) -> EntryView:
    return EntryView(**{"id": "p", "version": 1, "included": True, **fields})


#: One pair of bundle entries (side A, side B) for each aspect of a change.
ASPECT_PAIRS: dict[DiffAspect, tuple[list[EntryView], list[EntryView]]] = {
    DiffAspect.ADDED: ([], [_entry()]),
    DiffAspect.REMOVED: ([_entry()], []),
    DiffAspect.NOW_INCLUDED: ([_entry(included=False, reason="expired")], [_entry()]),
    DiffAspect.NOW_EXCLUDED: ([_entry()], [_entry(included=False, reason="expired")]),
    DiffAspect.VERSION: (
        [_entry(included=False, reason="expired")],
        [_entry(included=False, reason="expired", version=2)],
    ),
    DiffAspect.REASON: (
        [_entry(included=False, reason="expired")],
        [_entry(included=False, reason="outranked")],
    ),
    DiffAspect.RELATED: (
        [_entry(included=False, reason="superseded", related=("p@2",))],
        [_entry(included=False, reason="superseded", related=("p@3",))],
    ),
    DiffAspect.LIFECYCLE: ([_entry(lifecycle="active")], [_entry(lifecycle="expired")]),
    DiffAspect.STALE: ([_entry()], [_entry(stale=True)]),
    DiffAspect.AUTHORITY: ([_entry(authority="canonical")], [_entry(authority="reference")]),
    DiffAspect.RANK: ([_entry(rank=1)], [_entry(rank=2)]),
}


def test_every_aspect_of_a_change_is_reported(repo_factory: Any) -> None:
    """Each :class:`DiffAspect` is what a diff reports for the change that shows it."""
    seen: set[DiffAspect] = set()
    for aspect, (a, b) in ASPECT_PAIRS.items():
        changes, _versions = diff_entries(a, b)
        assert [c.primary for c in changes] == [aspect], aspect
        seen.update(changes[0].aspects)
    before = repo_factory({"p.md": obj("p", title="Old")}, name="a")
    after = repo_factory({"p.md": obj("p", title="New")}, name="b")
    q = Query(role="reader", as_of=TODAY)
    d = diff_resolutions(resolve(load_repository(before), q), resolve(load_repository(after), q))
    assert [c.aspects for c in d.objects] == [(DiffAspect.FIELDS,)]
    seen.update(d.objects[0].aspects)
    assert seen == set(DiffAspect)


def test_moved_in_moved_out_and_rank_only_follow_the_primary_aspect() -> None:
    for aspect, (a, b) in ASPECT_PAIRS.items():
        (change,), _ = diff_entries(a, b)
        assert change.moved_in is (aspect in (DiffAspect.ADDED, DiffAspect.NOW_INCLUDED))
        assert change.moved_out is (aspect in (DiffAspect.REMOVED, DiffAspect.NOW_EXCLUDED))
        assert change.rank_only is (aspect is DiffAspect.RANK)
