"""The command palette (ctrl+p): set role, set as_of, jump to id, export, copy digest, ..."""

from __future__ import annotations

from functools import partial
from typing import Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from octui.core.suggest import close_matches
from octui.tui.features.registry import Features
from octui.tui.host import Command, Host
from octui.tui.literal import content, highlighted, line
from octui.tui.widgets.inputs import parse_as_of


class PaletteHost(Host, Protocol):
    """The app as the fixed commands see it: the :class:`~octui.tui.host.Host`, its
    features and the actions the commands run."""

    feature_set: Features

    def action_audit(self) -> None: ...

    async def action_edit(self) -> None: ...

    async def action_copy_digest(self) -> None: ...

    def action_flip(self, which: str) -> None: ...

    def action_cycle_reason(self) -> None: ...

    def action_reload(self) -> None: ...

    def action_help(self) -> None: ...


def fixed_commands(app: PaletteHost) -> list[Command]:
    """Fixed commands of the palette; dynamic ones (jump, as_of) are in :class:`OctuiCommands`."""
    commands: list[Command] = []
    repo = app.session.repository
    for role in sorted(repo.config.roles) if repo is not None else []:
        shown = line(role)  # shown as literal content (see OctuiCommands)
        commands.append((f"Set role: {shown}", partial(app.set_role, role), "resolve for it"))
    commands += [
        ("Set as_of: now", partial(app.set_as_of, None), "follow the clock"),
        (
            "Set as_of…",
            partial(app.focus_field, "#as-of"),
            "type a date (or: 'as_of 2026-03-15' here)",
        ),
        (
            "Export bundle",
            app.feature_set.export.action_export,
            "x: write the bundle JSON to a file",
        ),
        ("Audit the repository", app.action_audit, "u: every finding and role at once"),
        ("Open in editor", app.action_edit, "e: the selected object's file, at its line"),
        ("Copy digest", app.action_copy_digest, "to the terminal clipboard"),
        ("Toggle include-historical", partial(app.action_flip, "historical"), ""),
        ("Toggle strict", partial(app.action_flip, "strict"), ""),
        ("Filter exclusions by reason", app.action_cycle_reason, "cycle the reasons"),
        ("Reload from disk", app.action_reload, ""),
        ("Help (keys)", app.action_help, "F1"),
    ]
    return commands + app.feature_set.palette_commands()


class OctuiCommands(Provider):
    """Commands of the explorer. Other modules add theirs by adding a Provider to
    ``OctuiApp.COMMANDS``; each feature adds its own (``Feature.palette_commands``).

    Titles are plain text (they name roles and ids): they are shown as literal content,
    never parsed as markup.
    """

    @property
    def octui(self) -> Host:
        """The app, as its parts see it (this module never imports the app)."""
        return cast("Host", self.app)

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
        found = False
        for title, callback, help_text in self._jumps():
            score = matcher.match(title)
            if score > 0:
                found = True
                yield Hit(
                    score,
                    highlighted(matcher, title),
                    callback,
                    text=line(title),
                    help=help_text,
                )
        if found or any(matcher.match(title) > 0 for title, _, _ in self._fixed()):
            return
        for title, callback, help_text in self._suggestions(query.strip()):
            yield Hit(0.5, content(title), callback, text=line(title), help=help_text)

    def _jumps(self) -> list[Command]:
        """``Jump to <id>`` (its first row) and ``Jump to <id>@<version>`` for every row."""
        view = self.octui.view
        if view is None:
            return []
        refs: list[str] = []
        for inc in view.included:
            refs += [inc.obj.id, f"{inc.obj.id}@{inc.obj.version}"]
        for ex in view.exclusions:
            refs.append(ex.id)
            if ex.version is not None:
                refs.append(f"{ex.id}@{ex.version}")
        out: list[Command] = []
        for ref in dict.fromkeys(refs):  # each once, in table order
            where = "show it in the Included or Excluded pane"
            out.append((f"Jump to {ref}", partial(self.octui.action_jump, ref), where))
        return out

    def _suggestions(self, word: str) -> list[Command]:
        """ "Did you mean …" when nothing matches: the closest ids, refs and roles."""
        view = self.octui.view
        repo = self.octui.session.repository
        roles = list(repo.config.roles) if repo is not None else []
        refs = [t.removeprefix("Jump to ") for t, _, _ in self._jumps()]
        for prefix in ("jump to ", "set role: ", "role "):
            if word.lower().startswith(prefix):
                word = word[len(prefix) :]
        out: list[Command] = []
        for match in close_matches(word, [*refs, *roles]):
            if match in refs:
                out.append(
                    (
                        f"Did you mean {match}? (jump to it)",
                        partial(self.octui.action_jump, match),
                        f"nothing matches {word!r}",
                    )
                )
            else:
                out.append(
                    (
                        f"Did you mean role {match}? (set it)",
                        partial(self.octui.set_role, match),
                        f"nothing matches {word!r}",
                    )
                )
        del view
        if not out:
            out.append(
                (f"Nothing matches {word!r}", lambda: None, "try an id, a role or a command")
            )
        return out
