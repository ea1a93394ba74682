"""The findings limited to what a role may read, found by bisection over the role's objects,
are the ones a pass over every object it may read finds: the same findings, in the same
order."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from properties.test_properties import SETTINGS, Spec, specs, write

from octui.core.enums import WarningCode as W
from octui.core.model import ContextObject, Finding
from octui.load.loader import load_repository
from octui.resolve.findings import (
    BrokenReferences,
    broken_references,
    held,
    load_findings,
    reference_findings,
)
from octui.resolve.index import RepoIndex


def _references_one_by_one(
    broken: BrokenReferences, readable: list[ContextObject], denied: set[str]
) -> list[Finding]:
    found: list[Finding] = []
    for obj in readable:
        found.extend(f for target, f in broken.get(obj.uid, ()) if target not in denied)
    return found


def _own_and_copies_one_by_one(index: RepoIndex, readable: list[ContextObject]) -> list[Finding]:
    """What :func:`load_findings` finds of each object and of its copies (not the sources')."""
    uids = {o.uid for o in readable}
    found = [f for o in readable for f in index.own_findings.get(o.uid, ())]
    for (object_id, version), group in index.copies:
        seen = [o for o in group if o.uid in uids]
        if len(seen) > 1:
            found.append((object_id, version, tuple(sorted(o.path for o in seen))))  # type: ignore[arg-type]
    return found


def _own_and_copies(found: list[Finding]) -> list[object]:
    out: list[object] = []
    for f in found:
        if f.code is W.DUPLICATE_VERSION:
            object_id, at = f.ids[0], f.message.rsplit("@", 1)[1]
            out.append((object_id, int(at), f.paths))
        elif f.code not in (W.SOURCE_UNAVAILABLE, W.INVALID_OBJECT):
            out.append(f)
    return out


@given(
    st.lists(st.integers(0, 40), unique=True).map(sorted),
    st.lists(st.integers(-2, 42), unique=True).map(sorted),
)
def test_held_finds_the_uids_an_ordered_list_holds(readable: list[int], uids: list[int]) -> None:
    objects = []
    for uid in readable:
        obj = ContextObject.__new__(ContextObject)
        obj.uid = uid
        objects.append(obj)
    assert held(objects, uids) == [u for u in uids if u in set(readable)]


@SETTINGS
@given(spec=specs(), keep=st.lists(st.booleans(), min_size=30, max_size=30))
def test_findings_of_what_a_role_reads_are_those_of_a_pass_over_it(
    spec: Spec, keep: list[bool]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = load_repository(write(spec, Path(tmp) / "repo"))
        index = RepoIndex(repo)
        readable = [o for o in index.objects if keep[o.uid % len(keep)]]
        denied = {o.id for o in index.objects if not keep[o.uid % len(keep)]}
        broken = broken_references(index)
        assert reference_findings(broken, readable, denied) == _references_one_by_one(
            broken, readable, denied
        )
        found = load_findings(index, readable, whole_repository=False)
        assert _own_and_copies(found) == _own_and_copies_one_by_one(index, readable)
