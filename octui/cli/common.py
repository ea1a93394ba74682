"""What every command does the same way: load the repository it names, say where it was
read from, print a text layout, and report the user's mistakes as :class:`UsageError`.

A repository is read from exactly one place: the files on disk (through the persistent
parse cache unless ``--no-cache`` or ``OCTUI_NO_CACHE=1``), a git revision (``--rev``,
from git objects, never cached) or the commit known at an instant (``--known-at``). The git
readers are imported only by a run that reads from git: a run over the files on disk never
pays for them.
"""

from __future__ import annotations

import argparse
import codecs
import os
import sys
from datetime import datetime
from pathlib import Path

from octui.load.assemble import Repository
from octui.load.config import ConfigError, NotARepository
from octui.load.loader import load_repository
from octui.load.parse_cache import open_store
from octui.render.ansi import paint_marks
from octui.render.explain import WORKING_TREE_SOURCE


class UsageError(Exception):
    """A mistake in how the tool was called or in the repository's configuration."""


def open_repository(path: str, *, cache: bool = True) -> Repository:
    """Load the working tree; parsed files are cached in the user's cache directory unless
    ``cache`` is False or ``OCTUI_NO_CACHE=1`` (the cache never changes results)."""
    try:
        store = open_store(path, snapshots=True) if cache else None
        return load_repository(Path(path), store=store)
    except (NotARepository, ConfigError) as exc:
        raise UsageError(str(exc)) from None


def open_revision(path: str, rev: str) -> Repository:
    """The repository at ``path`` exactly as it was at git revision ``rev`` (read from git)."""
    from octui.load.gitrun import GitRevisionError
    from octui.load.revisions import load_revision

    try:
        return load_revision(path, rev)
    except (GitRevisionError, NotARepository, ConfigError) as exc:
        raise UsageError(str(exc)) from None


def open_known_at(path: str, when: datetime) -> Repository:
    """The repository at ``path`` as committed at the last first-parent commit of HEAD
    whose committer date is at or before ``when``."""
    from octui.load.gitrun import GitRevisionError
    from octui.load.known_at import load_known_at

    try:
        return load_known_at(path, when)
    except (GitRevisionError, NotARepository, ConfigError) as exc:
        raise UsageError(str(exc)) from None


def check_exclusive(rev: str | None, known_at: datetime | None, what: str = "--rev") -> None:
    """A usage error when both ``--rev`` (or ``what``) and ``--known-at`` are given."""
    from octui.load.known_at import check_axes

    try:
        check_axes(rev, known_at, what=what)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def uses_cache(args: argparse.Namespace) -> bool:
    """Whether the files on disk are read through the parse cache (no ``--no-cache``)."""
    return not getattr(args, "no_cache", False)


def load_for(args: argparse.Namespace) -> Repository:
    """The repository named by ``args.repo``: the files on disk, a git revision (``--rev``) or
    the commit known at an instant (``--known-at``). Kept until the process ends (see
    :func:`keep`)."""
    rev = getattr(args, "rev", None)
    known_at = getattr(args, "known_at", None)
    if known_at is not None:
        check_exclusive(rev, known_at)
        repo = open_known_at(args.repo, known_at)
    elif rev is None:
        repo = open_repository(args.repo, cache=uses_cache(args))
    else:
        repo = open_revision(args.repo, rev)
    keep(args, repo)
    return repo


def keep(args: argparse.Namespace, *made: object) -> None:
    """Hold ``made`` until the process ends when the command runs as ``opencontext``
    (:func:`octui.cli.main.entry`, which then ends the process without freeing it); an
    in-process caller of :func:`octui.cli.main.main` (a test, a host program) holds
    nothing."""
    kept: list[object] | None = getattr(args, "kept", None)
    if kept is not None:
        kept.extend(made)


def source_of(args: argparse.Namespace, repo: Repository | None = None) -> str:
    """Where the repository was read from, as the explain header names it (with the commit
    and its subject when it was read at ``--known-at``)."""
    if repo is not None and getattr(args, "known_at", None) is not None:
        from octui.load.known_at import describe_source

        return describe_source(args.repo, repo.source)
    rev = getattr(args, "rev", None)
    return WORKING_TREE_SOURCE if rev is None else f"git revision {rev}"


def write_utf8(data: bytes) -> None:
    """Write UTF-8 text to stdout exactly as writing it decoded would: straight to the byte
    stream when stdout encodes UTF-8 and translates no newline, else decoded."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if buffer is not None and encoding and os.linesep == "\n" and _is_utf8(encoding):
        out.flush()
        buffer.write(data)
    else:
        out.write(data.decode("utf-8"))


def _is_utf8(encoding: str) -> bool:
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def emit(args: argparse.Namespace, text: str) -> None:
    """Write a text layout to stdout, its marks coloured when ``--color`` asks for it."""
    sys.stdout.write(paint_marks(text) if getattr(args, "colour", False) else text)
