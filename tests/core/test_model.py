"""The objects of the specification: rules defined once on them."""

from __future__ import annotations

from octui.core.enums import Severity, WarningCode
from octui.core.model import Finding, count_errors


def test_count_errors_counts_the_findings_of_error_severity() -> None:
    findings = [Finding(code, ("x",), "m") for code in WarningCode]
    errors = sum(1 for code in WarningCode if code.severity is Severity.ERROR)
    assert count_errors(findings) == errors == 7
    assert count_errors(iter(findings)) == errors  # any iterable, read once
    assert count_errors([]) == 0
