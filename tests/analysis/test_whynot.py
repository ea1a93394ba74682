"""Why not: what would include an excluded object — and nothing about denied ones."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))

from repo_builder import make_repo, obj

from octui.analysis.whatif import first_included
from octui.analysis.whynot import ASK_AN_OWNER, why_not
from octui.core.model import Exclusion
from octui.core.timeutil import parse_instant
from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Included, Query, Resolution

SAMPLE = Path(__file__).resolve().parent.parent.parent / "sample-repo"
TODAY = parse_instant("2026-11-30")


@pytest.fixture(scope="module")
def sample() -> Repository:
    return load_repository(SAMPLE)


def uid_of(repo: Repository, key: str, path_part: str = "") -> int:
    return next(o.uid for o in repo.objects if o.key == key and path_part in o.path)


def answer(res: Resolution, repo: Repository, key: str, **kw: Any) -> str:
    return " ".join(why_not(res, repo, uid_of(repo, key), **kw))


@pytest.fixture(scope="module")
def support(sample: Repository) -> Resolution:
    return resolve(sample, Query(role="support", as_of=TODAY, task="refund"))


def test_denied_objects_get_ask_an_owner_and_nothing_else(
    sample: Repository, support: Resolution
) -> None:
    for key in ("procedures.incident-response@1", "pricing.enterprise@3"):
        assert why_not(support, sample, uid_of(sample, key)) == [ASK_AN_OWNER]


def test_whole_repository_mode_names_the_roles_that_may_read_a_denied_object(
    sample: Repository, support: Resolution
) -> None:
    text = answer(support, sample, "procedures.incident-response@1", whole_repository=True)
    assert "engineering" in text and "leadership" in text
    assert "support" not in text and "sales" not in text
    text = answer(support, sample, "pricing.enterprise@3", whole_repository=True)
    assert "sales" in text and "engineering" in text and "leadership" in text
    assert "public-bot" not in text


def test_no_answer_for_support_mentions_what_support_may_not_read(
    sample: Repository, support: Resolution
) -> None:
    denied = [
        o
        for o in sample.objects
        if isinstance(fate := support.fates[o.uid], Exclusion) and fate.reason.is_denial
    ]
    assert denied
    everything = " ".join(" ".join(why_not(support, sample, uid)) for uid in support.fates)
    for o in denied:
        assert o.key not in everything
        if o.title:
            assert o.title not in everything
    # notes.ticket-4812 is out of scope for support; for sales it loses a conflict against a
    # price book support may not read. What support is told is judged on what support may
    # read, so that price book (its existence, dates and links) never changes the answer.
    text = answer(support, sample, "notes.ticket-4812@1")
    assert "sales: included" in text and "pricing" not in text
    assert "conflict" not in text


def test_not_yet_valid_says_when_and_what_then(sample: Repository, support: Resolution) -> None:
    text = answer(support, sample, "policies.ai-assistant-disclosure@1")
    assert "2027-01-01" in text and "would be included" in text
    at = resolve(sample, Query(role="support", as_of=parse_instant("2027-01-01"), task="refund"))
    assert isinstance(at.fates[uid_of(sample, "policies.ai-assistant-disclosure@1")], Included)
    march = resolve(sample, Query(role="support", as_of=parse_instant("2026-03-15")))
    text = answer(march, sample, "policies.refunds-observed@1")
    assert "conflict" in text and "policies.refunds@2" in text


def test_superseded_names_the_replacement_and_the_declaration(
    sample: Repository, support: Resolution
) -> None:
    text = answer(support, sample, "policies.refunds@1")
    assert "policies.refunds@2" in text and "`supersedes`" in text and "2026-06-01" in text


def test_outranked_and_conflict_name_the_winner(sample: Repository, support: Resolution) -> None:
    text = answer(support, sample, "policies.data-retention@1")
    assert "policies.data-retention@2" in text and "version" in text
    text = answer(support, sample, "procedures.refund@2")
    assert "procedures.refund@1" in text and "forces authority observed" in text
    text = answer(support, sample, "policies.refunds-observed@1")
    assert "policies.refunds@2" in text and "conflicts_with" in text
    assert "forces authority observed" in text


def test_the_suggested_supersession_would_include_an_outranked_object(
    repo_factory: Any,
) -> None:
    root = repo_factory(
        {"a1.md": obj("a", version=1), "a2.md": obj("a", version=2)},
    )
    repo = load_repository(root)
    query = Query(role="reader", as_of=TODAY)
    res = resolve(repo, query)
    loser = next(o for o in repo.objects if o.version == 1)
    text = " ".join(why_not(res, repo, loser.uid))
    assert "supersedes: [a@2]" in text
    patched = replace(loser, supersedes=("a@2",))
    repo2 = replace(repo, objects=[patched if o is loser else o for o in repo.objects])
    assert isinstance(resolve(repo2, query).fates[loser.uid], Included)


def test_scope_reasons_name_roles_that_would_get_it(
    sample: Repository, support: Resolution
) -> None:
    text = answer(support, sample, "policies.internal.margins@1")
    assert 'excluded by "policies.internal.*"' in text
    assert "sales: included" in text and "leadership: included" in text
    text = answer(support, sample, "decisions.2026-08-09-adopt-opencontext@1")
    assert "engineering: included" in text


def test_unapproved_says_what_approval_would_do(sample: Repository, support: Resolution) -> None:
    text = answer(support, sample, "policies.refunds@3")
    assert "draft" in text and "not-yet-valid" in text


def test_not_relevant_names_the_limit_that_would_keep_it(sample: Repository) -> None:
    limit = 5
    query = Query(role="support", as_of=TODAY, task="refund", limit=limit)
    res = resolve(sample, query)
    trimmed = [
        uid
        for uid, fate in res.fates.items()
        if isinstance(fate, Exclusion) and fate.reason.value == "not-relevant"
    ]
    assert trimmed
    for uid in trimmed:
        sentences = why_not(res, sample, uid)
        limit_line = next(s for s in sentences if s.startswith("--limit "))
        n = int(limit_line.split()[1])
        wider = resolve(sample, replace(query, limit=n))
        assert isinstance(wider.fates[uid], Included), limit_line
        if n - 1 > limit:
            narrower = resolve(sample, replace(query, limit=n - 1))
            assert isinstance(narrower.fates[uid], Exclusion), limit_line


def test_included_objects_have_nothing_to_explain(sample: Repository, support: Resolution) -> None:
    assert why_not(support, sample, uid_of(sample, "policies.refunds@2")) == [
        "It is in the bundle."
    ]


def test_not_yet_valid_finds_the_first_instant_it_is_included(repo_factory: Any) -> None:
    root = repo_factory(
        {
            "a1.md": obj("a", version=1, created="2026-01-01", valid_until="2026-12-01"),
            "a2.md": obj("a", version=2, authority="reference", valid_from="2026-06-01"),
            "b1.md": obj("b", version=1, created="2026-01-01"),
            "b2.md": obj("b", version=2, authority="reference", valid_from="2026-06-01"),
        }
    )
    repo = load_repository(root)
    res = resolve(repo, Query(role="reader", as_of=parse_instant("2026-03-01")))
    a2 = answer(res, repo, "a@2")
    assert "2026-06-01" in a2 and "outranked" in a2
    assert "first be in the bundle on 2026-12-01" in a2
    at = resolve(repo, Query(role="reader", as_of=parse_instant("2026-12-01")))
    assert isinstance(at.fates[uid_of(repo, "a@2")], Included)
    b2 = answer(res, repo, "b@2")
    assert "At no later instant" in b2
    a2_obj = next(o for o in repo.objects if o.key == "a@2")
    query = Query(role="reader", as_of=parse_instant("2026-03-01"))
    assert first_included(repo, query, a2_obj, a2_obj.effective_start, budget=1) == (None, True)
    assert first_included(repo, query, a2_obj, a2_obj.effective_start) == (
        parse_instant("2026-12-01"),
        False,
    )


def test_first_included_survives_a_freshness_window_at_the_end_of_time(tmp_path: Path) -> None:
    """A stale instant beyond datetime.max (huge review_every) is not a candidate to try."""
    root = make_repo(
        tmp_path / "repo",
        {
            "a.md": obj("a", created="2020-01-01", review_every="999999y"),
            "b.md": obj("b", valid_from="2027-01-01"),
        },
    )
    repo = load_repository(root)
    query = Query(role="reader", as_of=TODAY)
    b = next(o for o in repo.objects if o.id == "b")
    when, exhausted = first_included(repo, query, b, TODAY)
    assert when == parse_instant("2027-01-01") and not exhausted


# -- bounded and cancellable ---------------------------------------------------------------


def always_outranked(root: Path, pairs: int, roles: int = 1) -> Repository:
    """``pairs`` ids, each a canonical copy in effect forever and an informal copy that
    starts later (a distinct instant each): every later copy is outranked at every instant."""
    files: dict[str, Any] = {}
    for i in range(pairs):
        files[f"w/{i}.md"] = obj(f"o{i}", version=1)
        start = f"{2027 + i // 336}-{1 + (i // 28) % 12:02d}-{1 + i % 28:02d}"
        files[f"l/{i}.md"] = obj(f"o{i}", version=2, authority="informal", valid_from=start)
    config = {
        "roles": {
            "reader": {"clearance": "restricted", "scope": {"exclude": ["o0"]}},
            **{f"r{k:03d}": {"clearance": "restricted"} for k in range(roles)},
        }
    }
    return load_repository(make_repo(root, files, config))


class Counting:
    """Counts the re-resolutions why-not makes (and the objects each one resolved)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import octui.analysis.whatif as module

        self.calls = 0
        self.objects = 0
        real = resolve  # what the what-ifs call: the engine's resolve

        def counted(
            repo: Repository, query: Query, cache: ResolutionCache | None = None
        ) -> Resolution:
            self.calls += 1
            self.objects += len(repo.objects)
            return real(repo, query, cache)

        monkeypatch.setattr(module, "resolve", counted)


