"""``octui [REPO] [--role R] [--task T] [--as-of WHEN] [--theme NAME] [--serve]``: the
interactive explorer, in the terminal or (``--serve``) in a browser."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from octui.cli.version import add_version_flag
from octui.core.textsafe import inert
from octui.core.timeutil import parse_instant
from octui.load.config import ConfigError, NotARepository, load_config
from octui.tui.sample import default_repo

DESCRIPTION = """\
Explore an OpenContext repository: what a role is given for a task at an instant,
what is left out and why, what is wrong, and how each object's lineage evolved.

Without REPO, octui opens the current folder if it holds opencontext.yaml, else the
bundled sample repository. Every change of the inputs re-resolves at once; edits to
the files on disk are picked up automatically. Press F1 inside for every key."""

EPILOG = """\
keys (F1 lists them all):
  r role   / task   a as_of   [ ] ±1 day   { } ±1 month   n now⇄date
  h include-historical   s strict   l limit   m min-relevance
  1 2 3 Included / Excluded / Warnings   f filter exclusions by reason
  Enter open / jump   x export bundle   e edit in $EDITOR   c copy digest   q quit
  u audit view: every finding and every role's fate   ctrl+p commands
  p pin and compare   D diff   . , next/previous change   A change agenda   g git revision

examples:
  octui                                   the current repository, or the sample
  octui sample-repo --role support --task refund
  octui sample-repo --role sales --as-of 2026-03-15
  octui --audit sample-repo               open on the audit view (the owner's view)
  octui --theme textual-light             a light theme (the palette's theme choice is saved)
  octui --serve sample-repo               in a browser at http://127.0.0.1:8000

settings: the theme chosen in the explorer and the last role used per repository are
saved in the user config folder ($OCTUI_CONFIG_DIR overrides it)."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="octui",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "repo",
        nargs="?",
        metavar="REPO",
        help="repository folder (default: the current folder if it holds opencontext.yaml, "
        "else the bundled sample repository)",
    )
    p.add_argument(
        "--role",
        "-r",
        metavar="R",
        help="role to resolve for (default: the last role used for this repository, else "
        "the first declared in opencontext.yaml)",
    )
    p.add_argument("--task", "-t", default="", metavar="T", help="what the agent is doing")
    p.add_argument(
        "--as-of",
        metavar="WHEN",
        help="instant to resolve at: YYYY-MM-DD or RFC 3339 (default: now)",
    )
    p.add_argument(
        "--rev",
        metavar="GIT_REV",
        help="read the repository as it was at this git revision (nothing is checked out); "
        "--as-of still picks the instant",
    )
    p.add_argument(
        "--known-at",
        metavar="WHEN",
        help="read the repository as committed at the last first-parent commit of HEAD at or "
        "before WHEN (what the repository said then; K in the explorer sets both axes at "
        "once); --as-of still picks what was in effect. Not with --rev",
    )
    p.add_argument(
        "--theme",
        metavar="NAME",
        help="colour theme for this run, e.g. textual-dark, textual-light (default: the one "
        "last chosen in the explorer)",
    )
    p.add_argument(
        "--audit",
        action="store_true",
        help="open on the audit view: every finding with the roles it affects, every object "
        "with what each role gets (the owner's view; u toggles it)",
    )
    _add_serve_args(p)
    add_version_flag(p)
    return p


def _add_serve_args(p: argparse.ArgumentParser) -> None:
    """``--serve``, ``--host`` and ``--port``: the explorer in a web browser."""
    web = p.add_argument_group("browser (needs the serve extra: pip install 'octui[serve]')")
    web.add_argument(
        "--serve",
        action="store_true",
        help="serve the explorer to a web browser instead of running it here; each page "
        "gets its own session, which ends when the page is closed",
    )
    web.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="ADDR",
        help="address to listen on with --serve (default: 127.0.0.1, this machine only)",
    )
    web.add_argument(
        "--port", type=int, default=8000, metavar="N", help="port for --serve (default: 8000)"
    )


def theme_names() -> list[str]:
    from textual.theme import BUILTIN_THEMES

    return sorted(BUILTIN_THEMES)


def child_args(args: argparse.Namespace, root: Path) -> list[str]:
    """The explorer's own arguments, for each browser session of ``--serve``."""
    out = [str(root.resolve())]
    for flag, value in (
        ("--role", args.role),
        ("--task", args.task or None),
        ("--as-of", args.as_of),
        ("--rev", args.rev),
        ("--known-at", args.known_at),
        ("--theme", args.theme),
    ):
        if value is not None:
            out.append(f"{flag}={value}")
    if getattr(args, "audit", False):
        out.append("--audit")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from octui.tui.app import create_app, first_as_of

    parser = build_parser()
    args = parser.parse_args(argv)

    def fail(message: str) -> int:
        print(f"octui: error: {inert(message, keep_newlines=False)}", file=sys.stderr)
        return 2

    if args.theme is not None and args.theme not in theme_names():
        return fail(f"unknown theme {args.theme!r}; themes: {', '.join(theme_names())}")
    if not 0 < args.port < 65536:
        return fail(f"--port: expected 1-65535, got {args.port}")
    try:
        as_of = first_as_of(args.as_of)
        known_at = None if args.known_at is None else parse_instant(args.known_at)
    except ValueError as exc:
        return fail(str(exc))
    if known_at is not None and args.rev is not None:
        return fail("--rev and --known-at both choose the files read: give one")
    if args.repo is not None:
        root = Path(args.repo)
        if not root.is_dir():
            return fail(f"{root}: no such folder")
    else:
        found = default_repo()
        if found is None:
            return fail("no opencontext.yaml here and the sample repository is not installed")
        root = found
    if args.role is not None:
        try:
            config = load_config(root)
        except (NotARepository, ConfigError):
            config = None  # the explorer shows the problem and waits for a fix
        if config is not None and args.role not in config.roles:
            declared = ", ".join(sorted(config.roles)) or "none are declared"
            return fail(f"unknown role {args.role!r}; declared roles: {declared}")
    app = create_app(
        root, role=args.role, task=args.task, as_of=as_of, theme=args.theme, audit=args.audit
    )
    if args.rev is not None:
        from octui.load.gitrun import GitRevisionError

        try:
            app.start_at_revision(args.rev)
        except GitRevisionError as exc:
            return fail(str(exc))
    if known_at is not None:
        from octui.load.gitrun import GitRevisionError

        try:
            app.start_at_known_at(known_at)
        except GitRevisionError as exc:
            return fail(str(exc))
    if args.serve:  # every argument was checked here: sessions start with good ones
        return serve_explorer(args, root)
    app.run()
    return 0


def serve_explorer(args: argparse.Namespace, root: Path) -> int:
    try:
        from octui.tui.serve import serve
    except ImportError as exc:
        print(
            f"octui: error: --serve needs textual-serve ({exc.name or exc} is missing): "
            "pip install 'octui[serve]'",
            file=sys.stderr,
        )
        return 2
    title = f"octui · {root.resolve().name}"
    return serve(child_args(args, root), host=args.host, port=args.port, title=title)


if __name__ == "__main__":
    raise SystemExit(main())
