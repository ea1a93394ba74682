"""The command palette (ctrl+p): set role, set as_of, jump to id, export, copy digest, ..."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from octui.tui.literal import content, highlighted, line
from octui.tui.widgets.inputs import parse_as_of

if TYPE_CHECKING:
    from octui.tui.app import OctuiApp

Command = tuple[str, Callable[[], object], str]


class OctuiCommands(Provider):
    """Commands of the explorer. Other modules add theirs by adding a Provider to
    ``OctuiApp.COMMANDS`` or by extending :meth:`OctuiApp.palette_commands`.

    Titles are plain text (they name roles and ids): they are shown as literal content,
    never parsed as markup.
    """

    @property
    def octui(self) -> OctuiApp:
        return cast("OctuiApp", self.app)

    def _fixed(self) -> list[Command]:
        return self.octui.palette_commands()

    async def discover(self) -> Hits:
        for title, callback, help_text in self._fixed():
            yield DiscoveryHit(content(title), callback, text=line(title), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._fixed():
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score, highlighted(matcher, title), callback, text=line(title), help=help_text
                )
        text = query.strip()
        for prefix in ("set as_of", "as_of", "as of"):
            if text.lower().startswith(prefix):
                text = text[len(prefix) :].strip()
                break
        ok, when = parse_as_of(text)
        if ok and when is not None:
            title = f"Set as_of to {text}"
            yield Hit(1.0, content(title), partial(self.octui.set_as_of, when), text=line(title))
        if len(query.strip()) < 2:
            return
        view = self.octui.view
        if view is None:
            return
        seen: set[str] = set()
        ids = [i.obj.id for i in view.included] + [e.id for e in view.exclusions]
        for object_id in ids:
            if object_id in seen:
                continue
            seen.add(object_id)
            title = f"Jump to {object_id}"
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score,
                    highlighted(matcher, title),
                    partial(self.octui.action_jump, object_id),
                    text=line(title),
                    help="show it in the Included or Excluded pane",
                )
