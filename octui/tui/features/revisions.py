"""Git revisions in the explorer: resolve the repository as it was at a commit.

``g`` picks a revision (:class:`~octui.tui.screens.revisions.RevisionScreen`); the session
then reads the repository from git objects (:class:`~octui.load.gittree.GitTree`), nothing
checked out. Any feature asks for another revision by posting
:class:`~octui.tui.messages.RevisionRequested`; once the session reads it the app posts
:class:`~octui.tui.messages.RevisionChanged`. The persistent parse cache belongs to the
files on disk: it is kept aside while a revision is read and used again on the way back.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from functools import partial
from typing import ClassVar

from textual.binding import Binding

from octui.load.gitrun import GitRevisionError
from octui.load.gittree import GitTree
from octui.load.loader import ParseStore
from octui.load.revisions import list_revisions
from octui.session import Session
from octui.tui.features import Command, Feature
from octui.tui.messages import RevisionRequested
from octui.tui.screens.revisions import WORKING_TREE, RevisionScreen


class Revisions(Feature):
    """Pick a git revision and have the session read the repository there."""

    NAME = "revisions"
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("g", "pick_revision", "Git revision: what the repository said then", show=False),
    ]

    disk_store: ParseStore | None = None
    """The persistent parse cache of the files on disk, kept while a revision is read."""

    def palette_commands(self) -> list[Command]:
        commands: list[Command] = [
            ("Git revision…", self.action_pick_revision, "g: what the repository said at a commit")
        ]
        if self.host.revision is not None:
            back = RevisionRequested(None)
            commands.append(
                (
                    "Back to the working tree",
                    lambda: self.host.post_message(back),
                    "the files on disk",
                )
            )
        return commands

    def action_pick_revision(self) -> None:
        self.run(self._pick, name="the revision list", group="revisions")

    async def _pick(self) -> None:
        host = self.host
        try:
            revisions = await asyncio.to_thread(list_revisions, host.root)
        except GitRevisionError:
            host.notify(
                f"{host.root} is not inside a git repository: there are no revisions to read",
                severity="warning",
            )
            return

        def done(choice: str | None) -> None:
            if choice is not None:
                self.set_revision(None if choice == WORKING_TREE else choice)

        host.push_screen(RevisionScreen(revisions, host.revision_commit), done)

    def _keep_disk_store(self) -> None:
        if self.host.revision is None:
            # The persistent parse cache belongs to the files on disk; a revision never
            # writes into it (one entry per path would thrash it).
            self.disk_store = self.host.session.loader.store

    def set_revision(self, rev: str | None, known_at: datetime | None = None) -> None:
        """Read the repository at ``rev`` (None: the files on disk) and reload; ``known_at``
        is the instant it was chosen for (the bundle's source says so)."""
        self.run(
            partial(self._set_revision, rev, known_at),
            name="reading the revision",
            group="revision",
        )

    async def _set_revision(self, rev: str | None, known_at: datetime | None) -> None:
        host = self.host
        old = host.session
        self._keep_disk_store()
        if rev is None:
            session, commit = Session(host.root, store=self.disk_store), None
        else:
            try:
                tree = await asyncio.to_thread(GitTree, host.root, rev)
            except GitRevisionError as exc:
                host.notify(str(exc), severity="error", title="Revision")
                return
            tree.known_at = known_at
            session, commit = Session(host.root, tree=tree), tree.commit
        host.use_session(session, rev, commit)
        if isinstance(old.tree, GitTree):
            old.tree.close()
        host.reload_repository()

    def start_at(self, rev: str, known_at: datetime | None = None) -> str:
        """Open the explorer on git revision ``rev`` (before it runs; raises
        GitRevisionError). Returns the commit read."""
        tree = GitTree(self.host.root, rev)
        tree.known_at = known_at
        self._keep_disk_store()
        self.host.use_session(Session(self.host.root, tree=tree), rev, tree.commit)
        return tree.commit


__all__ = ["Revisions"]
