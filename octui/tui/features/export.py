"""Export the bundle on screen (``x``): the JSON ``opencontext resolve --format json`` prints.

The file is written atomically, never inside the repository and never over an existing
file without asking (:mod:`octui.tui.exporting`); in a browser session it goes to the
viewer's browser instead, never onto the server.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual.binding import Binding

from octui.core.textsafe import inert
from octui.tui.exporting import ExportExists, ExportRefused, default_export_path, write_atomic
from octui.tui.features import Feature
from octui.tui.screens.export import ExportScreen
from octui.tui.state import View
from octui.tui.web import deliver_bundle


class Export(Feature):
    """Write the current bundle to a file (or hand it to the browser)."""

    NAME = "export"
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("x", "export", "Export", tooltip="export the bundle (JSON) to a file"),
    ]

    async def action_export(self) -> None:
        host = self.host
        view = host.view
        if view is None:
            host.notify("nothing to export yet", severity="warning")
            return
        found = await host.digest_of(view)  # (a new view's may still be being computed)
        while host.view is not None and host.view is not view:  # a newer one came meanwhile
            view = host.view
            found = await host.digest_of(view)
        default = default_export_path(
            host.root, view.query.role, as_of=view.query.as_of, digest=found
        )
        if host.is_web:  # the file goes to the viewer's browser, never onto the server
            deliver_bundle(host, await asyncio.to_thread(host.bundle_text, view), default.name)
            return
        summary = (
            f"role {inert(str(view.query.role), keep_newlines=False)} · "
            f"{len(view.included)} objects · digest {found[:19]}…"
        )

        def done(result: tuple[Path, bool] | None) -> None:
            if result is not None:
                self.export_to(result[0], overwrite=result[1], view=view)

        host.push_screen(ExportScreen(default, host.root, summary), done)

    def export_to(self, path: Path, *, overwrite: bool = False, view: View | None = None) -> None:
        """Write ``view``'s bundle (None: the view on show) atomically; never into the
        repository. The export dialog passes the view its summary described, so a view
        that came while it was open is not what gets written."""
        self.run(partial(self._export_to, path, overwrite, view), name="the export", group="export")

    async def _export_to(self, path: Path, overwrite: bool, view: View | None) -> Path | None:
        host = self.host
        root = host.root

        def write() -> Path:  # the bundle's JSON (megabytes at 50k objects) off the UI thread
            return write_atomic(path, host.bundle_text(view), root, overwrite=overwrite)

        try:
            written = await asyncio.to_thread(write)
        except ExportExists as exc:
            host.notify(inert(f"{exc}; not overwritten"), severity="warning", markup=False)
            return None
        except ExportRefused as exc:
            host.notify(inert(str(exc)), severity="error", title="Export refused", markup=False)
            return None
        host.notify(inert(f"wrote {written}"), title="Exported", markup=False)
        return written


__all__ = ["Export"]
