"""``opencontext``: the command line over the resolver core.

Every subcommand is a module of this package, listed once in :data:`COMMANDS`: its
``add_parser(sub, name)`` declares its arguments (the shared ones come from
:mod:`octui.cli.args`) and its ``run(args)`` returns an :class:`~octui.core.enums.ExitCode`.

Exit codes: 0 done; 1 a strict run failed (or ``validate`` found errors, or with
``--fail-on warning`` any finding);
2 a usage or configuration error, reported as one line on stderr — :func:`main` is the one
place such errors are caught.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, NoReturn

from octui.load.heap import gc_paused, holding_made

# Importing the command line makes some fifteen thousand objects the cyclic collector tracks,
# all but a few hundred alive until the process ends: its passes meanwhile (a score of them)
# find next to nothing, about 4 ms of a run.
with gc_paused():
    from octui.cli import (
        audit,
        changes,
        completion,
        diff,
        history,
        resolve,
        schema,
        synth,
        validate,
        verify,
    )
    from octui.cli.args import add_color_arg
    from octui.cli.common import UsageError
    from octui.cli.version import add_version_flag
    from octui.core.enums import ColorMode, ExitCode
    from octui.core.suggest import did_you_mean
    from octui.core.textsafe import inert
    from octui.render.ansi import colour_enabled
    from octui.resolve.result import UnknownRole

#: Every subcommand, in the order ``opencontext --help`` lists them: its name and its module.
COMMANDS: tuple[tuple[str, ModuleType], ...] = (
    ("resolve", resolve),
    ("validate", validate),
    ("history", history),
    ("diff", diff),
    ("changes", changes),
    ("synth", synth),
    ("completion", completion),
    ("schema", schema),
    ("audit", audit),
    ("verify", verify),
)

#: The user's mistakes, reported as one line on stderr, exit 2: these, and the analysis
#: modules' own (:func:`user_errors`).
USER_ERRORS: tuple[type[Exception], ...] = (UsageError, UnknownRole)
_ANALYSIS_ERRORS = (
    ("octui.analysis.history", "UnknownId"),
    ("octui.analysis.verify", "VerifyError"),
)


def user_errors() -> tuple[type[Exception], ...]:
    """:data:`USER_ERRORS` and the mistakes the analysis modules raise (an unknown id, a bundle
    that cannot be verified). Those modules are imported only by the commands that use them,
    and an error of a module never imported cannot have been raised."""
    found = list(USER_ERRORS)
    for module, name in _ANALYSIS_ERRORS:
        loaded = sys.modules.get(module)
        if loaded is not None:
            found.append(getattr(loaded, name))
    return tuple(found)


class HelpFormatter(argparse.HelpFormatter):
    """Prose (descriptions, epilog text) is wrapped to the terminal; an indented line is an
    example command, wrapped at spaces with a shell continuation (``\\``) so it can still be
    pasted."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        # argparse's default width, found without importing shutil (see terminal_columns)
        width = terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap  # only help is wrapped: not imported by every run

        out: list[str] = []
        prose: list[str] = []

        def flush() -> None:
            if prose:
                out.extend(
                    textwrap.wrap(
                        " ".join(prose),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_on_hyphens=False,
                    )
                )
                prose.clear()

        for line in text.splitlines():
            if line.startswith("  "):
                flush()
                out.extend(_wrap_command(line, width, indent))
            elif not line.strip():
                flush()
                out.append("")
            else:
                prose.append(line.strip())
        flush()
        return "\n".join(out)


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: ``COLUMNS`` when it is a positive number, else
    the width of the terminal on ``sys.__stdout__``, else 80. Found here because argparse
    builds a formatter for every argument declared, and its own way imports shutil, which
    imports bz2 and lzma: about 2 ms of every run, which prints no help."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    if stdout is None:
        return 80
    try:
        return os.get_terminal_size(stdout.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


def _wrap_command(line: str, width: int, indent: str) -> list[str]:
    """An example command in lines of at most ``width`` where it can be, continued with
    ``\\``; an option stays on the line of its value."""
    lead = indent + line[: len(line) - len(line.lstrip())]
    units: list[str] = []
    for word in line.split():
        if units and units[-1].startswith("-") and " " not in units[-1] and word[0] != "-":
            units[-1] += " " + word
        else:
            units.append(word)
    lines: list[str] = []
    current = lead + units[0]
    for unit in units[1:]:
        if len(current) + 1 + len(unit) + 2 > width:  # room for " \\"
            lines.append(current + " \\")
            current = lead + "    " + unit
        else:
            current += " " + unit
    lines.append(current)
    return lines


class Parser(argparse.ArgumentParser):
    """Every opencontext parser: help wrapped by :class:`HelpFormatter`, and a usage error
    that exits 2 with one line pointing at ``--help``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["formatter_class"] = HelpFormatter  # every opencontext parser wraps its help
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message} (see --help)\n")


def user_error(exc: Exception) -> str:
    """The one line for a mistake of the user's, with "did you mean" for a mistyped role."""
    if isinstance(exc, UnknownRole):
        declared = ", ".join(exc.declared) if exc.declared else "none are declared"
        hint = did_you_mean(exc.role, exc.declared)
        return f"unknown role {exc.role!r}{hint}; declared roles: {declared}"
    return str(exc)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``opencontext`` parser: every command of :data:`COMMANDS`, each with ``--color``
    (``only``: that command's alone — see :func:`named_command`)."""
    parser = Parser(
        prog="opencontext",
        description="Resolve an OpenContext repository into a deterministic bundle for a role, "
        "a task and an instant — and say why for everything it leaves out.",
        epilog="Run 'opencontext COMMAND --help' for a command's options and examples.",
    )
    add_version_flag(parser)
    parser.set_defaults(root_parser=parser)  # for `completion`, which prints this parser
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name, module in COMMANDS:
        if only is not None and name != only:
            continue
        command = module.add_parser(sub, name)
        command.set_defaults(run=module.run)
        add_color_arg(command)
    return parser


def named_command(argv: Sequence[str]) -> str | None:
    """The command a command line names first, when only its parser can be used: then the
    others are never built (declaring every command's arguments is about 3 ms of a run).
    None when the line names none (the whole parser words the error or the help), or names
    ``completion``, which prints the whole parser."""
    first = argv[0] if argv else None
    names = [name for name, _module in COMMANDS if name != "completion"]
    return first if first in names else None


def main(argv: Sequence[str] | None = None, *, kept: list[object] | None = None) -> int:
    """Run the command line ``argv`` (the process's when None); its exit code. ``kept``:
    where the command leaves what it made (:func:`~octui.cli.common.keep`) for a caller
    that ends the process without freeing it (:func:`entry`); None keeps nothing."""
    line = sys.argv[1:] if argv is None else argv
    parser = build_parser(named_command(line))
    args = parser.parse_args(line)
    args.kept = kept
    args.colour = colour_enabled(getattr(args, "color", ColorMode.AUTO), sys.stdout)
    try:
        with holding_made():  # one load, one answer: what it makes is held, never walked again
            code = int(args.run(args))
    except user_errors() as exc:  # the user's mistake: one line
        print(f"opencontext: error: {inert(user_error(exc), keep_newlines=False)}", file=sys.stderr)
        return ExitCode.USAGE
    except BrokenPipeError:
        return ExitCode.OK
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.flush()
    return code


def entry(
    argv: Sequence[str] | None = None, *, then: Callable[[], object] | None = None
) -> NoReturn:
    """The ``opencontext`` command: :func:`main`, then the process ends at once.

    What the command made (the loaded repository, its resolution: tens of MB at 10k
    objects, hundreds at 50k) is still held when the process ends, so the interpreter does
    not free it object by object only for the process to hand the memory back anyway
    (measured, a cache-warm run alternated with the plain exit: about 13 ms at 10k objects
    and 45 ms at 50k, 4 % of each). Everything is written and both streams flushed first;
    nothing else is pending (the command line starts no thread, and every export is
    complete, renamed into place, before its command returns). ``then``: called just
    before the end (the benchmark reports the peak memory there). A usage error's
    ``SystemExit`` (argparse's, for ``--help`` too) ends the process as usual."""
    kept: list[object] = []
    code = main(argv, kept=kept)
    if then is not None:
        then()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BrokenPipeError, ValueError):  # a reader gone, or closed
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
