"""The bundle's exclusion order (SPEC §5: id, version, reason, related, source path) without
sorting every record by its full key each time.

Every exclusion record of a resolution belongs to one object (the object it excludes), or to
a denied id (one record shared by the id's denied copies), or to an unavailable source. Two
records of different objects compare on (id, version) first, so the order of the records is
the order of a repository-wide ranking of their objects — with the denial of an id just
before every version of it — except among copies of one id@version, which compare on
reason, related and path and are ordered by their full key. :class:`ExclusionOrder` holds
that ranking, made once per repository; :func:`ordered_exclusions` then drops a resolution's
records into one slot per rank and reads the slots in order (sorting by the full key only
among copies).
"""

from __future__ import annotations

import bisect

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion


class ExclusionOrder:
    """Per uid, where a record of that object, and where the denial of its id, falls in the
    exclusion order; and which objects share their id@version with another file."""

    __slots__ = ("copied", "denial_place", "place", "ranks")

    def __init__(self, objects: list[ContextObject]) -> None:
        n = len(objects)
        self.place = [0] * n
        """The rank of a record of the object (copies of one id@version share one rank)."""
        self.denial_place = [0] * n
        """The rank of the denial of the object's id (before every version of it)."""
        self.copied = [False] * n
        """Whether another file holds the object's id@version (ties broken by full key)."""
        ranked = sorted(objects, key=lambda o: (o.id, o.version))
        rank = 0
        previous: ContextObject | None = None
        for obj in ranked:
            if previous is None or obj.id != previous.id:
                rank += 1  # the denial of the id comes before every version of it
                denial = rank
            if previous is None or (obj.id, obj.version) != (previous.id, previous.version):
                rank += 1
            else:
                self.copied[obj.uid] = self.copied[previous.uid] = True
            self.place[obj.uid] = rank
            self.denial_place[obj.uid] = denial
            previous = obj
        self.ranks = rank + 1
        """One more than the highest rank."""


def ordered_exclusions(
    order: ExclusionOrder,
    exclusions: dict[int, Exclusion],
    unavailable: list[tuple[str, str]],
) -> list[Exclusion]:
    """``exclusions`` (by uid; a record shared by several uids listed once) and one record per
    unavailable source, in the order of :meth:`Exclusion.sort_key` — the same list a stable
    sort by that key gives, since no two records share a key (the denial of an id is one
    record, so its copies fill its one slot with it)."""
    place, denial_place, copied = order.place, order.denial_place, order.copied
    # One slot per rank: a denial's record lands in its id's slot once, however many
    # copies share it; copies of one id@version are kept apart, and fill their (empty) slot
    # ordered by their full key.
    slots: list[Exclusion | None] = [None] * order.ranks
    copies: dict[int, list[Exclusion]] = {}
    for uid, record in exclusions.items():
        if record.version is None:
            slots[denial_place[uid]] = record
        elif copied[uid]:
            copies.setdefault(place[uid], []).append(record)
        else:
            slots[place[uid]] = record
    # The slots are read in runs between the copies' slots: no entry of the listing is
    # looked at again to splice the copies in.
    listed: list[Exclusion] = []
    start = 0
    for at in sorted(copies):
        listed += filter(None, slots[start:at])
        listed += sorted(copies[at], key=Exclusion.sort_key)
        start = at + 1
    listed += filter(None, slots[start:] if start else slots)
    for name, problem in unavailable:
        source = Exclusion(name, None, ExclusionReason.SOURCE_UNAVAILABLE, (), problem)
        bisect.insort(listed, source, key=Exclusion.sort_key)
    return listed
