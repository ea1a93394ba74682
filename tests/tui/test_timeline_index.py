"""The timeline walks one lineage per cursor move: the supersession is indexed once per
graph (off the UI thread, with the view), not rebuilt from every edge on each move."""

from __future__ import annotations

from typing import Any

from octui.analysis.history import lineage, lineage_index
from octui.load.loader import load_repository
from octui.render.timeline import layout
from octui.resolve.engine import resolve
from octui.resolve.result import Query

from .conftest import AS_OF, SAMPLE, make_app, settle


class CountedEdges(list[Any]):
    """``Resolution.edges`` that counts the walks over all of it."""

    walks = 0

    def __iter__(self) -> Any:
        CountedEdges.walks += 1
        return super().__iter__()


async def test_cursor_moves_walk_no_edge_list() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        view = app.view
        assert view is not None and view.lineages is not None  # made with the view
        resolution = view.resolution
        vars(resolution)["edges"] = CountedEdges(resolution.edges)
        CountedEdges.walks = 0
        drawn = 0
        for _ in range(6):
            await pilot.press("down")
            await settle(pilot)
            timeline = app.main.query_one("#timeline")
            drawn += timeline.timeline is not None  # type: ignore[attr-defined]
        assert drawn > 0 and CountedEdges.walks == 0


async def test_views_of_one_graph_share_one_index() -> None:
    app = make_app(role="support")
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        first = app.view
        await pilot.press("t", "r")  # a task: re-ranked, the same steps 1-7
        await settle(pilot)
        second = app.view
        assert first is not None and second is not None and first is not second
        assert first.resolution.graph is second.resolution.graph
        assert second.lineages is first.lineages


def test_the_index_draws_what_a_walk_of_every_edge_draws() -> None:
    repo = load_repository(SAMPLE)
    for role in repo.config.roles:
        resolution = resolve(repo, Query(role=role, as_of=AS_OF, include_historical=True))
        index = lineage_index(resolution)
        for object_id in sorted({o.id for o in resolution.repository.objects}):
            try:
                plain = layout(resolution, object_id, 80)
            except LookupError:
                continue
            assert layout(resolution, object_id, 80, index) == plain
            assert lineage(resolution, object_id, index) == lineage(resolution, object_id)
