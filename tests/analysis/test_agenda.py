"""The change agenda: every instant at which a role's bundle changes, and only those."""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent.parent))

from properties.test_properties import ROLE_NAMES, SETTINGS, specs, write
from repo_builder import obj

from octui.analysis import agenda_sweep_state
from octui.analysis.agenda import (
    _brute_walk,
    brute_force_agenda,
    change_agenda,
    next_change,
    previous_change,
    walk_changes,
)
from octui.analysis.agenda_points import EPSILON, ChangePoint, candidates, sorted_candidates
from octui.analysis.agenda_sweep_state import ClusterState, Sweep, _Sorted
from octui.bundle.bundle import digest
from octui.cli.main import main
from octui.core.enums import CauseKind, DiffAspect, WarningCode
from octui.core.model import Finding
from octui.core.timeutil import format_instant, parse_instant
from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.render.agenda import render_text
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Query

SAMPLE = Path(__file__).resolve().parent.parent.parent / "sample-repo"
TODAY = parse_instant("2026-11-30")
IN_90_DAYS = parse_instant("2027-02-28")


@pytest.fixture(scope="module")
def sample() -> Repository:
    return load_repository(SAMPLE)


def digest_at(repo: Repository, query: Query, instant: datetime) -> str:
    return digest(resolve(repo, Query(**{**query.__dict__, "as_of": instant})))


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


@pytest.mark.parametrize("role", ["support", "sales"])
def test_agenda_is_sound_and_complete_over_a_year(sample: Repository, role: str) -> None:
    """Each listed instant changes the digest; between listed instants nothing changes."""
    query = Query(role=role, as_of=TODAY)
    since = parse_instant("2026-01-01")
    until = parse_instant("2027-03-01")
    agenda = change_agenda(sample, query, since=since, until=until)
    assert agenda.points
    for point in agenda.points:
        before = point.first_instant - EPSILON
        assert digest_at(sample, query, before) == point.diff.a.digest
        assert digest_at(sample, query, point.first_instant) == point.diff.b.digest
        assert point.diff.a.digest != point.diff.b.digest
        assert since < point.first_instant <= until
    # Walk the window every 6 hours: the digest is always the one the agenda predicts.
    instants = [p.first_instant for p in agenda.points]
    expected: str | None = digest_at(sample, query, since)
    t = since + timedelta(hours=6)
    while t <= until:
        passed = [p for p in agenda.points if p.first_instant <= t]
        if passed:
            expected = passed[-1].diff.b.digest
        assert digest_at(sample, query, t) == expected, format_instant(t)
        t += timedelta(hours=6)
    assert instants == sorted(instants)


def test_what_changes_for_support_in_the_next_90_days(sample: Repository) -> None:
    agenda = change_agenda(
        sample, Query(role="support", as_of=TODAY), since=TODAY, until=IN_90_DAYS
    )
    assert all(p.upcoming(TODAY) for p in agenda.points)
    new_year = [p for p in agenda.points if p.at == parse_instant("2027-01-01")]
    assert len(new_year) == 1
    moved_in = {c.id for c in new_year[0].diff.by_aspect(DiffAspect.NOW_INCLUDED)}
    assert moved_in == {"policies.ai-assistant-disclosure"}
    assert any(
        c.kind == "valid-from" and c.key == "policies.ai-assistant-disclosure@1"
        for c in new_year[0].causes
    )
    # Staleness changes hold just after their instant.
    stale_points = [p for p in agenda.points if any(c.kind == "stale" for c in p.causes)]
    assert stale_points and all(p.after for p in stale_points)
    for p in stale_points:
        assert p.first_instant == p.at + EPSILON
        assert any(w.code == "stale" for w in p.diff.warnings_added)


