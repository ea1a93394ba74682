"""The held heap: what a paused section makes joins it only in a process holding what is
made (``holding_made``: the CLI, the benchmark's session)."""

from __future__ import annotations

import gc
import weakref

from octui.load.heap import gc_paused, hold_heap, holding_made, release_heap


def made_in_a_paused_section() -> list[list[int]]:
    with gc_paused():
        return [[i] for i in range(2000)]


def test_a_process_holding_what_is_made_holds_what_paused_sections_make() -> None:
    release_heap()
    try:
        hold_heap()
        held = gc.get_freeze_count()
        with holding_made():
            made = made_in_a_paused_section()
            assert gc.get_freeze_count() >= held + len(made)  # no young pass walks them
        assert gc.isenabled()
    finally:
        release_heap()


def test_otherwise_what_paused_sections_make_stays_young() -> None:
    release_heap()
    try:
        hold_heap()
        held = gc.get_freeze_count()
        made = made_in_a_paused_section()
        assert gc.get_freeze_count() < held + len(made)  # a host's own garbage is still seen
        with holding_made():
            pass
        made = made_in_a_paused_section()  # holding ends with its block
        assert gc.get_freeze_count() < held + 2 * len(made)
    finally:
        release_heap()


def test_with_no_heap_held_what_paused_sections_make_is_exempt_from_nothing() -> None:
    release_heap()
    with holding_made():
        made_in_a_paused_section()
    assert gc.get_freeze_count() == 0


def test_a_cycle_made_while_the_heap_is_held_is_freed_after_the_next_release() -> None:
    class Node:
        pass

    release_heap()
    try:
        hold_heap()
        with holding_made(), gc_paused():
            node = Node()
            node.self = node  # type: ignore[attr-defined]
            ref = weakref.ref(node)
            del node
        gc.collect()
        assert ref() is not None  # held: no pass sees it until the next load
    finally:
        release_heap()
    gc.collect()
    assert ref() is None


def test_release_hands_everything_back() -> None:
    hold_heap()
    made_in_a_paused_section()
    release_heap()
    assert gc.get_freeze_count() == 0


def test_the_collector_stays_paused_while_any_thread_is_in_a_paused_section() -> None:
    import threading

    entered, leave = threading.Event(), threading.Event()
    seen: list[bool] = []

    def other() -> None:
        with gc_paused():
            entered.set()
            leave.wait(10)
            seen.append(gc.isenabled())

    assert gc.isenabled()
    worker = threading.Thread(target=other)
    with gc_paused():
        worker.start()
        assert entered.wait(10)
    # this thread's section is closed, the other's is still open
    assert not gc.isenabled()
    leave.set()
    worker.join(10)
    assert seen == [False]
    assert gc.isenabled()
