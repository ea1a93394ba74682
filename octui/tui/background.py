"""Work off the UI thread that never keeps the explorer from quitting.

``asyncio.to_thread`` and ``ThreadPoolExecutor`` threads are joined when the event
loop closes and when the interpreter exits, so a long computation that nobody
waits for any more (a why-not on a large repository, a walk to the next change)
would hold the quit until it ends. The threads here are daemon threads: quitting
abandons them. Where the work can stop early, it is also told to.

- :func:`in_daemon_thread` runs one call on a fresh daemon thread and awaits it.
- :class:`LatestJob` runs at most one job at a time, on one daemon thread: a new
  job cancels the one running (through the cancel check it was given) and
  replaces the one waiting, so work for an old selection never piles up.
- :class:`DaemonExecutor` is a one-thread executor on a daemon thread (for
  ``loop.run_in_executor``).
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any, Generic, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


def _deliver(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[T],
    result: T | None,
    error: BaseException | None,
) -> None:
    """Hand a thread's outcome to ``future`` on its loop (nothing if the loop has closed)."""

    def settle() -> None:
        if future.done():
            return  # cancelled meanwhile
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    with contextlib.suppress(RuntimeError):  # a closed loop: the app quit, nobody waits
        loop.call_soon_threadsafe(settle)


async def in_daemon_thread(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` on a new daemon thread (abandoned, not joined, on quit)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def run() -> None:
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:  # handed to the awaiting coroutine
            _deliver(loop, future, None, exc)
        else:
            _deliver(loop, future, result, None)

    threading.Thread(target=run, name=getattr(fn, "__name__", "octui-job"), daemon=True).start()
    return await future


@dataclass
class _Job(Generic[T]):
    fn: Callable[[Callable[[], bool]], T]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[T]
    cancel: threading.Event = field(default_factory=threading.Event)


class LatestJob(Generic[T]):
    """The newest job only, one at a time, on one daemon thread.

    A job is ``fn(cancelled)``: it should call ``cancelled()`` between steps and stop
    when it answers True. :meth:`submit` cancels the running job, drops a waiting one
    (its future is cancelled) and returns the new job's future.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Condition()
        self._pending: _Job[T] | None = None
        self._running: _Job[T] | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, fn: Callable[[Callable[[], bool]], T]) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        job = _Job(fn, loop, loop.create_future())
        with self._lock:
            self._cancel_locked()
            if self._closed:
                job.future.cancel()
                return job.future
            self._pending = job
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                self._thread.start()
            self._lock.notify()
        return job.future

    def cancel(self) -> None:
        """Tell the running job to stop and drop the waiting one."""
        with self._lock:
            self._cancel_locked()

    def close(self) -> None:
        """Cancel everything; the thread ends (it is never joined)."""
        with self._lock:
            self._closed = True
            self._cancel_locked()
            self._lock.notify()

    @property
    def busy(self) -> bool:
        """A job is running or waiting (for tests)."""
        with self._lock:
            return self._running is not None or self._pending is not None

    def _cancel_locked(self) -> None:
        if self._running is not None:
            self._running.cancel.set()
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.cancel.set()
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits
                pending.loop.call_soon_threadsafe(pending.future.cancel)

    def _serve(self) -> None:
        while True:
            with self._lock:
                while self._pending is None and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                job = self._pending
                assert job is not None
                self._pending = None
                self._running = job
            result: T | None = None
            error: BaseException | None = None
            try:
                result = job.fn(job.cancel.is_set)
            except BaseException as exc:  # handed to the awaiting coroutine
                error = exc
            with self._lock:
                self._running = None
            _deliver(job.loop, job.future, result, error)


class DaemonExecutor(Executor):
    """One worker thread, a daemon, taking calls in order (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._shutdown = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot schedule new futures after shutdown")
            future: Future[T] = Future()
            self._queue.put((future, lambda: fn(*args, **kwargs)))
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                self._thread.start()
            return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            thread = self._thread
        if cancel_futures:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        self._queue.put(None)
        if wait and thread is not None:
            thread.join()

    def _serve(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            future, call = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = call()
            except BaseException as exc:  # handed to whoever awaits the future
                future.set_exception(exc)
            else:
                future.set_result(result)


__all__ = ["DaemonExecutor", "LatestJob", "in_daemon_thread"]