def test_past_changes_include_supersession_taking_effect(sample: Repository) -> None:
    agenda = change_agenda(
        sample, Query(role="support", as_of=TODAY), since=parse_instant("2026-01-01")
    )
    june = next(p for p in agenda.points if p.at == parse_instant("2026-06-01"))
    assert not june.upcoming(TODAY)
    assert any(c.kind == "supersession" for c in june.causes)
    out = {c.id: c for c in june.diff.by_aspect(DiffAspect.NOW_EXCLUDED)}
    assert out["policies.refunds"].after is not None
    assert out["policies.refunds"].after.reason == "superseded"
    assert agenda.previous_before(TODAY) is not None
    nxt = agenda.next_after(TODAY)
    assert nxt is not None and nxt.first_instant > TODAY
    assert agenda.next_after(agenda.points[-1].first_instant) is None
    assert agenda.previous_before(agenda.points[0].first_instant - EPSILON) is None


def test_objects_a_role_may_not_read_never_put_an_instant_on_its_agenda(
    repo_factory: Any,
) -> None:
    config = {
        "roles": {
            "low": {"clearance": "internal"},
            "high": {"clearance": "restricted"},
        }
    }
    root = repo_factory(
        {
            "open.md": obj("open", classification="internal", created="2026-01-01"),
            "secret.md": obj(
                "secret",
                classification="restricted",
                valid_from="2026-05-05",
                valid_until="2026-09-09",
            ),
        },
        config,
    )
    repo = load_repository(root)
    low = change_agenda(repo, Query(role="low", as_of=TODAY), since=parse_instant("2025-01-01"))
    high = change_agenda(repo, Query(role="high", as_of=TODAY), since=parse_instant("2025-01-01"))
    assert [format_instant(p.at) for p in low.points] == ["2026-01-01T00:00:00Z"]
    assert {format_instant(p.at) for p in high.points} >= {
        "2026-05-05T00:00:00Z",
        "2026-09-09T00:00:00Z",
    }
    assert "secret" not in render_text(low)


def test_an_instant_where_nothing_changes_is_not_listed(repo_factory: Any) -> None:
    config = {
        "freshness": {"default": "30d"},
        "roles": {"reader": {"clearance": "restricted", "scope": {"include": ["a*"]}}},
    }
    root = repo_factory(
        {
            "a1.md": obj("a1", created="2026-01-01"),
            "zz.md": obj("zz", created="2026-02-01"),
        },
        config,
    )
    repo = load_repository(root)
    query = Query(role="reader", as_of=TODAY)
    found = candidates(resolve(repo, query))
    # zz goes stale after 2026-03-03, but it is out of scope: the bundle does not change then.
    assert (parse_instant("2026-03-03"), True) in found
    agenda = change_agenda(repo, query, since=parse_instant("2025-01-01"))
    listed = [(format_instant(p.at), p.after) for p in agenda.points]
    assert listed == [
        ("2026-01-01T00:00:00Z", False),
        ("2026-01-31T00:00:00Z", True),
        ("2026-02-01T00:00:00Z", False),
    ]
    assert [c.key for c in agenda.points[1].causes] == ["a1@1"]


@pytest.mark.parametrize("when", ["2026-03-15", "2026-06-01", "2026-11-30", "2027-01-01"])
def test_next_and_previous_change_agree_with_the_agenda(sample: Repository, when: str) -> None:
    query = Query(role="support", as_of=parse_instant(when))
    agenda = change_agenda(sample, query)
    nxt = next_change(sample, query)
    prev = previous_change(sample, query)
    expected_next = agenda.next_after(query.as_of)
    expected_prev = agenda.previous_before(query.as_of)
    assert (nxt and nxt.first_instant) == (expected_next and expected_next.first_instant)
    assert (prev and prev.first_instant) == (expected_prev and expected_prev.first_instant)
    assert nxt is not None and prev is not None
    assert nxt.diff.b.digest == expected_next.diff.b.digest  # type: ignore[union-attr]
    assert prev.diff.a.digest == expected_prev.diff.a.digest  # type: ignore[union-attr]


def test_every_change_point_carries_the_bundle_digest_at_its_instant(sample: Repository) -> None:
    query = Query(role="support", as_of=TODAY)
    agenda = change_agenda(
        sample, query, since=parse_instant("2026-01-01"), until=parse_instant("2027-06-01")
    )
    assert len(agenda.points) > 5
    for point in agenda.points:
        after = resolve(sample, replace(query, as_of=point.first_instant))
        assert point.diff.b.digest == digest(after)


