"""What parsing one object file gives (:class:`ParsedFile`): a module of its own, so that
what only handles parsed files (the assembly, the caches) never imports the parser and the
YAML library behind it — a load served whole by a cache parses nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """The result of parsing one file: front matter and body, an error, or not an object."""

    rel: str
    fields: Mapping[str, Any] | None = None
    """The validated front matter by field name (a dictionary; once the file made an object,
    the loader keeps it as an equal mapping read from the object: :mod:`octui.load.kept`)."""
    unknown: tuple[str, ...] = ()
    error: str | None = None
    skipped: bool = False
    tokens: Any = field(default=None, compare=False)
    """The token table of the object these fields make, when the persistent parse cache
    kept it (:func:`octui.core.tokens.fields_token_table`); never part of what a file
    parses to."""
