"""The installed distribution's version, and the ``--version`` flag both commands share.

The version is read from the installed package's metadata (``importlib.metadata``), so
what ``--version`` prints is what pip installed; ``octui.core.version`` is the single
place it is written (``pyproject.toml`` reads it from there at build time).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from octui.core.version import __version__

DISTRIBUTION = "octui"


def package_version() -> str:
    """The installed version of octui, or ``octui.__version__`` when it is not installed."""
    from importlib import metadata  # asked for only by --version: not at every start-up

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return __version__


class VersionAction(argparse.Action):
    """``--version``: print ``PROG VERSION`` on stdout and exit 0 (looked up only when asked)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "print the version and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        sys.stdout.write(f"{parser.prog} {package_version()}\n")
        parser.exit(0)


def add_version_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action=VersionAction)
