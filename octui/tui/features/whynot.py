""" "Why not": for an excluded object, what would include it, in the detail pane.

Each selection of an excluded (not denied) row asks :func:`octui.analysis.whynot.why_not`
on one background thread (:class:`~octui.tui.background.LatestJob`): a new selection
cancels the question it replaces, so at most one answer is computed at a time and an
older answer never overwrites a newer one.
"""

from __future__ import annotations

import asyncio
from functools import partial

from textual.css.query import NoMatches
from textual.widgets import Static

from octui.analysis.whatif import WhyNotCancelled
from octui.analysis.whynot import why_not
from octui.core.model import Exclusion
from octui.core.textsafe import inert
from octui.core.textsafe import markup_escape as escape
from octui.tui.auditapp import ROLES_DELAY
from octui.tui.background import LatestJob
from octui.tui.features import Feature
from octui.tui.host import Host
from octui.tui.messages import SelectionChanged
from octui.tui.state import View
from octui.tui.widgets.quiet import show_text


class WhyNot(Feature):
    """Answer "why not" for the selected excluded object."""

    NAME = "whynot"

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self.job: LatestJob[list[str]] = LatestJob("octui-whynot")
        """The one why-not thread: each selection cancels the answer it replaces."""

    def close(self) -> None:
        self.job.close()

    def _box(self) -> Static | None:
        try:
            detail = self.host.main.query_one("#detail")
        except NoMatches:
            return None
        try:
            return detail.query_one("#whynot", Static)
        except NoMatches:
            box = Static("", id="whynot")
            box.styles.margin = (0, 0, 1, 0)
            detail.mount(box, after="#why")
            return box

    def on_selection_changed(self, message: SelectionChanged) -> None:
        box = self._box()
        if box is None:
            return
        show_text(box, "")
        box.display = False
        # A new selection: the old question is not asked any more, whether its thread is
        # answering it (the job) or it still waits for the key's paint (the worker).
        self.job.cancel()
        self.cancel("whynot")
        view, item = message.view, message.item
        if view is None or not isinstance(item, Exclusion) or item.reason.is_denial:
            return
        uid = view.exclusion_uid.get(id(item))
        if uid is None:
            return
        painted = self.host.paints
        self.run(partial(self._why_not, view, uid, box, painted), name="why not", group="whynot")

    async def _why_not(self, view: View, uid: int, box: Static, painted: int) -> None:
        await self.host.after_paint(painted)  # the key's paint first; a newer selection
        await asyncio.sleep(ROLES_DELAY)  # cancels this wait
        resolution = view.resolution
        try:
            sentences = await self.job.submit(
                lambda cancelled: why_not(
                    resolution,
                    resolution.repository,
                    uid,
                    cancelled=cancelled,
                    cache=self.host.session.cache_for(resolution.repository),
                )
            )
        except WhyNotCancelled:
            return  # another selection asked a newer question
        if self.host.view is not view:
            return
        text = "\n".join(f"• {escape(inert(s, keep_newlines=False))}" for s in sentences)
        box.update(f"[b]Why not — what would include it[/b]\n{text}")
        box.display = bool(sentences)


__all__ = ["WhyNot"]
