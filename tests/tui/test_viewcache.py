"""The app's view cache (a view made once per query, waited for rather than made twice)
and the memo of the tables' rows (reused when a new resolution holds the very same rows);
a view joins the held heap."""

from __future__ import annotations

import gc
import threading
import weakref
from datetime import timedelta

from octui.resolve.engine import resolve
from octui.resolve.result import Query
from octui.session import Session
from octui.tui.features.prefetch import neighbours
from octui.tui.state import ALL_REASONS, Inputs, RowsMemo, make_view
from octui.tui.viewcache import ViewCache

from .conftest import AS_OF, SAMPLE


def test_a_view_is_made_once_per_query_and_again_after_a_reload() -> None:
    session = Session(SAMPLE)
    session.load()
    views = ViewCache()
    query = Query(role="support", as_of=AS_OF)
    first = views.view(session, query, 3)
    again = views.view(session, query, 4)
    assert (first.generation, again.generation) == (3, 4)
    assert again.resolution is first.resolution and again.digest == first.digest
    session.load()  # a new repository: its own views
    assert views.view(session, query, 5).resolution is not first.resolution


def test_the_cache_keeps_the_most_recent_views() -> None:
    session = Session(SAMPLE)
    repo = session.load()
    views = ViewCache(bound=2)
    queries = [Query(role="support", as_of=AS_OF - timedelta(days=d)) for d in range(3)]
    for q in queries:
        views.view(session, q, 1)
    assert [views.known(repo, q) for q in queries] == [False, True, True]


def test_a_dropped_view_is_freed_when_released_not_by_the_key_that_dropped_it() -> None:
    """Freeing a view costs milliseconds at scale: the key whose view pushes one out of the
    cache does not pay it; the idle collection does (``release``). Past the bound of views
    waiting, the oldest is freed at once."""
    session = Session(SAMPLE)
    repo = session.load()
    views = ViewCache(bound=1, retired=2)
    queries = [Query(role="support", as_of=AS_OF - timedelta(days=d)) for d in range(5)]
    refs = [weakref.ref(views.made(session, repo, q)) for q in queries]  # drops 0, 1, 2, 3
    gc.collect()
    alive = [ref() is not None for ref in refs]
    assert alive == [False, False, True, True, True]  # 0 and 1 freed past the bound
    assert views.release() == 2  # 2 and 3
    gc.collect()
    assert [ref() is not None for ref in refs] == [False, False, False, False, True]
    assert views.release() == 0


def test_a_reload_frees_the_old_views_outside_the_lock() -> None:
    """A reload drops every view of the old repository, kept and retired: freeing them
    (milliseconds each at scale) must not hold the lock that the UI thread's lookups take."""
    session = Session(SAMPLE)
    repo = session.load()
    views = ViewCache(bound=2, retired=2)
    locked: list[bool] = []

    def freed(_ref: object) -> None:
        locked.append(views._lock.locked())

    queries = [Query(role="support", as_of=AS_OF - timedelta(days=d)) for d in range(4)]
    refs = [weakref.ref(views.made(session, repo, q), freed) for q in queries]
    assert views.retired == 2 and not locked  # two kept, two retired, none freed yet
    views.made(session, session.load(), queries[0])  # a reload
    gc.collect()
    assert all(ref() is None for ref in refs)
    assert locked == [False] * 4


def test_a_query_being_made_is_waited_for_not_made_twice() -> None:
    session = Session(SAMPLE)
    repo = session.load()
    views = ViewCache()
    query = Query(role="support", as_of=AS_OF)
    calls: list[Query] = []
    started, release = threading.Event(), threading.Event()
    original = session.resolve

    def slow(q: Query):  # type: ignore[no-untyped-def]
        calls.append(q)
        started.set()
        release.wait(5)
        return original(q)

    session.resolve = slow  # type: ignore[method-assign, assignment]
    first = threading.Thread(target=views.made, args=(session, repo, query))
    first.start()
    started.wait(5)
    second: list[object] = []
    waiter = threading.Thread(target=lambda: second.append(views.made(session, repo, query)))
    waiter.start()
    release.set()
    first.join(5)
    waiter.join(5)
    assert len(calls) == 1 and second and views.known(repo, query)


