"""``opencontext changes``: its help."""

from __future__ import annotations

from cli.helpers import help_text


def test_changes_help_reads_cleanly() -> None:
    text = help_text("changes")
    assert "as the repository was" not in text  # no "read the repository as the repository"
    assert "read the repository as it was at this git" in text
    assert "a duration counted from --as-of (90d)" in " ".join(text.split())
