"""The arguments ``opencontext``'s commands share, declared once, and their value types.

Every command that reads a repository takes the same ``REPO`` (default: the current
folder), ``--as-of``, ``--rev``, ``--known-at`` and ``--no-cache``, and a ``--format``;
``resolve``, ``history``, ``diff`` and ``changes`` share ``--role`` and ``--task``;
every command takes ``--color``. A command words a shared option's help for itself
(``diff`` says which side) but never redeclares its type, default or metavar.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from datetime import datetime

from octui.core.enums import ColorMode
from octui.core.timeutil import parse_instant

Parser = argparse.ArgumentParser | argparse._ArgumentGroup

# -- value types ----------------------------------------------------------------------------------


def when(text: str) -> datetime:
    """An argparse type: a date (its midnight UTC) or an RFC 3339 instant, as UTC."""
    try:
        return parse_instant(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def whole_number(minimum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number, at least ``minimum`` when one is given."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"expected {minimum} or more, got {value}")
        return value

    return parse


non_negative_int = whole_number(0)


def number(text: str) -> float:
    """An argparse type: a finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def examples(*lines: str) -> str:
    """A command's epilog: its example command lines."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


# -- the repository read --------------------------------------------------------------------------

REPO_HELP = "the repository folder (default: the current folder)"

REV_HELP = (
    "read the repository as it was at this git revision (from git objects; the "
    "working tree is never touched). Not the same as --as-of: --rev is what the repository "
    "said then, --as-of is what was in effect then"
)

KNOWN_AT_HELP = (
    "read the repository as committed at the last first-parent commit of HEAD whose "
    "committer date is at or before WHEN (YYYY-MM-DD or RFC 3339; a date is its midnight "
    "UTC): what the repository said then. --as-of still picks what was in effect. "
    "Not with --rev"
)

NO_CACHE_HELP = (
    "parse every file; neither read nor write the parse cache in the user's cache "
    "directory (also: OCTUI_NO_CACHE=1). The cache never changes results"
)


def rev_help(side: str = "") -> str:
    """``--rev``'s short help for one side of a comparison (``side``: "side A", "side B"),
    or with ``side`` empty for the one repository."""
    what = f"read {side} from the repository" if side else "read the repository"
    return (
        f"{what} as it was at this git revision (from git objects; the working tree is never "
        "touched)"
    )


def add_repo_arg(p: Parser, *, default: str | None = ".") -> None:
    """``REPO``, the same on every command that reads a repository. Its default is the
    current folder; only ``verify`` leaves it None, to tell a second folder apart."""
    p.add_argument("repo", nargs="?", default=default, metavar="REPO", help=REPO_HELP)


def add_as_of_arg(p: Parser, what: str = "YYYY-MM-DD or RFC 3339 (default: now)") -> None:
    """``--as-of WHEN``, parsed to a UTC instant (None: now)."""
    p.add_argument("--as-of", type=when, default=None, metavar="WHEN", help=what)


def add_rev_arg(p: Parser, help: str = REV_HELP, flag: str = "--rev") -> None:
    """``--rev GIT_REV`` (or ``flag``): read the repository from a git revision."""
    p.add_argument(flag, metavar="GIT_REV", default=None, help=help)


def add_known_at_arg(p: Parser, flag: str = "--known-at", *, help: str = KNOWN_AT_HELP) -> None:
    """``--known-at WHEN`` (or ``flag``): read the commit known at an instant."""
    p.add_argument(flag, type=when, default=None, metavar="WHEN", help=help)


def add_no_cache_arg(p: Parser) -> None:
    """``--no-cache``: neither read nor write the persistent parse cache."""
    p.add_argument("--no-cache", action="store_true", help=NO_CACHE_HELP)


def add_source_args(
    p: Parser, *, rev_help: str = REV_HELP, known_at_help: str = KNOWN_AT_HELP
) -> None:
    """Which files are read: ``--rev``, ``--known-at`` and ``--no-cache``."""
    add_rev_arg(p, rev_help)
    add_known_at_arg(p, help=known_at_help)
    add_no_cache_arg(p)


# -- the query ------------------------------------------------------------------------------------


def add_role_arg(p: Parser, *, required: bool) -> None:
    p.add_argument(
        "--role",
        "-r",
        required=required,
        metavar="R",
        help="the consumer role (declared in opencontext.yaml)",
    )


def add_task_arg(p: Parser, help: str = "what the agent is doing") -> None:
    p.add_argument("--task", "-t", default="", metavar="T", help=help)


def add_repo_args(p: Parser, *, role_required: bool) -> None:
    """``REPO``, ``--role`` and ``--as-of``: the repository and whom and when it is for."""
    add_repo_arg(p)
    add_role_arg(p, required=role_required)
    add_as_of_arg(p, "the instant to resolve at: YYYY-MM-DD or RFC 3339 (default: now)")


def add_format_arg(
    p: Parser, help: str, *, choices: Sequence[str] = ("text", "json"), default: str = "text"
) -> None:
    """``--format``: the layout printed."""
    p.add_argument("--format", choices=list(choices), default=default, help=help)


def add_color_arg(p: Parser) -> None:
    """``--color``: whether the marks of the text layouts are coloured."""
    p.add_argument(
        "--color",
        choices=[m.value for m in ColorMode],
        default=ColorMode.AUTO.value,
        help="colour the marks (✓ ✗ ⚠ !) of the text layouts; auto: only on a terminal and "
        "when NO_COLOR is unset or empty (default: auto). JSON is never coloured",
    )