def test_rows_of_the_very_same_exclusions_are_reused() -> None:
    session = Session(SAMPLE)
    session.load()
    memo = RowsMemo()
    query = Query(role="support", as_of=AS_OF)
    one = make_view(session.resolve(query), 1, memo)
    two = make_view(session.resolve(Query(role="support", as_of=AS_OF, task="refund")), 2, memo)
    shared = [r for r in one.excluded_rows if r != ALL_REASONS and r in two.excluded_rows]
    assert any(two.excluded_rows[r] is one.excluded_rows[r] for r in shared)
    for reason in shared:
        if [id(e) for e in one.excluded_rows[reason].rows] == [
            id(e) for e in two.excluded_rows[reason].rows
        ]:
            assert two.excluded_rows[reason] is one.excluded_rows[reason]
    fresh = make_view(resolve(session.repository, query), 3, memo)  # type: ignore[arg-type]
    alone = make_view(resolve(session.repository, query), 4)  # type: ignore[arg-type]
    assert fresh.excluded_rows[ALL_REASONS] is not one.excluded_rows[ALL_REASONS]
    for reason, rows in alone.excluded_rows.items():  # the memo never changes what is shown
        got = fresh.excluded_rows[reason]
        assert (got.index, got.id_width, got.detail_width) == (
            rows.index,
            rows.id_width,
            rows.detail_width,
        )


def test_a_view_joins_the_held_heap() -> None:
    session = Session(SAMPLE)
    session.load()
    resolution = session.resolve(Query(role="support", as_of=AS_OF))
    gc.unfreeze()
    try:
        make_view(resolution, 1)
        assert gc.get_freeze_count() > 0  # left young, every full pass would walk it again
    finally:
        gc.unfreeze()


def test_a_new_task_takes_the_exclusion_and_warning_tables_whole() -> None:
    session = Session(SAMPLE)
    session.load()
    memo = RowsMemo()
    one = make_view(session.resolve(Query(role="support", as_of=AS_OF)), 1, memo)
    two = make_view(session.resolve(Query(role="support", as_of=AS_OF, task="zzz")), 2, memo)
    # steps 1-7 are memoised: the very same exclusion and warning objects, in the same order
    assert all(a is b for a, b in zip(one.exclusions, two.exclusions, strict=True))
    assert all(
        a is b for a, b in zip(one.resolution.warnings, two.resolution.warnings, strict=True)
    )
    assert two.exclusion_uid is one.exclusion_uid
    assert all(two.excluded_rows[r] is one.excluded_rows[r] for r in one.excluded_rows)
    assert two.warning_rows is one.warning_rows
    alone = make_view(session.resolve(Query(role="support", as_of=AS_OF, task="zzz")), 3)
    assert alone.errors == two.errors and alone.reason_counts == two.reason_counts
    for ex in two.exclusions:  # the memo never changes which object a row is
        assert two.object_of(ex) is alone.object_of(ex)


def test_the_views_made_meanwhile_never_drop_the_tables_of_a_view_still_held() -> None:
    """The prefetch makes the neighbours of the view on show; the first character typed
    after it re-ranks the view on show: its exclusion tables are still taken whole."""
    session = Session(SAMPLE)
    session.load()
    views = ViewCache()
    inputs = Inputs(role="support", as_of=AS_OF)
    shown = views.view(session, inputs.query(), 1)
    repo = session.repository
    assert repo is not None
    for near in neighbours(inputs, list(repo.config.roles), AS_OF):  # what the prefetch makes
        views.made(session, repo, near.query())
    typed = views.view(session, Query(role="support", as_of=AS_OF, task="refund"), 2)
    assert typed.excluded_rows.keys() == shown.excluded_rows.keys()
    assert all(typed.excluded_rows[r] is shown.excluded_rows[r] for r in shown.excluded_rows)
    assert typed.warning_rows is shown.warning_rows


def test_the_memo_keeps_no_table_alive_by_itself() -> None:
    session = Session(SAMPLE)
    session.load()
    memo = RowsMemo()
    view = make_view(session.resolve(Query(role="support", as_of=AS_OF)), 1, memo)
    tables = weakref.ref(view.excluded_rows[ALL_REASONS])
    del view
    gc.collect()
    assert tables() is None


def test_the_included_id_width_is_the_included_ids_at_every_task_and_trim() -> None:
    """Measured once per stage when nothing is trimmed (every task includes the same
    objects), measured anew when ``limit`` trims: always the widest id the table shows."""
    session = Session(SAMPLE)
    session.load()

    def widths(**asked: object) -> tuple[int, int]:
        view = make_view(session.resolve(Query(role="support", as_of=AS_OF, **asked)), 1)  # type: ignore[arg-type]
        assert view.included_rows is not None
        return view.included_rows.id_width, max(len(i.obj.id) for i in view.included)

    whole = [widths(task=task) for task in ("", "refund", "pricing tiers", "zzz")]
    assert len(set(whole)) == 1 and whole[0][0] == whole[0][1]
    trimmed = [widths(task=task, limit=1) for task in ("", "refund", "pricing tiers")]
    assert all(shown == widest for shown, widest in trimmed)
    assert min(shown for shown, _ in trimmed) < whole[0][0]  # the trim left the widest id out
