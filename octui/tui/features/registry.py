"""The explorer's features, constructed together for one app (in palette order)."""

from __future__ import annotations

from octui.tui.features import Command, Feature
from octui.tui.features.agenda import Agenda
from octui.tui.features.collector import IdleCollector
from octui.tui.features.compare import Compare
from octui.tui.features.export import Export
from octui.tui.features.orientation import Orientation
from octui.tui.features.prefetch import Prefetch
from octui.tui.features.revisions import Revisions
from octui.tui.features.timetravel import TimeTravel
from octui.tui.features.whynot import WhyNot
from octui.tui.host import Host


class Features:
    """One of each feature, bound to one app; :attr:`all` in the palette's order."""

    def __init__(self, host: Host) -> None:
        self.compare = Compare(host)
        self.agenda = Agenda(host)
        self.revisions = Revisions(host)
        self.whynot = WhyNot(host)
        self.orientation = Orientation(host)
        self.timetravel = TimeTravel(host)
        self.export = Export(host)
        self.prefetch = Prefetch(host)
        self.collector = IdleCollector(host)
        self.all: tuple[Feature, ...] = (
            self.compare,
            self.agenda,
            self.revisions,
            self.whynot,
            self.orientation,
            self.timetravel,
            self.export,
            self.prefetch,
            self.collector,
        )
        """Every feature: the app hands each message to them in this order."""
        self.by_name: dict[str, Feature] = {f.NAME: f for f in self.all}
        """Each feature by the name its bindings are routed by."""

    def palette_commands(self) -> list[Command]:
        """Every feature's palette commands, in order."""
        return [command for feature in self.all for command in feature.palette_commands()]


__all__ = ["Features"]
