"""The exclusion order made from the repository-wide ranking equals sorting every record by
its full key (SPEC §5), whatever the records: denials of an id with readable versions,
copies of one id@version excluded for different reasons, unavailable sources."""

from __future__ import annotations

import random
from pathlib import Path

from repo_builder import make_repo, obj

from octui.core.enums import ExclusionReason
from octui.core.model import Exclusion
from octui.load.loader import load_repository
from octui.resolve.order import ExclusionOrder, ordered_exclusions
from octui.resolve.steps.base import excluded

R = ExclusionReason
REASONS = [R.EXPIRED, R.UNAPPROVED, R.SUPERSEDED, R.NOT_IN_SCOPE, R.CONFLICT, R.OUTRANKED]


def _repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    files = {}
    for i in range(12):
        for version in (1, 2, 3):
            files[f"a/o{i}v{version}.md"] = obj(f"o.{i % 5}", version=version)
    files["b/copy.md"] = obj("o.1", version=2)  # a third copy of o.1@2
    return load_repository(make_repo(tmp_path, files))


def test_ordered_exclusions_equal_a_full_sort(tmp_path: Path) -> None:
    objects = _repo(tmp_path).objects
    order = ExclusionOrder(objects)
    rng = random.Random(5)
    for _ in range(40):
        exclusions: dict[int, Exclusion] = {}
        denials: dict[str, Exclusion] = {}
        for o in rng.sample(objects, rng.randrange(len(objects))):
            if rng.random() < 0.2:
                denial = denials.setdefault(o.id, Exclusion(o.id, None, R.PERMISSION_DENIED))
                exclusions[o.uid] = denial
            else:
                related = rng.choice([(), ("x",), ("a", "b")])
                exclusions[o.uid] = excluded(o, rng.choice(REASONS), "why", related)
        unavailable = [("o.2", "gone"), ("zz", "missing")][: rng.randrange(3)]
        expected = list({id(e): e for e in exclusions.values()}.values())
        expected += [Exclusion(n, None, R.SOURCE_UNAVAILABLE, (), p) for n, p in unavailable]
        expected.sort(key=Exclusion.sort_key)
        assert ordered_exclusions(order, exclusions, unavailable) == expected


def test_copies_of_one_version_are_ordered_by_reason_then_path(tmp_path: Path) -> None:
    objects = _repo(tmp_path).objects
    copies = [o for o in objects if o.key == "o.1@2"]
    assert len(copies) == 4
    exclusions = {
        o.uid: excluded(o, reason, "why")
        for o, reason in zip(
            copies, [R.UNAPPROVED, R.EXPIRED, R.UNAPPROVED, R.CONFLICT], strict=True
        )
    }
    listed = ordered_exclusions(ExclusionOrder(objects), exclusions, [])
    assert [e.sort_key() for e in listed] == sorted(e.sort_key() for e in exclusions.values())
