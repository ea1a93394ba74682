"""``opencontext synth``: deterministic, realistic synthetic repositories."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from octui.load.loader import load_repository
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.synth.repository import generate, render, write_repository


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_same_size_and_seed_write_the_same_bytes(tmp_path: Path) -> None:
    write_repository(tmp_path / "a", 700, seed=4)
    write_repository(tmp_path / "b", 700, seed=4)
    write_repository(tmp_path / "c", 700, seed=5)
    a, b, c = (files_of(tmp_path / x) for x in "abc")
    assert a == b
    assert a != c


def test_generation_does_not_depend_on_the_clock_or_time_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = [render(o) for o in generate(300, seed=9)[1]]
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    assert [render(o) for o in generate(300, seed=9)[1]] == first


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("org") / "repo"
    assert write_repository(root, 2000, seed=1) == 2000
    return root


def test_every_object_file_loads_or_is_a_deliberate_problem(org: Path) -> None:
    repo = load_repository(org)
    assert len(repo.objects) + repo.invalid_files == 2000
    assert 0 < repo.invalid_files < 20  # a thin sprinkling of broken files, never more
    assert not repo.unavailable_sources


def test_distributions_look_like_an_organization(org: Path) -> None:
    repo = load_repository(org)
    objects = repo.objects
    by_id = repo.by_id()
    versions = Counter(len(group) for group in by_id.values())
    assert versions[1] > versions[2] > versions[3] > 0  # most ids have one version
    assert sum(1 for o in objects if o.supersedes) > 100
    assert sum(1 for o in objects if o.superseded_by) > 20
    assert sum(1 for o in objects if o.conflicts_with) > 10
    assert {o.classification for o in objects} == {
        "public",
        "internal",
        "confidential",
        "restricted",
    }
    assert sum(1 for o in objects if o.access_roles is not None) > 50
    assert sum(1 for o in objects if o.status.value == "draft") > 30
    assert sum(1 for o in objects if o.valid_until is not None) > 100
    years = {o.effective_start.year for o in objects if o.created is not None}
    assert {2022, 2023, 2024, 2025, 2026} <= years
    assert {o.source for o in objects} == {"main", "wiki", "tickets", "chats"}
    assert sum(1 for o in objects if o.path.endswith(".yaml")) > 50
    lengths = sorted(len(o.content) for o in objects)
    assert lengths[len(lengths) // 10] < 600 < 4000 < lengths[-len(lengths) // 100]
    assert len(repo.config.roles) >= 6
    assert all(o.source == "tickets" for o in objects if o.path.startswith("inbox/tickets/"))
    assert all(o.authority == "observed" for o in objects if o.source == "tickets")


def test_every_finding_code_appears_at_scale(org: Path) -> None:
    repo = load_repository(org)
    as_of = datetime(2026, 6, 1, tzinfo=UTC)
    whole = resolve(repo, Query(role=None, as_of=as_of))
    codes = {w.code.value for w in whole.warnings}
    for code in (
        "duplicate-canonical",
        "multiple-active-versions",
        "conflict-declared",
        "broken-reference",
        "supersession-cycle",
        "stale",
        "unknown-authority",
        "unknown-field",
        "invalid-object",
        "duplicate-version",
    ):
        assert code in codes, code
    support = resolve(repo, Query(role="support", as_of=as_of, task="refund"))
    reasons = {e.reason.value for e in support.exclusions}
    for reason in (
        "permission-denied",
        "classification-denied",
        "not-in-scope",
        "superseded",
        "expired",
        "not-yet-valid",
        "unapproved",
    ):
        assert reason in reasons, reason
