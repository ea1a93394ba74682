"""Scale measures never change results and never leak: the held heap, the fast JSON writer,
the token tables kept in the parse cache."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from octui.loader import release_heap
from octui.session import Session
from octui.synth import write_repository


class _Cycle:
    """Cyclic garbage: only the collector can free it."""

    def __init__(self) -> None:
        self.me = self


def test_a_loaded_repository_is_held_out_of_collector_passes(tmp_path: Path) -> None:
    write_repository(tmp_path / "repo", 60, seed=3)
    session = Session(tmp_path / "repo")
    repo = session.load()
    tracked = {id(o) for o in gc.get_objects()}  # what full passes walk (not the frozen)
    assert gc.get_freeze_count() > 0
    assert id(repo.objects) not in tracked
    assert not any(id(o.tags) in tracked for o in repo.objects if o.tags)


def test_releasing_the_held_heap_hands_it_back_to_the_collector(tmp_path: Path) -> None:
    write_repository(tmp_path / "repo", 60, seed=3)
    session = Session(tmp_path / "repo")
    session.load()
    garbage = _Cycle()
    alive = weakref.ref(garbage)
    session.load()  # holds the heap, the cycle with it
    del garbage
    gc.collect()
    assert alive() is not None  # held: no pass looks at it
    release_heap()  # what every load does first
    gc.collect()
    assert alive() is None