def test_walking_both_ways_lists_the_agenda(sample: Repository) -> None:
    query = Query(role="support", as_of=TODAY)
    agenda = change_agenda(sample, query)
    ahead = [p.first_instant for p in walk_changes(sample, query, forward=True)]
    behind = [p.first_instant for p in walk_changes(sample, query, forward=False)]
    assert ahead == [p.first_instant for p in agenda.upcoming()]
    assert behind == [p.first_instant for p in reversed(agenda.past())]


# -- the sweep equals the brute force ------------------------------------------------------------


def _undigested(point: ChangePoint) -> dict[str, Any]:
    """A point's JSON and its diff's, with the two digests blanked."""
    diff = point.diff.to_json()
    for side in ("a", "b"):
        diff[side]["digest"] = None
    whole = point.to_json(TODAY) | {"digest_before": None, "digest_after": None}
    return {"point": whole, "diff": diff, "causes": point.causes, "moves": point.rank_moves}


def _same_agenda(repo: Repository, query: Query, since: Any, until: Any) -> None:
    """The sweep's agenda equals the brute force's: every point, cause, diff and digest;
    without digests (the explorer's), every point, cause and diff, and no digest at all."""
    swept = change_agenda(repo, query, since=since, until=until)
    brute = brute_force_agenda(repo, query, since=since, until=until)
    assert swept.to_json() == brute.to_json()
    assert [p.diff.to_json() for p in swept.points] == [p.diff.to_json() for p in brute.points]
    assert [p.causes for p in swept.points] == [p.causes for p in brute.points]
    assert render_text(swept) == render_text(brute)
    unhashed = change_agenda(repo, query, since=since, until=until, digests=False)
    assert list(map(_undigested, unhashed.points)) == list(map(_undigested, brute.points))
    assert all(p.diff.a.digest is None is p.diff.b.digest for p in unhashed.points)


def _same_walks(repo: Repository, query: Query) -> None:
    """Walking forward and backward from ``query.as_of`` by the sweep equals the brute force."""
    here = resolve(repo, query)
    ordered = sorted_candidates(here)
    for forward in (True, False):
        if forward:
            chosen = [c for c in ordered if c.first_instant > query.as_of]
        else:
            chosen = [c for c in reversed(ordered) if c.first_instant <= query.as_of]
        swept = list(walk_changes(repo, query, forward=forward))
        brute = list(_brute_walk(repo, query, here, chosen, forward, None))
        assert [p.diff.to_json() for p in swept] == [p.diff.to_json() for p in brute]
        assert [(p.at, p.after, p.causes, p.rank_moves) for p in swept] == [
            (p.at, p.after, p.causes, p.rank_moves) for p in brute
        ]
        unhashed = walk_changes(repo, query, forward=forward, digests=False)
        assert list(map(_undigested, unhashed)) == list(map(_undigested, brute))


@pytest.mark.parametrize("role", ["support", "sales", "engineering", "leadership", "public-bot"])
@pytest.mark.parametrize("historical", [False, True])
def test_sweep_equals_brute_force_on_the_sample(
    sample: Repository, role: str, historical: bool
) -> None:
    query = Query(role=role, as_of=TODAY, task="refund", include_historical=historical)
    _same_agenda(sample, query, None, None)
    _same_agenda(sample, query, parse_instant("2026-03-15"), IN_90_DAYS)
    for when in ("2026-03-15", "2026-06-01", "2026-11-30"):
        _same_walks(sample, replace(query, as_of=parse_instant(when)))


