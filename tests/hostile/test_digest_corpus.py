"""Over the whole hostile corpus, the digest from kept pieces (a session's cache, asked for
two roles and two instants) is the definition's: ``digest_of`` the digest forms, written by
the standard library alone (orjson off), nothing kept."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hostile_util import GOOD, write_repo
from test_corpus import CASES, Case

from octui.bundle import bundle as B
from octui.bundle import jsonout as fastjson
from octui.resolve.engine import resolve
from octui.resolve.result import Query, Resolution
from octui.session import Session

INSTANTS = [datetime(2026, 6, 1, tzinfo=UTC), datetime(2020, 1, 1, tzinfo=UTC)]


def definition(res: Resolution) -> str:
    return B.digest_of(
        [B.included_digest_form(i) for i in res.included],
        [B.exclusion_digest_form(e) for e in res.exclusions],
        [B.warning_digest_form(w) for w in res.warnings],
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_kept_pieces_give_the_definitions_digest(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_repo(tmp_path / "repo", GOOD | case.files)
    if case.setup is not None:
        case.setup(root, monkeypatch)
    session = Session(root)
    session.load()
    assert session.repository is not None
    queries = [Query(role=r, as_of=t, task="good") for r in ("reader", "support") for t in INSTANTS]
    kept = {q: B.digest(session.resolve(q)) for q in queries}
    kept_again = {q: B.digest(session.resolve(q)) for q in reversed(queries)}
    with monkeypatch.context() as m:
        m.setattr(fastjson, "_orjson", None)
        for q in queries:
            want = definition(resolve(session.repository, q))
            assert kept[q] == kept_again[q] == want, q
