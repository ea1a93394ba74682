"""A small, bounded table of values derived from one owner's inputs, each computed once.

A :class:`Memo` belongs to the thing whose inputs its values derive from — a
:class:`~octui.resolve.cache.ResolutionCache` (the repository: the digest's encoded pieces) or
a stage of the engine (one role, instant and ``include_historical``: the ranking's fixed
order, the task tokens it has matched, the digests of its resolutions, the width of its
included ids as the explorer measures them) — and dies with it.
Nothing is ever stuffed on the objects its values describe.

Thread-safety follows the resolution cache's rule: one lock guards the table, nothing is
computed while it is held, and a value computed twice (two threads racing for one key) is
stored once — the first stored wins and both callers get it. Every value must be a pure
function of its key and the owner, and is never changed once stored.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Hashable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

T = TypeVar("T")

_MISSING = object()


class Memo:
    """Values by key, at most ``bound`` of them (the table is emptied whole when full: the
    values are cheap to compute again, and a memo never grows without limit)."""

    __slots__ = ("_bound", "_lock", "_values")

    def __init__(self, bound: int = 256) -> None:
        self._bound = bound
        self._lock = threading.Lock()
        self._values: dict[Hashable, Any] = {}

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value under ``key``, computed by ``compute()`` (outside the lock) if missing."""
        found = self._values.get(key, _MISSING)  # a dict read is atomic; values never change
        if found is not _MISSING:
            return found  # type: ignore[no-any-return]
        made = compute()
        with self._lock:
            if len(self._values) >= self._bound and key not in self._values:
                self._values.clear()
            return self._values.setdefault(key, made)  # type: ignore[no-any-return]

    def known(self, key: Hashable) -> Any | None:
        """The value under ``key`` if one is kept (never computes)."""
        return self._values.get(key)

    def put(self, key: Hashable, value: Any) -> Any:
        """Keep ``value`` under ``key`` unless one is kept already; the one kept."""
        with self._lock:
            if len(self._values) >= self._bound and key not in self._values:
                self._values.clear()
            return self._values.setdefault(key, value)

    def __len__(self) -> int:
        return len(self._values)

    def items(self) -> list[tuple[Hashable, Any]]:
        """The values kept, with their keys (a copy)."""
        with self._lock:
            return list(self._values.items())


@runtime_checkable
class Carries(Protocol):
    """A repository memo's value that can serve the repository a reload makes by replacing
    a few objects in place (see :mod:`octui.resolve.carry`)."""

    def carried(self, objects: Sequence[Any], replaced: Collection[int]) -> object:
        """The same value for the repository whose objects are ``objects``, the places
        ``replaced`` holding new objects (what was derived from them dropped)."""
        ...


class ResolutionMemos:
    """The memos a resolution may draw on: its repository's (the resolution cache's; None
    without one) and its stage's. Set by the engine on the resolutions it makes."""

    __slots__ = ("repository", "stage")

    def __init__(self, repository: Memo | None, stage: Memo) -> None:
        self.repository, self.stage = repository, stage
