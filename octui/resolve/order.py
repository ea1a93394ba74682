"""The bundle's exclusion order (SPEC §5: id, version, reason, related, source path) without
sorting every record by its full key each time.

Every exclusion record of a resolution belongs to one object (the object it excludes), or to
a denied id (one record shared by the id's denied copies), or to an unavailable source. Two
records of different objects compare on (id, version) first, so the order of the records is
the order of a repository-wide ranking of their objects — with the denial of an id just
before every version of it — except among copies of one id@version, which compare on
reason, related and path and are ordered by their full key. :class:`ExclusionOrder` holds
that ranking, made once per repository; :func:`ordered_exclusions` then sorts a resolution's
records by small integers (and the full key among copies only).
"""

from __future__ import annotations

import bisect

from octui.core.enums import ExclusionReason
from octui.core.model import ContextObject, Exclusion


class ExclusionOrder:
    """Per uid, where a record of that object, and where the denial of its id, falls in the
    exclusion order; and which objects share their id@version with another file."""

    __slots__ = ("copied", "denial_place", "place")

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


def ordered_exclusions(
    order: ExclusionOrder,
    exclusions: dict[int, Exclusion],
    unavailable: list[tuple[str, str]],
) -> list[Exclusion]:
    """``exclusions`` (by uid; a record shared by several uids listed once) and one record per
    unavailable source, in the order of :meth:`Exclusion.sort_key` — the same list a stable
    sort by that key gives, since no two records share a key."""
    place, denial_place, copied = order.place, order.denial_place, order.copied
    keyed: list[tuple[int, tuple[object, ...], Exclusion]] = []
    seen: set[int] = set()
    for uid, record in exclusions.items():
        if record.version is None:  # a denial: one record for every denied copy of the id
            if id(record) in seen:
                continue
            seen.add(id(record))
            keyed.append((denial_place[uid], (), record))
        elif copied[uid]:
            keyed.append((place[uid], record.sort_key(), record))
        else:
            keyed.append((place[uid], (), record))
    keyed.sort()  # ranks differ but among copies, whose full keys differ: records never compared
    listed = [record for _, _, record in keyed]
    for name, problem in unavailable:
        source = Exclusion(name, None, ExclusionReason.SOURCE_UNAVAILABLE, (), problem)
        bisect.insort(listed, source, key=Exclusion.sort_key)
    return listed