def test_the_sweep_is_used_and_finds_the_refund_supersession(sample: Repository) -> None:
    """Not a brute force in disguise: the sweep resolves the repository once, whatever the
    number of candidates (the memo of whole-repository stages stays as it was)."""
    from octui.resolve.cache import ResolutionCache

    query = Query(role="support", as_of=TODAY)
    cache = ResolutionCache(sample)
    resolve(sample, query, cache)
    stages = set(cache.stages.keys())
    agenda = change_agenda(sample, query, since=parse_instant("2025-01-01"), cache=cache)
    assert len(agenda.points) > 20
    assert set(cache.stages.keys()) == stages
    june = next(p for p in agenda.points if p.at == parse_instant("2026-06-01"))
    assert "policies.refunds@2 takes effect" in {c.detail for c in june.causes}


def test_an_agenda_without_digests_hashes_no_bundle(
    sample: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The explorer's agenda (no digests) compares the bundles from instant to instant and
    never hashes one: hashing was half of a 90-day agenda's work at 10k objects."""
    query = Query(role="support", as_of=TODAY, task="refund")
    hashed = change_agenda(sample, query)
    assert len(hashed.points) > 20

    def refuse(*_: object) -> None:
        raise AssertionError("a bundle was hashed")

    monkeypatch.setattr(Sweep, "digest", refuse)
    unhashed = change_agenda(sample, query, digests=False)
    assert list(map(_undigested, unhashed.points)) == list(map(_undigested, hashed.points))
    back = list(walk_changes(sample, query, forward=False, digests=False))
    assert [p.first_instant for p in back] == [p.first_instant for p in reversed(hashed.past())]
    with pytest.raises(AssertionError, match="hashed"):
        change_agenda(sample, query)


def test_a_commit_that_changes_no_json_is_no_change(sample: Repository) -> None:
    """Entries taken out and put back with the same JSON at the same places (here a warning
    whose message alone changed: its key moves, its JSON, the digest's form, does not) leave
    the content and the digest as they were; the commit says so without hashing."""
    query = Query(role="support", as_of=TODAY)
    sweep = Sweep(sample, query, resolve(sample, query), None, ResolutionCache(sample))
    sweep.start(TODAY)
    code = WarningCode.CONFLICT_DECLARED
    first = ClusterState({}, [Finding(code, ("zz.test",), "one")], {}, {})
    assert sweep.commit(TODAY, {"zz.test": first})
    before, digest_before = sweep.content(), sweep.digest()
    sweep._content = None  # not joined, as in the explorer's agenda: rebuilt from the moves
    second = ClusterState({}, [Finding(code, ("zz.test",), "two")], {}, {})
    assert not sweep.commit(TODAY, {"zz.test": second})
    assert sweep.content() == before and sweep.digest() == digest_before
    assert sweep.warnings.keys.count(second.findings[0].sort_key()) == 1
    third = ClusterState({}, [Finding(code, ("zz.test", "zz.x"), "two")], {}, {})
    assert sweep.commit(TODAY, {"zz.test": third})
    assert sweep.content() != before and sweep.digest() != digest_before


def test_the_content_before_a_commit_is_rebuilt_from_what_it_moved() -> None:
    """Two entries with the same JSON and different keys (two identical copies of a file)
    change the content when one leaves and the other enters across another entry, and not
    when nothing lies between them."""
    state = agenda_sweep_state
    lists = [_Sorted() for _ in range(4)]
    objects = lists[1]
    for key, blob in ((1, b"A"), (2, b"B"), (3, b"C")):
        objects.add(key, None, blob)
    before = state._joined([lst.blobs for lst in lists])
    assert before[1] == b"A,B,C"
    # the copy at key 1 leaves, an identical copy enters at key 4 (after B and C)
    removed = [(state._CURRENT, 1, objects.remove(1))]
    added = [(state._CURRENT, 4, objects.add(4, None, b"A"))]
    assert state._same_json(removed, added)
    rebuilt = [state._entries_before(lst, i, removed, added) for i, lst in enumerate(lists)]
    assert state._joined(rebuilt) == before
    assert state._joined([lst.blobs for lst in lists])[1] == b"B,C,A"
    assert not state._same_json(removed, [(state._CURRENT, 4, b"Z")])
    # and back: A leaves key 4 for key 0, with nothing between them that is not A's
    removed = [(state._CURRENT, 4, objects.remove(4))]
    added = [(state._CURRENT, 0, objects.add(0, None, b"A"))]
    rebuilt = [state._entries_before(lst, i, removed, added) for i, lst in enumerate(lists)]
    assert state._joined(rebuilt)[1] == b"B,C,A" and objects.blobs == [b"A", b"B", b"C"]
    removed = [(state._CURRENT, 0, objects.remove(0))]
    added = [(state._CURRENT, 1, objects.add(1, None, b"A"))]
    rebuilt = [state._entries_before(lst, i, removed, added) for i, lst in enumerate(lists)]
    assert state._joined(rebuilt) == state._joined([lst.blobs for lst in lists])


@SETTINGS
@given(
    spec=specs(),
    role=st.sampled_from(ROLE_NAMES),
    window=st.sampled_from([(None, None), ("2026-01-01", "2026-12-31"), ("2026-05-31", None)]),
    historical=st.booleans(),
    task=st.sampled_from(["", "refund policy"]),
)
def test_sweep_equals_brute_force_on_generated_repositories(
    spec: Any, role: str, window: tuple[str | None, str | None], historical: bool, task: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = load_repository(write(spec, Path(tmp) / "repo"))
        since, until = (parse_instant(w) if w else None for w in window)
        query = Query(role=role, as_of=TODAY, task=task, include_historical=historical)
        _same_agenda(repo, query, since, until)
        _same_walks(repo, replace(query, as_of=parse_instant("2026-06-01")))


def test_changes_lists_what_the_role_receives_unless_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["changes", str(SAMPLE), "--role", "support", "--as-of", "2026-03-15"]
    argv += ["--until", "2026-12-31", "--format", "json"]
    default = cli_json(capsys, *argv)
    everything = cli_json(capsys, *argv, "--all")
    assert default["everything"] is False and everything["everything"] is True
    assert all(p["receives"] for p in default["changes"])
    assert any(not p["receives"] for p in everything["changes"])
    assert [p for p in everything["changes"] if p["receives"]] != []
    assert {p["at"] for p in default["changes"]} == {
        p["at"] for p in everything["changes"] if p["receives"]
    }
    # an out-of-scope object starting changes the digest, not what support receives
    only_all = {p["at"] for p in everything["changes"]} - {p["at"] for p in default["changes"]}
    assert "2026-05-12T00:00:00Z" in only_all  # decisions.2026-05-12-event-bus-sqs starts
    assert all(o["receivable"] for p in default["changes"] for o in p["objects"])
    argv.remove("json")
    argv.remove("--format")
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Changes to what the role receives (--all: every digest change)." in text
    assert "decisions." not in text


def test_every_cause_kind_puts_an_instant_on_the_agenda(repo_factory: Any) -> None:
    """Each :class:`CauseKind` is the cause of a candidate, at the instant of its date."""
    root = repo_factory(
        {
            "a1.md": obj("a1", created="2026-01-01", valid_until="2026-08-01"),
            "a2.md": obj("a2", version=2, valid_from="2026-03-01", supersedes=["a1@1"]),
        },
        {"freshness": {"default": "30d"}},
    )
    found = candidates(resolve(load_repository(root), Query(role="reader", as_of=TODAY)))
    kinds = {(at, after, c.kind, c.key) for (at, after), causes in found.items() for c in causes}
    assert kinds >= {
        (parse_instant("2026-01-01"), False, CauseKind.CREATED, "a1@1"),
        (parse_instant("2026-08-01"), False, CauseKind.VALID_UNTIL, "a1@1"),
        (parse_instant("2026-03-01"), False, CauseKind.VALID_FROM, "a2@2"),
        (parse_instant("2026-03-01"), False, CauseKind.SUPERSESSION, "a2@2"),
        (parse_instant("2026-01-31"), True, CauseKind.STALE, "a1@1"),
    }
    assert {kind for _, _, kind, _ in kinds} == set(CauseKind)
    assert all(type(kind) is CauseKind for _, _, kind, _ in kinds)
