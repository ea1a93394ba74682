"""A reload that changes objects in place: each changed file still makes one valid object
with the same id, version and path, so every other object keeps its place (``uid``) and
the new repository is the old one with those objects replaced — no walk, no sort, no pass
over every parsed file. Anything else (a file added, removed, made invalid, an object that
moves) is left to the full assembly, which gives the same answer slowly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from octui.core.model import ContextObject
from octui.core.tokens import TokenTables
from octui.load.assemble import Repository, Reuse, _object_of
from octui.load.hinted import Change
from octui.load.parsed import ParsedFile
from octui.load.tree import MAX_FILE_BYTES, Entry

ByPath = dict[str, tuple[ParsedFile, str, ContextObject]]


@dataclass
class Kept:
    """What a loader keeps between loads that an in-place reload reads and updates."""

    repository: Repository
    record: Reuse
    """The last assembly's objects by parsed file (updated in place)."""
    by_path: ByPath
    """The same by path (updated in place)."""
    tokens: TokenTables
    parse_one: Callable[[Entry], ParsedFile]
    used: int
    """Bytes counted against the read budget (at least; updated)."""
    budget: int


def objects_by_path(record: Reuse) -> ByPath:
    """``path -> (parsed file, source name, object)`` of a loader's record (its very entries)."""
    return {entry[2].path: entry for entry in record.values()}


def replace_in_place(loader: Kept, changes: list[Change]) -> Repository | None:
    """The kept repository with the objects of ``changes`` replaced, or None when a change
    does not keep every object in its place. Updates what is kept (the record of objects by
    parsed file and by path, the token tables, the bytes read) for the next reload."""
    old = loader.repository
    if any(c.now is None for c in changes):
        return None
    by_path = loader.by_path
    config = old.config
    forced = {s.name: s.authority for s in config.sources}
    levels = config.classification.levels
    made: list[tuple[ParsedFile, str, ContextObject, ContextObject, ParsedFile]] = []
    used = loader.used
    for change in changes:
        assert change.now is not None
        source_name, entry = change.now
        earlier = by_path.get(change.rel)
        if earlier is None or earlier[1] != source_name:
            return None  # a new file, or one that made no object
        if entry.size <= MAX_FILE_BYTES:
            used += entry.size  # an upper bound: the old size is still counted
        if used > loader.budget:
            return None
        parsed = loader.parse_one(entry)
        if parsed.skipped or parsed.error is not None or parsed.fields is None:
            return None
        obj = _object_of(parsed, source_name, forced[source_name], levels)
        if isinstance(obj, str):
            return None
        before = earlier[2]
        if (obj.id, obj.version, obj.path) != (before.id, before.version, before.path):
            return None  # it moves: every object after it is renumbered
        made.append((parsed, source_name, obj, before, earlier[0]))
    objects = list(old.objects)
    record = loader.record
    for parsed, source_name, obj, before, old_parsed in made:
        obj.uid = before.uid
        objects[obj.uid] = obj
        record.pop(id(old_parsed), None)
        record[id(parsed)] = by_path[obj.path] = (parsed, source_name, obj)
        if parsed.tokens is not None:
            loader.tokens.put(obj, parsed.tokens)
    loader.used = used
    return Repository(
        old.root,
        config,
        objects,
        list(old.findings),
        old.unavailable_sources,
        old.invalid_files,
        tokens=loader.tokens,
    )
