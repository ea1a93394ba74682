"""Loading, watching and resolving for the explorer, off the UI thread.

:class:`Resolving` is a collaborator the app (:class:`octui.tui.app.OctuiApp`) owns. The
app keeps the workers (Textual runs them on a DOM node, and a failing worker's toast names
its method: ``reload_repository``, ``watch_repository``, ``_resolve``) and the state tests
and features read (``generation``, ``applied_generation``, ``settled``, ``loaded``,
``error``); each worker's body is here. Invariants:

- a load remembers the fingerprint its own scan saw, so the disk watch compares against
  it and a reload says which files changed; after a failed load the error screen is shown,
  and the next good load takes it away;
- resolutions run one at a time on one daemon thread; a job whose generation is no longer
  the newest returns at once, and :meth:`Resolving.apply_view` shows only the newest view.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from textual.worker import Worker

from octui.core.textsafe import inert
from octui.load.fingerprint import Fingerprint
from octui.resolve.result import UnknownRole
from octui.session import Session
from octui.tui.background import DaemonExecutor, in_daemon_thread
from octui.tui.features.registry import Features
from octui.tui.feedback import changed_paths, reload_note
from octui.tui.host import Host
from octui.tui.loading import DiskWatch, load_problem, role_problem
from octui.tui.messages import ViewApplied
from octui.tui.screens.error import ErrorScreen
from octui.tui.settings import remember_role
from octui.tui.state import Inputs, View, finish_view
from octui.tui.viewcache import ViewCache
from octui.tui.widgets.inputs import InputsPane
from octui.tui.widgets.status import StatusBar


class ResolvingHost(Host, Protocol):
    """The app as :class:`Resolving` sees it: the :class:`~octui.tui.host.Host`, the
    resolution state it keeps, and the steps that stay on the app."""

    settled: asyncio.Event
    generation: int
    applied_generation: int
    loaded: bool
    error_screen: ErrorScreen | None
    poll_interval: float
    feature_set: Features
    views: ViewCache
    digest_worker: Worker[None] | None

    def show_context(self) -> None: ...

    def _main_ready(self) -> bool: ...

    def _refresh_selection(self) -> None: ...

    def apply_view(self, view: View) -> bool: ...

    def request_resolve(self, *, debounce: bool = True) -> None: ...


class Resolving:
    """Loads, watches and resolves the app's repository (the bodies of its workers)."""

    def __init__(self, app: ResolvingHost) -> None:
        self.app = app
        self.seen_fingerprint: Fingerprint | None = None
        """What the last load's own scan saw (the disk watch compares against it)."""
        self.fingerprint_session: Session | None = None
        """The session :attr:`seen_fingerprint` belongs to."""
        self.executor = DaemonExecutor("octui-resolve")  # a thread quitting never waits for
        self.remembered_role: str | None = None
        self.watched = False
        """The next load was asked for by the disk watch: it re-reads the paths noted."""
        self.watcher: DiskWatch | None = None
        """The repository watcher while it runs."""

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- loading and watching ------------------------------------------------------------

    async def reload(self) -> None:
        """(Re)load the repository in a thread; show an error screen when it cannot be read."""
        app = self.app
        app.settled.clear()
        session = app.session
        before, seen_by = self.seen_fingerprint, self.fingerprint_session
        self.fingerprint_session = session
        try:
            await in_daemon_thread(self._load_once)
        except Exception as exc:
            await self.show_error(*load_problem(exc, app.root))
            return
        self.clear_error()
        after = self.seen_fingerprint
        if app.loaded and before is not None and after is not None and seen_by is session:
            # an edit on disk (or ctrl+r): say what the reload found, in words
            app.notify(inert(reload_note(changed_paths(before, after))), title="Reload")
        app.loaded = True
        self._roles_changed()
        app.request_resolve(debounce=False)

    def _load_once(self) -> None:
        """Load (in a worker thread) and remember what the load's own scan saw: one walk of
        the tree at start, not two. After a failed load, what is on disk now; if that is no
        longer the failure the load saw (the config was just fixed), nothing, so the next
        check reloads."""
        session = self.app.session
        watched, self.watched = self.watched, False
        try:
            if watched:
                session.reload()
            else:
                session.load()
        except BaseException:
            seen = session.fingerprint()
            self.seen_fingerprint = None if seen.scanned else seen
            raise
        self.seen_fingerprint = session.loader.fingerprint

    async def watch(self, reload: Callable[[], Worker[None]]) -> None:
        """Call ``reload`` when the files changed (:class:`~octui.tui.loading.DiskWatch`);
        that load re-reads only the paths the watch noted (a load asked for otherwise, such
        as ctrl+r, scans everything)."""
        app = self.app

        def watched_reload() -> Worker[None]:
            self.watched = True
            return reload()

        self.watcher = watch = DiskWatch(
            lambda: app.session, lambda: self.seen_fingerprint, watched_reload, app.poll_interval
        )
        await watch.run()

    async def show_error(self, title: str, where: str, problem: str) -> None:
        """Show (or update) the error screen; ``error`` is set once it is on screen."""
        app = self.app
        if app.error_screen is not None:
            app.error_screen.update_error(title, where, problem)
        else:
            app.error_screen = ErrorScreen(title, where, problem)
            await app.push_screen(app.error_screen)
            await asyncio.sleep(0)
        app.error = (title, where, problem)
        app.settled.set()

    def clear_error(self) -> None:
        app = self.app
        app.error = None
        screen, app.error_screen = app.error_screen, None
        if screen is not None:
            while screen in app.screen_stack and len(app.screen_stack) > 1:
                app.pop_screen()

    def _roles_changed(self) -> None:
        app = self.app
        repo = app.session.repository
        assert repo is not None
        roles = list(repo.config.roles)  # as declared: the first one is the default
        role = app.inputs.role
        problem = role_problem(role, roles, shown=app.view is not None)
        if problem is not None:  # role names come from the configuration: shown literally
            app.notify(problem[0], severity=problem[1], markup=False)
        if role not in roles:
            role = roles[0] if roles else None
            app.inputs = replace(app.inputs, role=role)
        app.main.query_one(InputsPane).set_roles(roles, role)

    # -- resolving -----------------------------------------------------------------------

    def kept_view(self, generation: int, inputs: Inputs) -> View | None:
        """The view of ``inputs`` as generation ``generation`` when the view cache has it
        made (a key asking for it again, or for one the prefetch made): no debounce, no
        thread, no "resolving…" paint before it."""
        repo = self.app.session.repository
        if repo is None:
            return None
        return self.app.views.kept(repo, inputs.query(self.app.clock()), generation)

    async def resolve(self, generation: int, inputs: Inputs, delay: float) -> None:
        """Debounce, then resolve on the single resolver thread.

        The app's worker is ``exclusive``: it cancels the previous one, but a thread cannot
        be stopped: so resolutions run one at a time on a one-thread executor, a job that
        is still queued when it is cancelled never starts, and a job whose generation is no
        longer the newest returns at once.
        """
        app = self.app
        if delay:
            await asyncio.sleep(delay)
        query = inputs.query(app.clock())
        session = app.session

        def compute() -> View | None:
            if generation != app.generation:
                return None  # a newer request exists: skip the work
            return app.views.view(session, query, generation)

        loop = asyncio.get_running_loop()
        try:
            view = await loop.run_in_executor(self.executor, compute)
        except UnknownRole as exc:
            app.notify(inert(str(exc), keep_newlines=False), severity="error", markup=False)
            app.settled.set()
            return
        except Exception as exc:  # pragma: no cover - a bug in the core; say so, keep running
            app.notify(inert(f"resolution failed: {exc}"), severity="error", markup=False)
            app.settled.set()
            return
        if view is not None:
            app.apply_view(view)

    def apply_view(self, view: View) -> bool:
        """Show ``view`` unless a newer resolution was asked for since. Returns True if shown."""
        app = self.app
        if view.generation != app.generation or view.generation <= app.applied_generation:
            return False
        if not app._main_ready():
            return False
        app.applied_generation = view.generation
        app.view = view
        for widget in app.main.walk_children():  # (a "*" query matched a selector per widget)
            show_view = getattr(widget, "show_view", None)
            if callable(show_view):
                show_view(view)
        app.main.query_one(StatusBar).show(view, following_now=app.inputs.as_of is None)
        self.finish_digest(view)
        app.show_context()
        app.feature_set.orientation.follow_active_table()
        if view.query.role is not None and view.query.role != self.remembered_role:
            self.remembered_role = view.query.role
            remember_role(app.root, view.query.role)  # the explorer reopens on it
        app.post_message(ViewApplied(view))  # the features follow
        # the new view's row into the detail pane now: one layout and one paint show the
        # tables and the detail together, and no later refresh is waited for (the table's
        # Highlighted then finds the row shown)
        app._refresh_selection()
        app.settled.set()  # (never waits for the app's queue: an action may be awaiting it)
        return True

    def finish_digest(self, view: View) -> None:
        """Compute the digest of ``view``, just shown with its tables and the digest pending,
        once that paint is made (the two threads share the interpreter: the digest would
        hold up the tables' layout and paint), then show it in the status line if ``view``
        is still the one on show. A newer view cancels the wait, and a job whose view is no
        longer on show when its turn comes computes nothing; a resolution asked for
        meanwhile runs after it."""
        if view.known_digest is not None:
            return
        app = self.app
        painted = app.paints

        async def finish() -> None:
            await app.after_paint(painted)
            found = await self._digest(view, lambda: app.view is view)
            if found is not None and app.view is view and app._main_ready():
                app.main.query_one(StatusBar).show(
                    view,
                    pending=app.applied_generation != app.generation,
                    following_now=app.inputs.as_of is None,
                )

        app.digest_worker = app.run_worker(
            finish, name="the digest", group="digest", exclusive=True, exit_on_error=False
        )

    async def digest(self, view: View) -> str:
        """``view``'s digest, never computed on the UI thread (a new view's is computed
        after its tables are shown, tens of milliseconds at 50k objects): known already, or
        computed on the resolver thread, after what was asked of it before — the digest
        the status line waits for among them, which this then finds made. The status line,
        copy and export get a view's digest through it (an export's written bundle
        computes its digest again off the UI thread, usually found in the stage's memo)."""
        found = await self._digest(view, lambda: True)
        assert found is not None
        return found

    async def _digest(self, view: View, wanted: Callable[[], bool]) -> str | None:
        """``view``'s digest (see :meth:`digest`), or None when ``wanted()`` says no as the
        resolver thread comes to it."""
        if view.known_digest is not None:
            return view.known_digest

        def compute() -> str | None:
            return finish_view(view) if wanted() else None

        return await asyncio.get_running_loop().run_in_executor(self.executor, compute)
