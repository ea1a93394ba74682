"""The explorer's features, one module each, composed into the app (never mixed in).

How a feature owns its keys, actions and workers:

- A feature is a plain object (:class:`Feature`) the app constructs with itself as the
  :class:`~octui.tui.host.Host` — the small protocol of what a feature may see and ask of
  the app. No feature imports the app.
- It declares ``BINDINGS`` with plain action names and defines the ``action_*`` methods.
  The app declares them among its own bindings through :func:`bindings_of`, which routes
  each one through the app's single ``feature(name, action)`` action to the feature
  object: so the keys work on the explorer's screen whatever has the focus (as any app
  binding), show in the footer and in F1 help from the binding itself, and are switched
  off by the app's ``check_action`` like every other key (on the error and audit views).
- Its workers run on the app (:meth:`Feature.run`), named after what they do, so the
  app's one ``Worker.StateChanged`` handler reports any feature's failure.
- It hears the app's messages (:mod:`octui.tui.messages`) through the ``on_*`` hooks
  below, which the app's message handlers call for every feature in turn; it asks the
  app for things by posting messages or through the host's methods.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, ClassVar

from textual.binding import Binding
from textual.worker import Worker

from octui.tui.host import Command, Host
from octui.tui.messages import RevisionChanged, SelectionChanged, ViewApplied


class Feature:
    """One feature of the explorer: its keys, actions, workers and message hooks."""

    NAME: ClassVar[str]
    """The name its bindings are routed by (``feature(NAME, action)``)."""
    BINDINGS: ClassVar[list[Binding]] = []
    """Its keys, with plain action names (``pin`` runs :meth:`action_pin` here)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        """The app, as far as a feature may see it."""

    def run(
        self, work: Callable[[], Coroutine[Any, Any, object]], *, name: str, group: str
    ) -> Worker[Any]:
        """Run ``work()`` as an exclusive worker of the app (its failure is reported); a
        newer one of the ``group`` cancels it (before it starts, if it has not yet)."""
        # the description is the name: else Textual builds one from repr(work), and a
        # partial's repr prints its arguments (a view: the whole repository)
        return self.host.run_worker(
            work, name=name, group=group, description=name, exclusive=True, exit_on_error=False
        )

    def cancel(self, group: str) -> None:
        """Cancel the ``group``'s workers: what they would show is no longer asked for, and
        no newer worker of the group comes to replace them (which :meth:`run` would)."""
        for worker in self.host.workers:
            if worker.group == group:
                worker.cancel()

    def on_view_applied(self, message: ViewApplied) -> None:
        """A new resolution is on screen."""

    def on_selection_changed(self, message: SelectionChanged) -> None:
        """The selected row changed."""

    def on_revision_changed(self, message: RevisionChanged) -> None:
        """The session now reads another revision."""

    def palette_commands(self) -> list[Command]:
        """Its commands in the command palette."""
        return []

    def close(self) -> None:
        """The app is quitting: stop background work nobody will wait for."""


def bindings_of(feature: type[Feature], bindings: list[Binding] | None = None) -> list[Binding]:
    """``feature``'s bindings (or the ``bindings`` of it given) as the app declares them:
    each action routed to the feature."""
    return [
        replace(b, action=f"feature({feature.NAME!r}, {b.action!r})")
        for b in (feature.BINDINGS if bindings is None else bindings)
    ]


__all__ = ["Command", "Feature", "bindings_of"]
