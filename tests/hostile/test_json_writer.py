"""The JSON every command prints is the same bytes whether orjson writes it or the standard
library does, over the whole hostile corpus: validate and resolve, JSON layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_util import GOOD, cli, write_repo
from test_corpus import AS_OF, CASES, Case

from octui.bundle import jsonout as fastjson


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_orjson_output_is_the_standard_librarys(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_repo(tmp_path / "repo", GOOD | case.files)
    if case.setup is not None:
        case.setup(root, monkeypatch)
    commands = [
        ["validate", str(root), "--as-of", AS_OF, "--format", "json"],
        ["resolve", str(root), "--role", "reader", "--as-of", AS_OF, "--format", "json"],
        [
            "resolve",
            str(root),
            "--role",
            "support",
            "--task",
            "good",
            "--as-of",
            AS_OF,
            "--format",
            "json",
        ],
    ]
    for argv in commands:
        argv = [*argv, "--no-cache"]
        fast = cli(argv)
        with monkeypatch.context() as m:
            m.setattr(fastjson, "_orjson", None)
            slow = cli(argv)
        assert (fast.code, fast.err) == (slow.code, slow.err)
        assert fast.out == _fixed(slow.out, fast.out)


def _fixed(slow: str, fast: str) -> str:
    """``slow`` with the volatile ``bundle_id`` and ``generated_at`` lines of ``fast``."""
    volatile = ('  "bundle_id": ', '  "generated_at": ')
    keep = {ln[: ln.index(":")]: ln for ln in fast.splitlines() if ln.startswith(volatile)}
    out = []
    for line in slow.splitlines(keepends=True):
        if line.startswith(volatile):
            line = keep[line[: line.index(":")]] + "\n"
        out.append(line)
    return "".join(out)
