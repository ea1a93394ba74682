"""The facts of one loaded repository alone that resolution reads again and again: objects
by id and by (id, version), the ids that can compete, the fixed part of the bundle order,
the findings about each object on its own.

A :class:`RepoIndex` is computed whole when it is made and never changes afterwards (a
:class:`~octui.load.assemble.Repository` never changes once loaded; a reload makes a new one),
so any number of threads may read it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import compress

from octui.core.model import ContextObject, Finding, uid_of
from octui.load.assemble import Repository, object_findings
from octui.load.config import Config


class RepoIndex:
    """What resolution needs to know about ``repo`` before it knows the role or the instant."""

    __slots__ = (
        "by_id",
        "by_version",
        "copies",
        "groups",
        "objects",
        "own_findings",
        "places",
        "repo",
        "shared_ids",
    )

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.objects: list[ContextObject] = repo.objects
        self.by_id: dict[str, list[ContextObject]] = repo.by_id()
        self.shared_ids: frozenset[str] = frozenset(
            i for i, group in self.by_id.items() if len(group) > 1
        )
        """Ids held by two or more objects: the only ones that can compete or repeat."""
        by_version: dict[tuple[str, int], list[ContextObject]] = defaultdict(list)
        for obj in self.objects:
            by_version[(obj.id, obj.version)].append(obj)
        self.by_version: dict[tuple[str, int], list[ContextObject]] = dict(by_version)
        """Objects by (id, version), in first-seen order."""
        self.copies: list[tuple[tuple[str, int], list[ContextObject]]] = [
            (key, group) for key, group in self.by_version.items() if len(group) > 1
        ]
        """(id, version) held by two or more files, in first-seen order."""
        self.own_findings: dict[int, list[Finding]] = {
            o.uid: f for o in self.objects if (f := object_findings(o))
        }
        """Findings about each object alone (unknown fields, unknown authority), by uid."""
        self.groups, self.places = _fixed_order(repo)

    def by_shared_id(
        self, objects: list[ContextObject], shared: bytes | None = None
    ) -> dict[str, list[ContextObject]]:
        """Those of ``objects`` whose id another object of the repository holds too, grouped
        by that id in their order — the only ones that can compete or repeat (``shared``: the
        same answer per uid, 1 or 0 — the prepared
        :attr:`~octui.resolve.steps.tables.Contenders.shared` —, read in C loops instead of
        looking up each object's id)."""
        contenders: Iterable[ContextObject]
        if shared is None:
            ids = self.shared_ids
            contenders = (o for o in objects if o.id in ids)
        else:
            contenders = compress(objects, map(shared.__getitem__, map(uid_of, objects)))
        groups: dict[str, list[ContextObject]] = defaultdict(list)
        for obj in contenders:
            groups[obj.id].append(obj)
        return groups

    @property
    def config(self) -> Config:
        return self.repo.config


def _fixed_order(repo: Repository) -> tuple[list[int], list[int]]:
    """Per uid: layer group (L0, L1, other) and place in the repository's fixed order of
    the rest of the bundle order (authority rank, id, -version, path; total: paths are unique).
    SPEC §3: L0, then L1, then score descending, authority rank, id, version descending."""
    objects = repo.objects
    rank = repo.config.authority_rank
    groups = [0 if o.layer == "L0" else 1 if o.layer == "L1" else 2 for o in objects]
    places = [0] * len(objects)
    ranked = sorted(objects, key=lambda o: (rank(o.authority), o.id, -o.version, o.path))
    for place, obj in enumerate(ranked):
        places[obj.uid] = place
    if any(o.uid != i for i, o in enumerate(objects)):  # pragma: no cover - uids are places
        raise ValueError("objects are not numbered by their place")
    return groups, places
