"""Orientation and feedback in the explorer: the context header, the table filter and
sort, whole-repository validation, copy, screenshots that land somewhere, reload notices,
and keys written as people read them.

:class:`ExplorerAids` is mixed into :class:`~octui.tui.app.OctuiApp` (before Textual's
``App``, so its :meth:`get_key_display` and :meth:`deliver_screenshot` are the ones
used). The app calls :meth:`show_context` whenever the inputs, revision or resolution
change and binds :data:`AID_BINDINGS`; the palette adds :meth:`aid_palette_commands`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.actions import SkipAction
from textual.binding import Binding
from textual.css.query import NoMatches

from octui.core.enums import Severity, WarningCode
from octui.core.model import Exclusion, Finding
from octui.core.textsafe import inert
from octui.resolve.result import Included
from octui.tui.background import in_daemon_thread
from octui.tui.keys import key_label
from octui.tui.screens.validate import ValidateScreen, validate_lines
from octui.tui.widgets.filterbar import FilterBar
from octui.tui.widgets.header import Context, ContextHeader, is_bundled_sample

if TYPE_CHECKING:
    from octui.tui.widgets.rowtable import RowTable

Command = tuple[str, Callable[[], object], str]

AID_BINDINGS = [
    Binding("o", "sort", "Sort the table by the next column", show=False),
]

TAB_TITLES = {
    "tab-included": "Included",
    "tab-excluded": "Excluded",
    "tab-warnings": "Warnings",
}


def changed_paths(old: tuple[object, ...], new: tuple[object, ...]) -> list[str]:
    """The files that differ between two session fingerprints (config first, then paths)."""
    if len(old) != 4 or len(new) != 4:  # no or a bad configuration on one side
        return ["opencontext.yaml"] if old != new else []
    out = ["opencontext.yaml"] if old[0] != new[0] else []
    before = {key[0]: key for key in old[1]}  # type: ignore[attr-defined]
    after = {key[0]: key for key in new[1]}  # type: ignore[attr-defined]
    out += [p for p in sorted(before.keys() | after.keys()) if before.get(p) != after.get(p)]
    if old[2:] != new[2:] and not out:
        out.append("(unreadable files or sources)")
    return out


def reload_note(paths: list[str]) -> str:
    """``reloaded: 1 file changed (policies/refunds.md)``, ``reloaded: 3 files changed``."""
    if not paths:
        return "reloaded: no file changed"
    n = len(paths)
    note = f"reloaded: {n} file{'s' if n != 1 else ''} changed"
    if n <= 3:
        note += " (" + ", ".join(paths) + ")"
    return note


def screenshot_folder(home: Path | None = None) -> tuple[Path, str | None]:
    """Where a screenshot goes: ``~/Downloads`` when it is a writable folder, else the
    system's temporary folder; the second value says why ``~/Downloads`` was not used."""
    downloads = (home or Path.home()) / "Downloads"
    if downloads.is_dir() and os.access(downloads, os.W_OK):
        return downloads, None
    why = f"{downloads} is not writable" if downloads.is_dir() else f"{downloads} does not exist"
    return Path(tempfile.gettempdir()), why


def _safe_name(text: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in text)


def ref_of(item: Included | Exclusion | Finding | None) -> str | None:
    """``id@version`` of a row (an id alone when the version is not known)."""
    if isinstance(item, Included):
        return f"{item.obj.id}@{item.obj.version}"
    if isinstance(item, Exclusion):
        return item.id if item.version is None else f"{item.id}@{item.version}"
    if isinstance(item, Finding) and item.ids:
        return item.ids[0]
    return None


