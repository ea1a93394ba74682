"""Repository-wide tables that make a new role or a new instant cheap, kept by a
:class:`~octui.resolve.cache.ResolutionCache` (one :class:`Prepared` per repository).

Each table is a pure function of the repository, computed on first use: a resolution
without a cache never builds them (it computes what it needs directly), and a resolution
with one reads them instead of repeating work that does not depend on the role or the
instant. Every answer is the same either way (the property tests compare cached and
uncached bundles).
"""

from __future__ import annotations

from functools import cached_property

from octui.resolve.graph_whole import WholeGraph
from octui.resolve.index import RepoIndex
from octui.resolve.order import ExclusionOrder


class Prepared:
    """What resolution precomputes once per repository (see the module)."""

    def __init__(self, index: RepoIndex) -> None:
        self.index = index

    @cached_property
    def order(self) -> ExclusionOrder:
        """Where every exclusion record falls in the bundle's exclusion order."""
        return ExclusionOrder(self.index.objects)

    @cached_property
    def graph(self) -> WholeGraph:
        """Declared supersession among every object, from which a role's graph is derived."""
        return WholeGraph(self.index)
