"""A long-lived view of one repository: load once, re-resolve cheaply, notice edits.

The explorer and the benchmark use this; the CLI makes a one-shot session.
Re-loading re-parses only files whose identity (path, size, mtime, inode, ctime) changed;
told which paths changed (a filesystem watcher's report, :meth:`Session.note_changes` then
:meth:`Session.reload`), it looks at only those. The session owns the
:class:`~octui.resolve.cache.ResolutionCache` of its repository: made with each load and
replaced with the repository, handed to every resolution of it; when a reload replaced a
few objects in place, the new cache starts from what the old one knew that still holds
(:mod:`octui.resolve.carry`).

Thread-safety: ``resolve`` only reads the current :class:`Repository` and its cache, which
are replaced together by ``load``, so a worker thread may resolve while another reloads
(the cache guards itself: see its module).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from octui.bundle.pieces import pieces_of
from octui.core.tokens import tokenize
from octui.load.assemble import Repository
from octui.load.config import load_config_bytes
from octui.load.fingerprint import NO_CONFIG, Fingerprint, fingerprint_of, invalid_config
from octui.load.heap import gc_paused, hold_heap
from octui.load.loader import Loader, ParseStore
from octui.load.names import CONFIG_FILE
from octui.load.tree import FsTree, Tree
from octui.load.walk import scan
from octui.resolve.cache import ResolutionCache
from octui.resolve.carry import carried, replaced_uids
from octui.resolve.engine import resolve
from octui.resolve.fixed import TOKENS
from octui.resolve.result import Query, Resolution
from octui.resolve.steps.s4_scope import not_in_scope_records


def _never_cancelled() -> bool:
    return False


class Session:
    def __init__(
        self, root: str | Path, *, tree: Tree | None = None, store: ParseStore | None = None
    ) -> None:
        self.root = Path(root)
        self.tree: Tree = tree if tree is not None else FsTree(self.root)
        self.loader = Loader(self.tree, str(self.root), store)
        self.repository: Repository | None = None
        self.cache: ResolutionCache | None = None
        """The resolution cache of :attr:`repository` (None until loaded)."""
        self._fingerprint: Fingerprint | None = None
        self._loading = threading.Lock()
        """Held while the loader changes or is asked about its last load."""
        self._notes = threading.Lock()
        self._noted: set[str] | None = set()
        """Paths noted as changed since the last load (None: unknown, scan everything)."""

    def note_changes(self, paths: Iterable[str] | None) -> None:
        """Note paths that changed on disk (a watcher's report) for the next :meth:`reload`;
        None: something changed, nobody knows where (the next reload scans everything)."""
        with self._notes:
            if paths is None or self._noted is None:
                self._noted = None
            else:
                self._noted.update(paths)

    def reload(self) -> Repository:
        """:meth:`load`, told the paths noted since the last load (a full scan when none
        were noted, or when what changed is unknown)."""
        with self._notes:
            noted, self._noted = self._noted, set()
        try:
            return self.load(noted or None)
        except BaseException:
            self.note_changes(None)  # what was noted is not loaded: the next load scans
            raise

    def load(self, changed: Iterable[str] | None = None) -> Repository:
        """(Re)load the repository. Raises NotARepository / ConfigError for the caller to show.

        ``changed``: every path that may have changed since the last load (a filesystem
        watcher's report); only those are read again (see :meth:`Loader.load`), with the
        same answer as a full scan. The loader's own scan is the fingerprint (one walk of
        the tree, not two). Every object's token sets are computed here, once (an unchanged
        file keeps its object and its tokens across reloads), so changing the role, the
        task or the instant only scores. When the reload replaced a few objects in place,
        what the cache knew that still holds is carried to the new repository's cache
        (:mod:`octui.resolve.carry`).
        """
        if changed is None:
            with self._notes:  # a full scan sees whatever was noted before it starts
                self._noted = set()
        old, old_cache = self.repository, self.cache
        with self._loading:
            repo = self.loader.load(changed)
        self._fingerprint = self.loader.fingerprint
        if repo is old and old is not None:
            return repo  # nothing changed
        if hasattr(self.tree, "commit"):  # a git revision: the bundle says which
            from octui.load.gittree import GitTree
            from octui.load.revisions import tree_source

            if isinstance(self.tree, GitTree):
                repo.source = tree_source(self.tree)
        uids = self._replaced(old, repo)
        with gc_paused():
            for obj in repo.objects if uids is None else [repo.objects[u] for u in uids]:
                repo.tokens.get(obj)
            cache = (
                carried(old_cache, repo, uids)
                if uids is not None and old_cache is not None
                else ResolutionCache(repo)
            )
        hold_heap()  # the token tables join the held heap
        self.repository, self.cache = repo, cache
        return repo

    def _replaced(self, old: Repository | None, repo: Repository) -> list[int] | None:
        """The places whose objects ``repo`` replaced in ``old`` (None: not that kind of
        reload): as the loader says when it replaced them in place, else compared."""
        if old is None:
            return None
        told = self.loader.replaced
        if told is not None and told[0] is old:
            return told[1]
        return replaced_uids(old, repo)

    def prepare(self, cancelled: Callable[[], bool] = _never_cancelled, task: str = "") -> bool:
        """Make now, for every object of the loaded repository, what a first visit to a role
        or an instant would otherwise make of it one object at a time: its digest parts (the
        bulk: about 4 µs an object), its token table in the bundle's fixed order, when it
        turns stale and where its ``stale`` finding sorts, its validity window in the order
        step 3 reads them, and — for an object outside the scope of a configured role — its
        ``not-in-scope`` record with that record's piece; once a role built the whole
        supersession graph, the timeline over the whole repository of every object some
        replacement could reach; and, with ``task`` (the one on screen, which a role or
        instant switch keeps), which fields of every object hold each of its tokens. None
        depends on the role or the instant: each is kept in the repository's cache and
        shared by every role and instant, so a new role then mostly decides, joins and
        hashes. The explorer calls this on its prefetch thread once its first screen is up;
        a one-shot command, which asks once, does not. True when it made all it could: the
        timelines only if some role built the whole graph already (after a reload that
        carried every role none has; a role that builds it later makes the timelines it
        asks for), nothing without a loaded repository or a cache memo. False when
        ``cancelled()`` said stop: it is asked between the passes and between two chunks of
        the digest parts (what was made is kept, the next call goes on from there)."""
        repo, cache = self.repository, self.cache
        if repo is None or cache is None or cache.repository is not repo:
            return True
        with gc_paused():
            prepared = cache.prepared()

            def match(token: str) -> None:  # reads ``fixed`` when its pass comes, not before
                prepared.fixed.match_all(token)

            # at most half the token matches the fixed order keeps: a long task does not
            # push out the ones stages made
            tokens = sorted(tokenize(task))[: TOKENS // 2]
            passes: list[Callable[[], object]] = [
                lambda: prepared.freshness.prepare(repo.objects),
                lambda: prepared.spans,  # built now, not by the first role or instant after
                lambda: prepared.fixed.read_tables(),
                *(partial(match, token) for token in tokens),
            ]
            for one in passes:  # whole-repository passes, each 30-80 ms at 50k
                if cancelled():
                    return False
                one()
            if cancelled():
                return False
            outside = not_in_scope_records(repo.config.roles.values(), prepared)
            graph = prepared.built_graph()  # not built after a reload that carried the roles
            if graph is not None:
                graph.prepare()
            if cache.memo is None:
                return True
            if cancelled():
                return False
            pieces = pieces_of(cache.memo, repo.objects)
            pieces.keep(outside)
            return pieces.prepare(cancelled)

    def cache_for(self, repository: Repository) -> ResolutionCache | None:
        """The session's cache when ``repository`` is the one it holds, else None (a
        resolution of an older or another repository computes everything)."""
        cache = self.cache
        return cache if cache is not None and cache.repository is repository else None

    def resolve(self, query: Query) -> Resolution:
        repo = self.repository if self.repository is not None else self.load()
        return resolve(repo, query, self.cache_for(repo))

    def fingerprint(self, changed: Iterable[str] | None = None) -> Fingerprint:
        """A cheap summary of the files on disk: config bytes plus the key of each file
        (path, size, mtime, inode, ctime). ``changed``: every path that may have changed
        since the last load; then only those are looked at when they can say."""
        if changed is not None:
            with self._loading, gc_paused():
                found = self.loader.fingerprint_after(changed)
            if found is not None:
                return found
        try:
            raw = self.tree.read(CONFIG_FILE)
        except OSError:
            return NO_CONFIG
        try:
            config = load_config_bytes(raw, CONFIG_FILE)
        except Exception:
            return invalid_config(raw)
        with gc_paused():  # a poll makes a tuple per file: never a full pass over the heap
            return fingerprint_of(raw, *scan(self.tree, config))

    def changed_on_disk(self) -> bool:
        """True when the files differ from what the last ``load`` saw."""
        return self.fingerprint() != self._fingerprint