class ExplorerAids:
    """Mixin for OctuiApp (see the module docstring)."""

    @property
    def _octui(self) -> Any:
        return self

    # -- keys ---------------------------------------------------------------------------

    def get_key_display(self, binding: Binding) -> str:
        """Keys as people read them (``Esc``, ``,``, ``?``), in the footer and the help."""
        if binding.key_display:
            return binding.key_display
        return key_label(binding.key.split(",")[0])

    # -- the context header --------------------------------------------------------------

    def show_context(self) -> None:
        app = self._octui
        try:
            header = app.main.query_one(ContextHeader)
        except NoMatches:
            return
        view = app.view
        repo = app.session.repository
        known_at = repo.source.known_at if repo is not None else None
        following = app.inputs.as_of is None
        as_of = app.inputs.as_of if not following else (view.query.as_of if view else None)
        root = Path(app.root)
        header.show(
            Context(
                repository=root.name or str(root),
                bundled_sample=is_bundled_sample(root),
                revision=getattr(app, "revision", None),
                commit=getattr(app, "revision_commit", None),
                known_at=known_at if getattr(app, "revision", None) is not None else None,
                role=app.inputs.role,
                task=app.inputs.task,
                as_of=as_of,
                following_now=following,
            )
        )

    # -- filter and sort -----------------------------------------------------------------

    @property
    def filter_bar(self) -> FilterBar:
        bar: FilterBar = self._octui.main.query_one(FilterBar)
        return bar

    def action_filter(self) -> None:
        app = self._octui
        app._focus_key()
        table = app._active_table()
        if table is None:
            raise SkipAction()
        bar = self.filter_bar
        bar.follow(table)
        bar.set_class(True, "-on")
        app.main.set_focus(bar.field)

    def follow_active_table(self) -> None:
        """The tab changed (or the rows did): the filter bar shows that table's filter."""
        try:
            bar = self.filter_bar
        except NoMatches:
            return
        bar.follow(self._octui._active_table())

    def action_sort(self) -> None:
        app = self._octui
        table: RowTable | None = app._active_table()
        if table is None:
            return
        label = table.cycle_sort()
        app.notify(f"sorted by {label}" if label else "in the original order", title="Sort")

    def set_warnings_condition(self, label: str | None, test: Callable[[Any], bool]) -> None:
        """Show only the warnings meeting ``test`` (None: all of them) on the Warnings tab."""
        app = self._octui
        app.action_show_tab("tab-warnings")
        table = app.main.query_one("#warnings-table")
        table.set_predicate(None if label is None else (label, test))
        self.follow_active_table()

    # -- validate ------------------------------------------------------------------------

    @work(exclusive=True, group="validate", exit_on_error=False)
    async def action_validate(self) -> None:
        """Judge the whole repository at as_of (as ``opencontext validate``) in a screen."""
        app = self._octui
        repo = app.session.repository
        if repo is None:
            app.notify("the repository is not loaded yet", severity="warning")
            return
        as_of = app.inputs.query(app.clock()).as_of
        cache = app.session.cache_for(repo)
        summary, lines = await in_daemon_thread(validate_lines, repo, as_of, cache)
        revision = getattr(app, "revision", None)
        where = Path(app.root).name or str(app.root)
        if revision is not None:
            where += f" at revision {revision}"
        await app.push_screen(ValidateScreen(summary, lines, inert(where, keep_newlines=False)))

    # -- copy ----------------------------------------------------------------------------

    def _copy(self, text: str, what: str) -> None:
        app = self._octui
        app.copy_to_clipboard(text)
        shown = text if len(text) <= 80 else f"{len(text):,} characters"
        app.notify(inert(f"copied {shown}", keep_newlines=False), title=what)

    def action_copy_id(self) -> None:
        ref = ref_of(self._octui.selected)
        if ref is None:
            self._octui.notify("select a row first", severity="warning")
            return
        self._copy(ref, "Id")

    def action_copy_path(self) -> None:
        app = self._octui
        item = app.selected
        view = app.view
        if isinstance(item, Exclusion) and item.reason.is_denial:
            app.notify(f"{item.reason.value}: only id and reason are shown", severity="warning")
            return
        obj = view.object_of(item) if view and isinstance(item, (Included, Exclusion)) else None
        if obj is None:
            app.notify("select an object first", severity="warning")
            return
        self._copy(str(obj.path), "Path")

    def action_copy_bundle(self) -> None:
        if self._octui.view is None:
            self._octui.notify("nothing to copy yet", severity="warning")
            return
        self._copy(self._octui.bundle_text(), "Bundle JSON")

    # -- screenshots ---------------------------------------------------------------------

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Save a screenshot; without a folder, in ``~/Downloads`` or (when that is not a
        writable folder) the temporary folder — and say where, and why there."""
        app = self._octui
        if app.is_web or path is not None:
            return super().deliver_screenshot(filename, path, time_format)  # type: ignore[misc,no-any-return]
        folder, why = screenshot_folder()
        stamp = datetime.now().strftime(time_format or "%Y-%m-%dT%H_%M_%S")
        name = filename or f"{_safe_name(app.title)}_{stamp}.svg"
        try:
            written = app.save_screenshot(name, str(folder))
        except OSError as exc:
            app.notify(
                inert(f"screenshot not saved in {folder}: {exc.strerror or exc}"),
                severity="error",
                title="Screenshot",
            )
            return None
        note = f"saved {written}" + (f" ({why})" if why else "")
        app.notify(inert(note), title="Screenshot")
        return None

    # -- the palette ---------------------------------------------------------------------

    def aid_palette_commands(self) -> list[Command]:
        app = self._octui
        commands: list[Command] = [
            (f"Show {title}", partial(app.action_show_tab, pane), f"tab {n}")
            for n, (pane, title) in enumerate(TAB_TITLES.items(), start=1)
        ]
        commands += [
            (
                "Validate the whole repository",
                app.action_validate,
                "every finding about every object at as_of, with its file (opencontext validate)",
            ),
            ("Filter the table…", app.action_filter, "/: rows whose id or text holds a word"),
            ("Sort the table by the next column", app.action_sort, "o"),
            ("Copy id@version of the selected row", app.action_copy_id, ""),
            ("Copy path of the selected object", app.action_copy_path, ""),
            ("Copy bundle JSON", app.action_copy_bundle, "what Export writes"),
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
        view = app.view
        codes = (
            sorted({w.code for w in view.resolution.warnings}, key=lambda c: c.value)
            if view
            else []
        )
        for code in codes:
            commands.append(
                (
                    f"Warnings: only {code.value}",
                    partial(self.set_warnings_condition, f"only {code.value}", _has_code(code)),
                    "",
                )
            )
        return commands


def _has_code(code: WarningCode) -> Callable[[Finding], bool]:
    return lambda w: w.code is code
