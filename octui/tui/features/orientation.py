"""Finding one's way in the results: filter and sort a table, the warnings' filters,
whole-repository validation, and copying what is selected.

``/`` filters the table on show by id or text (the filter bar under the inputs follows
the tab on show); ``o`` sorts it by the next column; the palette narrows the Warnings tab
to errors or to one code, validates the whole repository at as_of (as ``opencontext
validate``) and copies the selected row's ``id@version``, its file's path or the bundle.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from textual.actions import SkipAction
from textual.binding import Binding
from textual.css.query import NoMatches

from octui.core.enums import Severity, WarningCode
from octui.core.model import Exclusion, Finding
from octui.core.textsafe import inert
from octui.resolve.result import Included
from octui.tui.background import in_daemon_thread
from octui.tui.features import Command, Feature
from octui.tui.messages import Row
from octui.tui.screens.validate import ValidateScreen, validate_lines
from octui.tui.widgets.filterbar import FilterBar
from octui.tui.widgets.rowtable import RowTable

TAB_TITLES = {
    "tab-included": "Included",
    "tab-excluded": "Excluded",
    "tab-warnings": "Warnings",
}


def ref_of(item: Row | None) -> str | None:
    """``id@version`` of a row (an id alone when the version is not known)."""
    if isinstance(item, Included):
        return f"{item.obj.id}@{item.obj.version}"
    if isinstance(item, Exclusion):
        return item.id if item.version is None else f"{item.id}@{item.version}"
    if isinstance(item, Finding) and item.ids:
        return item.ids[0]
    return None


def _has_code(code: WarningCode) -> Callable[[Finding], bool]:
    return lambda w: w.code is code


class Orientation(Feature):
    """The table filter and sort, the warnings' filters, validation, copying."""

    NAME = "orientation"
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("o", "sort", "Sort the table by the next column", show=False),
    ]
    FILTER = Binding(
        "slash",
        "filter",
        "Filter",
        tooltip="filter the table on show by id or text (Enter keeps, Esc clears)",
        priority=True,
    )
    """``/``: declared by the app among the keys that move into a field (a priority key)."""

    # -- filter and sort -----------------------------------------------------------------

    @property
    def filter_bar(self) -> FilterBar:
        return self.host.main.query_one(FilterBar)

    def action_filter(self) -> None:
        host = self.host
        host.focus_key()
        table = host.active_table()
        if table is None:
            raise SkipAction()
        bar = self.filter_bar
        bar.follow(table)
        bar.set_class(True, "-on")
        host.main.set_focus(bar.field)

    def follow_active_table(self) -> None:
        """The tab changed (or the rows did): the filter bar shows that table's filter."""
        try:
            bar = self.filter_bar
        except NoMatches:
            return
        bar.follow(self.host.active_table())

    def action_sort(self) -> None:
        table = self.host.active_table()
        if table is None:
            return
        label = table.cycle_sort()
        self.host.notify(f"sorted by {label}" if label else "in the original order", title="Sort")

    def set_warnings_condition(self, label: str | None, test: Callable[[Any], bool]) -> None:
        """Show only the warnings meeting ``test`` (None: all of them) on the Warnings tab."""
        self.host.action_show_tab("tab-warnings")
        table = self.host.main.query_one("#warnings-table", RowTable)
        table.set_predicate(None if label is None else (label, test))
        self.follow_active_table()

    # -- validate ------------------------------------------------------------------------

    def action_validate(self) -> None:
        """Judge the whole repository at as_of (as ``opencontext validate``) in a screen."""
        self.run(self._validate, name="validation", group="validate")

    async def _validate(self) -> None:
        host = self.host
        repo = host.session.repository
        if repo is None:
            host.notify("the repository is not loaded yet", severity="warning")
            return
        as_of = host.inputs.query(host.clock()).as_of
        cache = self.host.session.cache_for(repo)
        summary, lines = await in_daemon_thread(validate_lines, repo, as_of, cache)
        where = Path(host.root).name or str(host.root)
        if host.revision is not None:
            where += f" at revision {host.revision}"
        await host.push_screen(ValidateScreen(summary, lines, inert(where, keep_newlines=False)))

    # -- copy ----------------------------------------------------------------------------

    def _copy(self, text: str, what: str) -> None:
        self.host.copy_to_clipboard(text)
        shown = text if len(text) <= 80 else f"{len(text):,} characters"
        self.host.notify(inert(f"copied {shown}", keep_newlines=False), title=what)

    def action_copy_id(self) -> None:
        ref = ref_of(self.host.selected)
        if ref is None:
            self.host.notify("select a row first", severity="warning")
            return
        self._copy(ref, "Id")

    def action_copy_path(self) -> None:
        host = self.host
        item, view = host.selected, host.view
        if isinstance(item, Exclusion) and item.reason.is_denial:
            host.notify(f"{item.reason.value}: only id and reason are shown", severity="warning")
            return
        obj = view.object_of(item) if view and isinstance(item, (Included, Exclusion)) else None
        if obj is None:
            host.notify("select an object first", severity="warning")
            return
        self._copy(str(obj.path), "Path")

    def action_copy_bundle(self) -> None:
        if self.host.view is None:
            self.host.notify("nothing to copy yet", severity="warning")
            return
        self._copy(self.host.bundle_text(), "Bundle JSON")

    # -- the palette ---------------------------------------------------------------------

    def palette_commands(self) -> list[Command]:
        host = self.host
        commands: list[Command] = [
            (f"Show {title}", partial(host.action_show_tab, pane), f"tab {n}")
            for n, (pane, title) in enumerate(TAB_TITLES.items(), start=1)
        ]
        commands += [
            (
                "Validate the whole repository",
                self.action_validate,
                "every finding about every object at as_of, with its file (opencontext validate)",
            ),
            ("Filter the table…", self.action_filter, "/: rows whose id or text holds a word"),
            ("Sort the table by the next column", self.action_sort, "o"),
            ("Copy id@version of the selected row", self.action_copy_id, ""),
            ("Copy path of the selected object", self.action_copy_path, ""),
            ("Copy bundle JSON", self.action_copy_bundle, "what Export writes"),
            ("Warnings: show all", partial(self.set_warnings_condition, None, bool), ""),
            (
                "Warnings: errors only",
                partial(
                    self.set_warnings_condition,
                    "errors only",
                    lambda w: w.severity is Severity.ERROR,
                ),
                "the findings that make strict fail",
            ),
        ]
        view = host.view
        codes = (
            sorted({w.code for w in view.resolution.warnings}, key=lambda c: c.value)
            if view
            else []
        )
        for code in codes:
            condition = partial(self.set_warnings_condition, f"only {code.value}", _has_code(code))
            commands.append((f"Warnings: only {code.value}", condition, ""))
        return commands


__all__ = ["TAB_TITLES", "Orientation", "ref_of"]
