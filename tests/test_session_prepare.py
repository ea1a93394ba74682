"""``Session.prepare``: what every role's first visit reads of each object is made ahead
(the digest parts, the token tables in the fixed order, when each object turns stale and
where its stale finding sorts, the validity windows, the task on screen's token matches);
a prepared session answers exactly as an unprepared one, and a first visit to a role then
makes no object's parts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import octui.bundle.pieces as pieces_module
from octui.bundle import forms
from octui.bundle.bundle import digest
from octui.bundle.pieces import Pieces
from octui.core import model
from octui.core.enums import ExclusionReason as R
from octui.core.tokens import tokenize
from octui.resolve import fixed
from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.resolve.steps import tables
from octui.session import Session
from octui.synth.repository import write_repository

AS_OF = datetime(2025, 7, 1, tzinfo=UTC)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    write_repository(root, 300, seed=5)
    return root


def _pieces(session: Session) -> Pieces:
    assert session.cache is not None and session.cache.memo is not None
    found = session.cache.memo.known(("digest-pieces",))
    assert isinstance(found, Pieces)
    return found


def _counted_parts(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The objects whose digest parts are made from now on."""
    made: list[Any] = []
    original = forms.object_parts

    def counted(obj: Any) -> Any:
        made.append(obj)
        return original(obj)

    monkeypatch.setattr(pieces_module, "object_parts", counted)
    return made


def test_a_prepared_session_makes_no_parts_on_a_first_visit_and_answers_the_same(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session(repo)
    repository = session.load()
    assert session.prepare() is True
    pieces = _pieces(session)
    assert set(pieces._parts) == {o.uid for o in repository.objects}
    prepared = session.cache.prepared() if session.cache else None
    assert prepared is not None
    assert None not in prepared.fixed._token_tables
    assert prepared.spans_in_use() is not None  # built ahead, not by the first role after
    made = _counted_parts(monkeypatch)
    queries = [Query(role=r, as_of=AS_OF, task="billing refund") for r in repository.config.roles]
    got = [digest(session.resolve(q)) for q in queries]
    assert made == []  # every included object's parts were made ahead
    assert got == [digest(resolve(repository, q)) for q in queries]  # no cache: all computed


def test_prepare_matches_the_task_on_screen_over_every_object(repo: Path) -> None:
    session = Session(repo)
    repository = session.load()
    assert session.prepare(task="Billing refund, billing") is True
    prepared = session.cache.prepared() if session.cache else None
    assert prepared is not None
    tokens = tokenize("Billing refund, billing")
    assert len(tokens) == 2
    for token in tokens:
        kept = prepared.fixed._memo.known(token)
        assert kept is not None and fixed.UNKNOWN not in kept  # every object matched
    assert prepared.fixed._memo.known("other") is None
    queries = [Query(role=r, as_of=AS_OF, task="billing refund") for r in repository.config.roles]
    assert [digest(session.resolve(q)) for q in queries] == [
        digest(resolve(repository, q)) for q in queries
    ]


def test_prepare_asks_whether_to_stop_between_its_passes(repo: Path) -> None:
    session = Session(repo)
    session.load()
    asked: list[int] = []

    def after(passes: int) -> Any:
        def cancelled() -> bool:
            asked.append(1)
            return len(asked) > passes

        return cancelled

    assert session.prepare(after(1), task="billing") is False  # after the stale instants
    prepared = session.cache.prepared() if session.cache else None
    assert prepared is not None
    assert prepared.freshness._ranks is not None and "spans" not in prepared.__dict__
    asked.clear()
    assert session.prepare(after(3), task="billing") is False  # before the task's tokens
    assert prepared.spans_in_use() is not None and prepared.fixed._memo.known("bill") is None
    asked.clear()
    assert session.prepare(after(4), task="billing") is False
    assert prepared.fixed._memo.known("bill") is not None


def test_prepare_stops_when_asked_and_goes_on_later(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session(repo)
    repository = session.load()
    assert session.prepare(lambda: True) is False  # asked before the first pass is over
    assert session.cache is not None and session.cache.memo is not None
    memo = session.cache.memo
    assert memo.known(("digest-pieces",)) is None  # no parts, no pieces

    def stop_after_one_chunk() -> bool:
        found = memo.known(("digest-pieces",))
        return isinstance(found, Pieces) and len(found._parts) >= 100

    monkeypatch.setattr(pieces_module, "_CHUNK", 100)
    assert session.prepare(stop_after_one_chunk) is False
    assert len(_pieces(session)._parts) == 100  # one chunk made, and kept
    made = _counted_parts(monkeypatch)
    assert session.prepare() is True
    assert len(made) == len(repository.objects) - 100  # only what was left


def test_after_an_edit_prepare_makes_only_the_edited_objects_parts(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session(repo)
    session.load()
    session.prepare()
    target = sorted(p for p in repo.rglob("*.md") if p.name != "README.md")[4]
    target.write_text(target.read_text(encoding="utf-8") + "\nanother line\n", "utf-8")
    repository = session.load([str(target)])
    made = _counted_parts(monkeypatch)
    assert session.prepare() is True
    assert [o.path for o in made] == [target.relative_to(repo).as_posix()]
    query = Query(role="support", as_of=AS_OF, task="billing refund")
    assert digest(session.resolve(query)) == digest(resolve(repository, query))


def test_an_unloaded_session_has_nothing_to_prepare(repo: Path) -> None:
    session = Session(repo)
    assert session.prepare() is True
    assert session.repository is None


def test_a_prepared_session_makes_no_not_in_scope_record_or_piece_on_a_first_visit(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = Session(repo)
    repository = session.load()
    session.prepare()
    made: list[Any] = []
    original = model.Exclusion

    def counted(*args: Any) -> Any:
        record = original(*args)
        made.append(record)
        return record

    monkeypatch.setattr(tables, "Exclusion", counted)
    pieced: list[Any] = []
    fill = Pieces._fill

    def counted_fill(self: Pieces, pieces: Any, exclusions: Any, at: list[int]) -> None:
        pieced.extend(exclusions[p] for p in at)
        fill(self, pieces, exclusions, at)

    monkeypatch.setattr(Pieces, "_fill", counted_fill)
    listed = []
    for role in repository.config.roles:
        resolution = session.resolve(Query(role=role, as_of=AS_OF, task="billing refund"))
        digest(resolution)
        listed += [e for e in resolution.exclusions if e.reason is R.NOT_IN_SCOPE]
    assert listed  # the roles' scopes leave objects out
    assert not [r for r in made if r.reason is R.NOT_IN_SCOPE]
    assert not [r for r in pieced if r.reason is R.NOT_IN_SCOPE]
    fresh = {
        role: digest(resolve(repository, Query(role=role, as_of=AS_OF, task="billing refund")))
        for role in repository.config.roles
    }
    assert fresh == {
        role: digest(session.resolve(Query(role=role, as_of=AS_OF, task="billing refund")))
        for role in repository.config.roles
    }


def test_each_scope_is_matched_once_for_the_preparation_and_every_role(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[Any] = []
    original = tables.ScopeIds._made

    def counted(self: tables.ScopeIds, scope: Any) -> Any:
        made.append(scope)
        return original(self, scope)

    monkeypatch.setattr(tables.ScopeIds, "_made", counted)
    session = Session(repo)
    repository = session.load()
    session.prepare()
    for role in repository.config.roles:
        session.resolve(Query(role=role, as_of=AS_OF, task="billing refund"))
    assert len(made) == len(set(made))  # never twice
    assert set(made) == {r.scope for r in repository.config.roles.values()}
