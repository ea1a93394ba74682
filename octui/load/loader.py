"""Loading a repository: read the configuration, walk the sources, parse each file (or take
it from a cache), assemble the objects.

A :class:`Loader` keeps what its last load parsed, so a reload reads and parses only the
files whose identity changed; an optional persistent store (:mod:`octui.load.parse_cache`)
serves a new process. Every problem becomes a finding, never an exception.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from octui.core.model import ContextObject
from octui.core.tokens import TokenTables
from octui.load import parse_cache
from octui.load.assemble import Repository, Reuse, assemble
from octui.load.config import (
    CONFIG_FILE,
    Config,
    config_data,
    load_config_bytes,
    parse_config,
    read_config,
)
from octui.load.fingerprint import Fingerprint, fingerprint_of
from octui.load.fsread import RefusedFile
from octui.load.heap import gc_paused, hold_heap, release_heap
from octui.load.parse_cache import racy_keys
from octui.load.parsed import ParsedFile
from octui.load.snapshot import from_snapshot, keep_snapshot, unchanged
from octui.load.tree import MAX_FILE_BYTES, Entry, FileKey, FsTree, Tree
from octui.load.walk import scan

if TYPE_CHECKING:  # what only a reload uses is imported by the loads that reload (below)
    from octui.load.hinted import Change, Walked


class _Hint(NamedTuple):
    """What a reload told the changed paths finds (:meth:`Loader._hinted`)."""

    raw_config: bytes
    changes: list[Change]
    files: list[tuple[str, Entry]]
    """The walk with the changes applied, in the order a full scan gives."""
    fingerprint: Fingerprint
    """The fingerprint a full scan would give."""


Scanned = tuple[list[tuple[str, Entry]], list[tuple[str, str]], list[tuple[str, str]]]
"""What :func:`~octui.load.walk.scan` gives: the files, unreadable paths, unavailable sources."""
READ_BUDGET_BYTES = 1 << 30
"""The most distinct file content one load reads (1 GiB); files past it are findings."""
VANISHED = "file vanished while loading"


Parse = Callable[[str, bytes], ParsedFile]
""":func:`octui.load.frontmatter.parse_file`, imported by the loads that parse a file (a
load a snapshot or the parse cache serves never imports the parser or YAML)."""


def read_and_parse(rel: str, entry: Entry, tree: Tree, parse_file: Parse) -> ParsedFile:
    if entry.size > MAX_FILE_BYTES:
        return ParsedFile(rel, error=f"file is larger than {MAX_FILE_BYTES} bytes (1 MiB)")
    try:
        raw = tree.read(rel)
    except FileNotFoundError:
        return ParsedFile(rel, error=VANISHED)
    except RefusedFile as exc:
        return ParsedFile(rel, error=exc.problem)
    except OSError as exc:
        return ParsedFile(rel, error=f"cannot be read ({exc.strerror or exc})")
    return parse_file(rel, raw)


class Loader:
    """Loads a repository from a tree, re-parsing only files whose identity changed.

    A file's identity is :attr:`Entry.key` — path, size, mtime, inode and ctime; an
    unchanged file is never read again. An optional ``store`` (a persistent cache) is
    consulted before parsing. One load reads at most :data:`READ_BUDGET_BYTES` of distinct
    content, counted in walk order from the sizes the scan saw (so the files past the
    budget are the same whatever is cached).
    """

    def __init__(
        self, tree: Tree, root: str, store: ParseStore | None = None, *, one_shot: bool = False
    ) -> None:
        self.tree = tree
        self.root = root
        self.store = store
        self.one_shot = one_shot
        """Loaded once and never again (:func:`load_repository`): nothing is kept for a
        reload — no fingerprint, walk record or per-file parse cache."""
        self._cache: dict[FileKey, ParsedFile] = {}
        self._objects: Reuse = {}
        self._config_raw: bytes | None = None
        self.tokens = TokenTables()
        """Token tables of every load's objects (an unchanged file keeps its table)."""
        self.parsed_count = 0
        self.fingerprint: Fingerprint | None = None
        """What the last load saw: the same as ``Session.fingerprint()`` computes."""
        self.repository: Repository | None = None
        """The last load's repository."""
        self.walked: Walked | None = None
        """What the last load's scan saw (for a reload told which paths changed)."""
        self.used = 0
        """Bytes the last load counted against the read budget (at least)."""
        self.hinted = 0
        self.replaced: tuple[Repository, list[int]] | None = None
        """After a reload that replaced objects in place: the repository before it and the
        places (``uid``) whose objects it replaced (None after any other load)."""
        self.by_path: dict[str, tuple[ParsedFile, str, ContextObject]] | None = None
        """The last load's objects by path, with their parsed file and source (made when a
        reload first needs it)."""
        """How many loads were served by re-reading only the paths they were told changed."""

    def load(self, changed: Iterable[str] | None = None) -> Repository:
        """Load (or reload) the repository; the loaded heap is then held
        (:func:`octui.load.heap.hold_heap`).

        ``changed`` names every path that may have changed since the last load (absolute,
        or relative to the root): then only those are looked at, the configuration is read
        again, and the answer is the one a full scan would give; when the paths cannot say
        (a folder appeared, a link, …) the tree is scanned as without them."""
        release_heap()  # the previous repository, if unreferenced, can be collected again
        self.replaced = None
        with gc_paused():
            repo = self._reload(changed) if changed is not None else None
            if repo is None:
                repo = self._load()
            fastpath = sys.modules.get("octui.load.fastpath")  # not imported: nothing parsed
            if fastpath is not None:
                fastpath.forget_values()  # what the parses shared is held by objects now
        hold_heap()
        return repo

    def fingerprint_after(self, changed: Iterable[str]) -> Fingerprint | None:
        """The fingerprint a full scan would give now if only ``changed`` may have changed
        since the last load (None: only a full scan can tell)."""
        hint = self._hinted(changed)
        return None if hint is None else hint.fingerprint

    def _hinted(self, changed: Iterable[str]) -> _Hint | None:
        """What a full scan would find now if only ``changed`` may have changed since the
        last load, when the configuration is unchanged and the paths can say (else None)."""
        from octui.load.hinted import apply_changes, changes_of

        repo, seen, fingerprint = self.repository, self.walked, self.fingerprint
        if repo is None or seen is None or not isinstance(self.tree, FsTree):
            return None
        try:
            raw_config = read_config(self.tree, self.root)
        except Exception:
            return None
        if raw_config != self._config_raw:
            return None
        changes = changes_of(self.tree, repo.config, seen, changed)
        if changes is None:
            return None
        assert fingerprint is not None
        if not changes:
            return _Hint(raw_config, changes, seen.files, fingerprint)
        assert fingerprint.keys is not None
        files, keys = apply_changes(repo.config, seen, fingerprint.keys, changes)
        return _Hint(raw_config, changes, files, fingerprint.with_files(raw_config, keys))

    def _reload(self, changed: Iterable[str]) -> Repository | None:
        """A reload told that only ``changed`` may differ (None: scan everything)."""
        from octui.load.in_place import Kept, objects_by_path, replace_in_place
        from octui.load.kept import keep_made

        hint = self._hinted(changed)
        if hint is None or self.repository is None or self.walked is None:
            return None
        raw_config, changes, files, _ = hint
        self.hinted += 1
        if not changes:
            return self.repository
        seen, config = self.walked, self.repository.config
        if self.by_path is None:
            self.by_path = objects_by_path(self._objects)
        kept = Kept(
            self.repository,
            self._objects,
            self.by_path,
            self.tokens,
            self.parse_one,
            self.used,
            READ_BUDGET_BYTES,
        )
        repo = replace_in_place(kept, changes)
        self.used = kept.used
        if repo is None:
            repo = self._assemble(raw_config, config, files, seen.problems, seen.unavailable)
        else:
            assert self.by_path is not None
            for change in changes:
                parsed, _source, obj = self.by_path[change.rel]
                keep_made(parsed, obj)
            uids = sorted({self.by_path[c.rel][2].uid for c in changes})
            self.replaced = (self.repository, uids)
            self.walked = seen.updated(files, changes)
            self.repository = repo
            self.fingerprint = hint.fingerprint
        return repo

    def _load(self) -> Repository:
        raw_config = read_config(self.tree, self.root)
        file = self.tree.describe(CONFIG_FILE)
        if not self._snapshots():
            if self.repository is not None and raw_config == self._config_raw:
                config = self.repository.config  # the same bytes: the same configuration
            else:
                config = load_config_bytes(raw_config, file)
            return self._assemble(raw_config, config, *scan(self.tree, config))
        made: list[tuple[object, Config]] = []

        def configured() -> tuple[object, Config]:
            """The configuration's YAML document and configuration, made once."""
            if not made:
                data = config_data(raw_config, file)
                made.append((data, parse_config(data, file)))
            return made[0]

        scanned: list[Scanned] = []

        def current(stored: Fingerprint, folders: object) -> Fingerprint:
            """The fingerprint now: the snapshot's own when its folders and files are
            unchanged, else the one a walk gives (kept for the load that follows)."""
            if unchanged(self.root, raw_config, stored, folders):
                return stored
            scanned.append(scan(self.tree, configured()[1]))
            return fingerprint_of(raw_config, *scanned[-1])

        repo = from_snapshot(
            self.store, self.root, current, lambda data: parse_config(data, file), self.tokens
        )
        if repo is not None:  # the same files as a snapshotted load: its repository
            self.repository = repo
            return repo
        data, config = configured()
        files, problems, unavailable = scanned[-1] if scanned else scan(self.tree, config)
        return self._assemble(raw_config, config, files, problems, unavailable, data)

    def _assemble(
        self,
        raw_config: bytes,
        config: Config,
        files: list[tuple[str, Entry]],
        problems: list[tuple[str, str]],
        unavailable: list[tuple[str, str]],
        document: object = None,
    ) -> Repository:
        """Parse (or reuse) every walked file and assemble the repository (``document``: the
        configuration's YAML document, for a snapshot)."""
        parsed, keys = self._parse_all(files)
        previous = self._objects if raw_config == self._config_raw else None
        record: Reuse = {}
        repo = assemble(
            self.root, config, parsed, problems, unavailable, previous=previous, record=record
        )
        self._objects, self._config_raw = record, raw_config
        keep: Callable[[ParsedFile, ContextObject], None] | None = None
        if not self.one_shot:  # a one-shot load (the CLI) never imports what reloads use
            from octui.load.kept import keep_made

            keep = keep_made
        for parsed_file, _source, obj in record.values():
            if parsed_file.tokens is not None:  # kept by the persistent parse cache
                self.tokens.put(obj, parsed_file.tokens)
            if keep is not None:
                keep(parsed_file, obj)  # its fields read from its object from now on
        repo.tokens = self.tokens
        if self.one_shot:  # no reload follows: what only a reload reads is not made
            self.repository = repo
            if self._snapshots():
                fingerprint = fingerprint_of(raw_config, files, problems, unavailable, keys)
                racy = any(r.error == VANISHED for _, r in parsed) or racy_keys(keys)
                folders = None
                if not (problems or unavailable):  # (a tree with links: see FsTree)
                    assert isinstance(self.tree, FsTree)
                    folders = self.tree.folder_identities(parse_cache.RACY_NS)
                keep_snapshot(
                    self.store, self.root, fingerprint, folders, document, repo, racy=racy
                )
            return repo
        from octui.load.hinted import walked

        self.tokens.keep_only(repo.objects)
        self.fingerprint = fingerprint_of(raw_config, files, problems, unavailable, keys)
        self.repository, self.walked = repo, walked(files, problems, unavailable)
        self.by_path = None
        return repo

    def _snapshots(self) -> bool:
        """Whether this load may be served from, and kept in, a repository snapshot
        (:mod:`octui.load.snapshot`): one-shot loads of files on disk through a store."""
        return self.one_shot and self.store is not None and isinstance(self.tree, FsTree)

    def _parse_all(
        self, files: list[tuple[str, Entry]]
    ) -> tuple[list[tuple[str, ParsedFile]], list[FileKey]]:
        """``(source name, parsed file)`` of every file, in walk order: from this loader's
        cache, the store, or read and parsed (and then stored); and every file's key (the
        very tuples the cache of parsed files is keyed by, for the fingerprint to share)."""
        parsed: list[tuple[str, ParsedFile]] = []
        keys: list[FileKey] = []
        cache: dict[FileKey, ParsedFile] = {}
        fresh: dict[FileKey, ParsedFile] = {}
        budget, used = READ_BUDGET_BYTES, 0
        # A content-addressed tree (git) names equal bytes by one key: read, parsed, held
        # and counted against the budget once.
        content_key = getattr(self.tree, "content_key", None)
        same_content: dict[object, ParsedFile] = {}
        counted: set[object] = set()
        keep = not self.one_shot  # a one-shot load keeps no per-file cache for a reload
        parse: Parse | None = None
        for source_name, entry in files:
            key = entry.key
            keys.append(key)
            blob = content_key(entry.rel) if content_key is not None else None
            if entry.size <= MAX_FILE_BYTES and (blob is None or blob not in counted):
                # A bigger file is refused unread; equal content counts once.
                if blob is not None:
                    counted.add(blob)
                used += entry.size
                if used > budget:
                    parsed.append((source_name, ParsedFile(entry.rel, error=over_budget(budget))))
                    continue
            result = self._cache.get(key)
            if result is None and self.store is not None:
                result = self.store.get(key)
            if result is None:
                if parse is None:
                    from octui.load.frontmatter import parse_file

                    parse = parse_file
                result = self._parse(entry, blob, same_content, parse)
                if result.error != VANISHED:
                    fresh[key] = result
            if keep:
                cache[key] = result
            parsed.append((source_name, result))
        if self.store is not None and fresh:
            self.store.put_many(fresh)
        self._cache = cache
        self.used = used
        return parsed, keys

    def parse_one(self, entry: Entry) -> ParsedFile:
        """The parse of one walked file: from this loader's cache, the store, or read and
        parsed (and then kept and stored)."""
        key = entry.key
        result = self._cache.get(key)
        if result is None and self.store is not None:
            result = self.store.get(key)
        if result is None:
            from octui.load.frontmatter import parse_file

            result = read_and_parse(entry.rel, entry, self.tree, parse_file)
            self.parsed_count += 1
            if result.error != VANISHED and self.store is not None:
                self.store.put_many({key: result})
        if result.error != VANISHED:
            self._cache[key] = result
        return result

    def _parse(
        self, entry: Entry, blob: object, same_content: dict[object, ParsedFile], parse: Parse
    ) -> ParsedFile:
        """Read and parse one file, or reuse the parse of a blob with the same content."""
        ck = (blob, entry.rel.endswith(".md")) if blob is not None else None  # as parse_file
        earlier = same_content.get(ck) if ck is not None else None
        if earlier is not None:
            return replace(earlier, rel=entry.rel)
        result = read_and_parse(entry.rel, entry, self.tree, parse)
        self.parsed_count += 1
        if ck is not None:
            same_content[ck] = result
        return result


def over_budget(budget: int) -> str:
    return (
        f"not read: this load's read budget ({budget} bytes of distinct file content) is "
        "used up by the files before it"
    )


class ParseStore(Protocol):
    """A persistent cache of parsed files keyed by file identity (:attr:`Entry.key`)."""

    def get(self, key: FileKey) -> ParsedFile | None: ...

    def put_many(self, items: dict[FileKey, ParsedFile]) -> None: ...


def load_repository(root: str | Path, store: ParseStore | None = None) -> Repository:
    """Load the repository at ``root`` (raises NotARepository / ConfigError)."""
    path = Path(root)
    tree = FsTree(path, identify_folders=store is not None)
    return Loader(tree, str(path), store, one_shot=True).load()
