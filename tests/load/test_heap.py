"""The held heap: what a paused section makes joins it only inside a one-shot process."""

from __future__ import annotations

import gc

from octui.load.heap import gc_paused, hold_heap, one_shot, release_heap


def made_in_a_paused_section() -> list[list[int]]:
    with gc_paused():
        return [[i] for i in range(2000)]


def test_a_one_shot_process_holds_what_paused_sections_make() -> None:
    release_heap()
    try:
        hold_heap()
        held = gc.get_freeze_count()
        with one_shot():
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
        assert gc.get_freeze_count() < held + len(made)  # a session's garbage is still seen
        with one_shot():
            pass
        made = made_in_a_paused_section()  # one_shot ends with its block
        assert gc.get_freeze_count() < held + 2 * len(made)
    finally:
        release_heap()


def test_release_hands_everything_back() -> None:
    hold_heap()
    with one_shot():
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
