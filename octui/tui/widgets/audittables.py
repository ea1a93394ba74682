r"""The audit view's two tables: every finding, and objects × roles.

:class:`FindingsTable` lists each finding with its code, ids, ``file:line`` and the roles
whose bundle carries it; :class:`MatrixTable` shows each object's fate in every role, with
a cell cursor over the roles. Both are :class:`~octui.tui.widgets.rowtable.RowTable`\ s
(rows formatted only when on screen); the screen (:mod:`octui.tui.screens.audit`) fills
and filters them, measuring in worker threads with :func:`where_widths` and
:func:`prepare_findings`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.reactive import reactive

from octui.analysis.audit import AuditFinding, AuditObject
from octui.core.enums import FindingMark
from octui.render.findings import glyph
from octui.tui.auditmodel import FindingsIndex, fate_cell, where
from octui.tui.literal import line as one_line
from octui.tui.measure import text_width
from octui.tui.widgets.cells import Cell, Column
from octui.tui.widgets.results import warning_ids_cell
from octui.tui.widgets.rowtable import RowTable


def _ids(f: AuditFinding) -> str:
    return warning_ids_cell(f.finding)


def _where(f: AuditFinding) -> str:
    return one_line(where(f))


def _finding_key(f: AuditFinding) -> tuple[object, ...]:
    w = f.finding
    return (w.code.value, w.ids, w.message, w.paths)


IDS, WHERE = 2, 3
"""The columns of :class:`FindingsTable` fitted to their cells: the ids and ``file:line``."""


def cell_widths(index: FindingsIndex) -> dict[int, tuple[int, int]]:
    """The width of each finding's ids and ``file:line`` cells (by ``id`` of the finding),
    measured once per index (in a worker thread) and kept beside it by the screen."""
    return {id(f): (text_width(_ids(f)), text_width(_where(f))) for f in index.findings}


def prepare_findings(
    table: RowTable,
    index: FindingsIndex,
    widths: dict[int, tuple[int, int]],
    text: str,
    severity: str,
) -> tuple[list[AuditFinding], dict[Hashable, int], dict[int, int]]:
    """The findings a filter keeps, indexed, and the widest of their ids and ``file:line``
    cells by column (in a worker thread, so a keystroke costs the UI thread only what is
    on screen)."""
    rows = index.filter(text, severity)
    measured = [widths[id(f)] for f in rows]
    widest = {
        IDS: max((ids for ids, _ in measured), default=0),
        WHERE: max((at for _, at in measured), default=0),
    }
    return rows, table.key_index(rows), widest


class FindingsTable(RowTable):
    """Every finding of the repository: severity, code, ids (cut in their middle, as every
    id), file:line, roles affected."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            [
                Column(" ", 1),
                Column("code", 24),
                Column("ids", None, min_width=10, fit=_ids, middle=True),
                Column("file:line", None, min_width=12, fit=_where, middle=True),
                Column("roles", None, min_width=12),
            ],
            self._row_cells,
            _finding_key,
            empty="(no findings)",
            id=id,
        )

    def _row_cells(self, f: AuditFinding, index: int) -> Sequence[Cell]:
        w = f.finding
        style = FindingMark.of(w.code).style
        return (
            (glyph(w), style),
            (w.code.value, style),
            (_ids(f), "bold"),
            (_where(f), ""),
            (one_line(", ".join(f.roles)) or "(no role)", "" if f.roles else "dim"),
        )


def _object_id(o: AuditObject) -> str:
    return one_line(o.obj.id)


class MatrixTable(RowTable):
    """Objects × roles; a cell cursor moves with left / right."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "column(-1)", "Previous role", show=False),
        Binding("right,l", "column(1)", "Next role", show=False),
    ]

    column: reactive[int] = reactive(0, init=False)
    """The role under the cell cursor (index into :attr:`roles`)."""

    def __init__(self, roles: Sequence[str], *, id: str | None = None) -> None:
        self.roles = list(roles)
        super().__init__(
            [
                Column("id", None, min_width=10, fit=_object_id),
                Column("v", 3, "right"),
                *(Column(one_line(r), 12) for r in self.roles),
            ],
            self._row_cells,
            lambda o: o.obj.path,
            empty="(no object matches)",
            id=id,
        )
        self.rendered: set[int] = set()
        """Row indices formatted since the last :meth:`forget_rendered` (for tests)."""

    def forget_rendered(self) -> None:
        self.rendered = set()

    def _row_cells(self, o: AuditObject, index: int) -> Sequence[Cell]:
        self.rendered.add(index)
        cells: list[Cell] = [(_object_id(o), "bold" if o.differs else ""), (str(o.obj.version), "")]
        for n, fate in enumerate(o.fates):
            text, style = fate_cell(fate)
            if index == self.cursor and n == self.column:
                style = f"{style} reverse bold"
            cells.append((text, style))
        return cells

    def widths(self, total: int) -> list[int]:
        """Role columns share what the id column leaves (at least 16 cells for it), at most
        12 cells each; the id column takes the rest."""
        n = len(self.roles)
        avail = total - 3 - (n + 1)
        role = min(12, max(6, (avail - 16) // n)) if n else 0
        return [max(avail - role * n, 4), 3, *([role] * n)]

    def action_column(self, delta: int) -> None:
        if self.roles:
            self.column = min(max(self.column + delta, 0), len(self.roles) - 1)

    def watch_column(self) -> None:
        self.refresh()

    @property
    def current_role(self) -> str | None:
        return self.roles[self.column] if self.roles else None


__all__ = ["FindingsTable", "MatrixTable", "cell_widths", "prepare_findings"]
