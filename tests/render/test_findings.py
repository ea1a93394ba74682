"""Findings as text: one mark per finding, from one table, in every layout."""

from __future__ import annotations

from octui.analysis.diff_result import WarningView
from octui.core.enums import FindingMark, Severity, WarningCode
from octui.core.model import Finding
from octui.render.ansi import MARK_COLOURS
from octui.render.diff import _warning_text
from octui.render.findings import code_glyph, finding_lines, glyph


def test_every_code_has_the_mark_of_its_severity_and_staleness_its_own() -> None:
    for code in WarningCode:
        mark = FindingMark.of(code)
        if code is WarningCode.STALE:
            assert mark is FindingMark.STALE
        elif code.severity is Severity.ERROR:
            assert mark is FindingMark.ERROR
        else:
            assert mark is FindingMark.WARNING
    assert {FindingMark.of(code) for code in WarningCode} == set(FindingMark)


def test_the_table_gives_each_mark_a_style_and_a_terminal_colour() -> None:
    assert [(m.value, m.style) for m in FindingMark] == [
        ("✗", "bold red"),
        ("⚠", "yellow"),
        ("!", "yellow"),
    ]
    for mark in FindingMark:
        assert MARK_COLOURS[mark.value] == mark.ansi


def test_a_stale_finding_has_one_mark_in_explain_and_in_diff() -> None:
    stale = Finding(WarningCode.STALE, ("p",), "has not been updated")
    assert glyph(stale) == code_glyph("stale") == "!"
    assert finding_lines(stale)[0] == "! stale p: has not been updated"
    view = WarningView("stale", "warning", ("p",), "has not been updated", None)
    assert _warning_text(view) == "! stale p: has not been updated"
    broken = WarningView("broken-reference", "error", ("q",), "no such id", None)
    assert _warning_text(broken) == "✗ broken-reference q: no such id"