def test_why_not_tries_a_bounded_number_of_instants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from octui.analysis.whatif import WORK_BUDGET, resolution_budget

    repo = always_outranked(tmp_path / "repo", 1000)
    res = resolve(repo, Query(role="reader", as_of=TODAY))
    budget = resolution_budget(repo)
    assert budget == WORK_BUDGET // 2000 == 50
    counting = Counting(monkeypatch)
    text = answer(res, repo, "o1@2")
    assert "outranked" in text
    assert f"not in the bundle at any of the next {budget} instants" in text
    # one what-if at its start, then at most the budget: never one per candidate (1,000)
    assert counting.calls <= budget + 1
    assert counting.objects <= WORK_BUDGET + len(repo.objects)


def test_why_not_asks_a_bounded_number_of_other_roles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from octui.analysis.whatif import resolution_budget

    repo = always_outranked(tmp_path / "repo", 1000, roles=60)
    res = resolve(repo, Query(role="reader", as_of=TODAY))
    budget = resolution_budget(repo)
    counting = Counting(monkeypatch)
    text = answer(res, repo, "o0@1")
    assert "scope of reader excludes it" in text
    assert "r000: included" in text and f"r{budget - 1:03d}: included" in text
    assert f"r{budget:03d}" not in text and f"{60 - budget} more not asked" in text
    assert counting.calls == budget


def test_why_not_stops_when_cancelled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from octui.analysis.whatif import WhyNotCancelled

    repo = always_outranked(tmp_path / "repo", 300, roles=30)
    res = resolve(repo, Query(role="reader", as_of=TODAY))
    for key in ("o1@2", "o0@1"):  # the instants loop, the other-roles loop
        counting = Counting(monkeypatch)

        def after_three(counting: Counting = counting) -> bool:
            return counting.calls >= 3

        with pytest.raises(WhyNotCancelled):
            why_not(res, repo, uid_of(repo, key), cancelled=after_three)
        assert counting.calls == 3
        counting = Counting(monkeypatch)
        with pytest.raises(WhyNotCancelled):
            why_not(res, repo, uid_of(repo, key), cancelled=lambda: True)
        assert counting.calls == 0
