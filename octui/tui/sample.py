"""Where the bundled sample repository lives.

A regular install carries it as package data (``octui/sample_repo``, copied at build
time by ``setup.py``); an editable install finds the top-level ``sample-repo/``
folder of the source checkout instead.
"""

from __future__ import annotations

from pathlib import Path

CONFIG = "opencontext.yaml"


def sample_repo() -> Path | None:
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "sample_repo", package.parent / "sample-repo"):
        if (candidate / CONFIG).is_file():
            return candidate
    return None


def default_repo(cwd: Path | None = None) -> Path | None:
    """The current folder when it holds ``opencontext.yaml``, else the sample repository."""
    here = cwd or Path.cwd()
    if (here / CONFIG).is_file():
        return here
    return sample_repo()
