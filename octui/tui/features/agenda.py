"""The change agenda in the explorer: walk as_of from one change of the bundle to the next.

``.`` / ``,`` move ``as_of`` (and so the timeline marker) to the next / previous instant
at which the bundle of the current role, task and revision changes — objects starting,
expiring, being superseded or going stale — and say what changed. ``A`` lists every
change at any instant (:class:`~octui.tui.screens.agenda.AgendaScreen`); Enter on one
moves ``as_of`` there. Both offer the changes to what the role receives (the default) or
every digest change (``a`` in the agenda, or the palette).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import ClassVar

from textual.binding import Binding

from octui.analysis.agenda import walk_changes
from octui.analysis.agenda_points import EPSILON, ChangePoint
from octui.core.timeutil import BEGINNING_OF_TIME
from octui.load.assemble import Repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.result import Query
from octui.tui.background import in_daemon_thread
from octui.tui.features import Command, Feature
from octui.tui.screens.agenda import AgendaScreen, summarize, when_text
from octui.tui.state import END_OF_TIME_NOTE


def find_change(
    repository: Repository,
    query: Query,
    *,
    forward: bool,
    rev: str | None,
    everything: bool,
    cache: ResolutionCache | None = None,
) -> ChangePoint | None:
    """The next change after ``query.as_of`` (forward) or the latest in effect at it, of the
    mode: every digest change, or the changes to what the role receives (``cache``: the
    repository's resolution cache)."""
    walk = walk_changes(repository, query, forward=forward, rev=rev, cache=cache, digests=False)
    for point in walk:  # the walk moves as_of; the new view shows its own digest
        if everything or point.receives:
            return point
    return None


class Agenda(Feature):
    """Walk the bundle's changes with ``.`` / ``,``; list them all with ``A``."""

    NAME = "agenda"
    BINDINGS: ClassVar[list[Binding]] = [
        Binding(".", "next_change", "Next change of the bundle (moves as_of)", show=False),
        Binding("comma", "previous_change", "Previous change of the bundle", show=False),
        Binding(
            "A",
            "agenda",
            "What changed",
            tooltip="the change agenda: the instants around as_of at which this bundle changes",
        ),
    ]

    everything: bool = False
    """``.`` / ``,`` and the agenda: every digest change (True) or only the changes to what
    the role receives (False, the default)."""

    def palette_commands(self) -> list[Command]:
        return [
            ("Next change of the bundle", self.action_next_change, ". moves as_of there"),
            ("Previous change of the bundle", self.action_previous_change, ", moves as_of there"),
            ("Change agenda", self.action_agenda, "A: the instants at which this bundle changes"),
            (
                "Agenda: changes to what the role receives"
                if self.everything
                else "Agenda: every digest change",
                self.action_toggle_mode,
                ". , and A: "
                + ("every digest change now" if self.everything else "what the role receives now"),
            ),
        ]

    def action_next_change(self) -> None:
        self.run(partial(self._walk, True), name="the walk to the next change", group="walk")

    def action_previous_change(self) -> None:
        self.run(partial(self._walk, False), name="the walk to the previous change", group="walk")

    async def _walk(self, forward: bool) -> None:
        host = self.host
        repo = host.session.repository
        if repo is None:
            return
        query = host.inputs.query(host.clock())
        if not forward:
            if query.as_of <= BEGINNING_OF_TIME:
                host.notify(END_OF_TIME_NOTE, severity="warning")
                return
            # Just before as_of: standing on a change instant, ',' goes to the one before it.
            query = replace(query, as_of=query.as_of - EPSILON)
        everything = self.everything
        cache = host.session.cache_for(repo)
        find = partial(
            find_change, forward=forward, rev=host.revision, everything=everything, cache=cache
        )
        point = await in_daemon_thread(find, repo, query)
        if point is None:
            what = "change of this bundle" if everything else "change to what the role receives"
            host.notify(f"no {'later' if forward else 'earlier'} {what}")
            return
        host.set_as_of(point.first_instant)
        verb = "changes" if forward else "changed"
        host.notify(
            f"{when_text(point)}: {summarize(point)}",
            title=f"The bundle {verb} ({'next' if forward else 'previous'})",
        )

    def action_toggle_mode(self) -> None:
        self.everything = not self.everything
        mode = "every digest change" if self.everything else "changes to what the role receives"
        self.host.notify(f". , and the agenda: {mode}")

    def action_agenda(self) -> None:
        host = self.host
        repo = host.session.repository
        if repo is None:
            return
        query = host.inputs.query(host.clock())

        def done(when: datetime | None) -> None:
            if when is not None:
                host.set_as_of(when)

        def toggled(everything: bool) -> None:
            self.everything = everything

        cache = host.session.cache_for(repo)
        screen = AgendaScreen(repo, query, host.revision, self.everything, toggled, cache)
        host.push_screen(screen, done)


__all__ = ["Agenda", "find_change"]
