"""The digest from the pieces a session keeps (each object's parts, the last digest's bodies,
exclusion pieces by record and by value, a stage's hashed listing) is the definition's —
``digest_of`` the digest forms, nothing kept — for every query of a generated repository,
asked in any order, after a reload that replaced one object and carried the pieces over."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from repo_builder import resolve_at

from octui.bundle import bundle as B
from octui.resolve.result import Resolution
from octui.session import Session
from properties.test_properties import QUERIES, ROLE_NAMES, SETTINGS, Spec, specs, write


def definition(res: Resolution) -> str:
    return B.digest_of(
        [B.included_digest_form(i) for i in res.included],
        [B.exclusion_digest_form(e) for e in res.exclusions],
        [B.warning_digest_form(w) for w in res.warnings],
    )


def _check(session: Session, asked: list[tuple[str | None, dict[str, Any]]]) -> None:
    repo = session.repository
    assert repo is not None
    for role, query in asked:
        res = resolve_at(repo, role=role, cache=session.cache, **query)
        assert B.digest(res) == definition(res), (role, query)


@SETTINGS
@given(
    spec=specs(),
    queries=st.lists(QUERIES, min_size=1, max_size=3),
    order=st.randoms(use_true_random=False),
)
def test_kept_pieces_give_the_definitions_digest(
    spec: Spec, queries: list[dict[str, Any]], order: Any
) -> None:
    asked = [(role, query) for query in queries for role in ROLE_NAMES]
    with tempfile.TemporaryDirectory() as tmp:
        root = write(spec, Path(tmp) / "repo")
        session = Session(root)
        session.load()
        _check(session, asked)
        order.shuffle(asked)
        _check(session, asked)
        edited = sorted(root.rglob("*.md"))[0]  # a body edit: the pieces are carried over
        edited.write_text(edited.read_text() + '\nEdited \\ "body".\n')
        session.load(changed=[str(edited)])
        _check(session, asked)
