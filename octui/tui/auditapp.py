"""The audit's hooks in the explorer: the Roles block of the detail pane, the fix loop
through the user's editor, and moving from the audit view to an object in a role.

Functions of the :class:`~octui.tui.host.Host` (the app as its parts see it), so the app
itself only binds the keys: ``u`` opens the audit view, ``e`` opens the selected object's
file in the editor. Audits come from the app's :class:`~octui.tui.auditmodel.AuditCache`.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from datetime import datetime
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported
from textual.css.query import NoMatches

from octui.analysis.audit import Audit, finding_key
from octui.core.model import Exclusion, Finding
from octui.core.textsafe import inert
from octui.load.assemble import Repository
from octui.resolve.result import Included
from octui.tui.auditmodel import AuditCache, fate_sentence, object_fates, object_line
from octui.tui.background import in_daemon_thread
from octui.tui.editor import EditorError, editor_command
from octui.tui.host import Host
from octui.tui.messages import Row
from octui.tui.widgets.detail import DetailPane

if TYPE_CHECKING:
    from octui.tui.state import View

ROLES_TITLE = "Roles (this as_of, empty task)"
ROLES_JUDGED = "  judged on what this role may read"
ROLES_DELAY = 0.05
"""Seconds the Roles block waits, after the key's own paint, before it resolves every
role (the audit shares the interpreter with the UI): a key pressed meanwhile starts
nothing (its newer selection cancels the wait)."""


async def audit_for(app: Host, as_of: datetime | None = None) -> Audit | None:
    """The audit of the loaded repository at ``as_of`` (the current view's instant by
    default), computed off the UI thread once per repository and instant."""
    repo: Repository | None = app.session.repository
    if repo is None:
        return None
    if as_of is None:
        view = app.view
        as_of = view.query.as_of if view is not None else app.clock()
    assert as_of is not None
    found = app.audits.get(repo, as_of)
    if found is not None:
        return found
    return await in_daemon_thread(app.audits.audit, repo, as_of, app.root)


# -- the Roles block --------------------------------------------------------------------------


def _readable_uid(view: View, item: Row | None) -> int | None:
    """The object behind a row the role may read (never a denied one)."""
    if isinstance(item, Included):
        return item.obj.uid
    if isinstance(item, Exclusion) and not item.reason.is_denial:
        obj = view.object_of(item)
        return obj.uid if obj is not None else None
    return None


def resolving_lines(shown: list[str] | None) -> list[str]:
    """The Roles block while it is computed, as tall as the block ``shown`` before it (one
    line per role, as the next one will be): the pane below it does not move twice, and
    the screen is not laid out again for it (10-40 ms of the UI thread at 50k objects)."""
    lines = [ROLES_TITLE, "  resolving every role…"]
    return lines + [""] * (len(shown or lines) - len(lines))


def role_lines(a: Audit, uid: int, *, judged: bool = False) -> list[str] | None:
    fates = object_fates(a, uid)
    if fates is None:
        return None
    width = max((len(inert(r, keep_newlines=False)) for r, _ in fates), default=0)
    head = [ROLES_TITLE, ROLES_JUDGED] if judged else [ROLES_TITLE]
    return head + [
        f"  {inert(role, keep_newlines=False):<{width}}  {fate_sentence(fate)}"
        for role, fate in fates
    ]


def show_roles_block(app: Host, view: View | None, item: Row | None) -> None:
    """Fill the detail pane's Roles block for the selected object (computed in a thread
    the first time); hide it for denied rows and findings, which never get one."""
    try:
        detail = app.main.query_one("#detail", DetailPane)
    except NoMatches:
        return
    uid = _readable_uid(view, item) if view is not None else None
    if view is None or uid is None:
        detail.show_roles(None)
        return
    repo, role, as_of = view.resolution.repository, view.query.role, view.query.as_of
    audits = app.audits
    found = cached_roles(audits, repo, role, as_of, uid)
    if found is not None:
        detail.show_roles(found)
        return
    detail.show_roles(resolving_lines(detail.roles_lines))

    painted = app.paints

    async def compute() -> None:
        await app.after_paint(painted)  # the key's own paint first; a newer selection
        await asyncio.sleep(ROLES_DELAY)  # (or key) cancels this wait and starts nothing
        lines = await in_daemon_thread(roles_of, audits, repo, role, as_of, uid)
        if app.view is view and app.selected is item:
            detail.show_roles(lines)

    app.roles_worker = app.run_worker(
        compute, name="the Roles block", group="roles-block", exclusive=True, exit_on_error=False
    )


def _judged(
    audits: AuditCache, repo: Repository, role: str | None, uid: int, *, compute: bool = True
) -> tuple[Repository, int | None] | None:
    """The repository a role view judges other roles on (what ``role`` may read: the
    objects it may not read never change what it is shown), and ``uid`` there (None when
    not ``compute``-d yet)."""
    if role is None:
        return repo, uid
    found = audits.judged(repo, role, compute=compute)
    if found is None:
        return None
    judged, uids = found
    return judged, uids.get(uid)


def roles_of(
    audits: AuditCache, repo: Repository, role: str | None, as_of: datetime, uid: int
) -> list[str] | None:
    """The Roles block of object ``uid`` in the view of ``role`` (runs in a thread)."""
    found = _judged(audits, repo, role, uid)
    assert found is not None
    judged, seen = found
    if seen is None:
        return None
    return role_lines(audits.audit(judged, as_of), seen, judged=role is not None)


def cached_roles(
    audits: AuditCache, repo: Repository, role: str | None, as_of: datetime, uid: int
) -> list[str] | None:
    """:func:`roles_of` when it is already computed (None otherwise)."""
    found = _judged(audits, repo, role, uid, compute=False)
    if found is None or found[1] is None:
        return None
    judged, seen = found
    assert seen is not None
    a = audits.get(judged, as_of)
    return role_lines(a, seen, judged=role is not None) if a is not None else None


async def roles_settled(app: Host) -> None:
    """Wait until the Roles block of the selected object is filled in (for tests)."""
    worker = app.roles_worker
    if worker is not None:
        with contextlib.suppress(Exception):  # cancelled by a newer selection
            await worker.wait()


# -- the fix loop -----------------------------------------------------------------------------


async def edit_selected(app: Host) -> None:
    """Open the file of the selected row at the line of its finding (``e`` in a role view)."""
    item = app.selected
    view = app.view
    if view is None or item is None:
        app.notify("select an object or a warning first", severity="warning")
        return
    if isinstance(item, Exclusion) and item.reason.is_denial:
        app.notify(
            "denied to this role: only its id and reason are shown here "
            "(the audit view, u, shows the owner's view)",
            severity="warning",
        )
        return
    a = await audit_for(app)
    if isinstance(item, Finding):
        key = finding_key(item)
        match = next((f for f in a.findings if finding_key(f.finding) == key), None) if a else None
        if match is None or not match.finding.paths:
            app.notify("this warning names no file", severity="warning")
            return
        await open_in_editor(app, match.finding.paths[0], match.finding.line)
        return
    obj = view.object_of(item)
    if obj is None:
        app.notify("this row has no file (its source is unavailable)", severity="warning")
        return
    await open_in_editor(app, obj.path, object_line(a, obj.path) if a else None)


async def open_in_editor(app: Host, rel: str, line: int | None) -> bool:
    """Suspend the explorer, run ``$VISUAL``/``$EDITOR`` on ``rel`` at ``line``, then reload
    and re-resolve. True when the editor ran. The explorer itself writes nothing."""
    if app.revision is not None:
        app.notify(
            "reading a git revision: the editor edits the working tree (g: back to it)",
            severity="warning",
        )
        return False
    if app.is_web:
        app.notify("the editor cannot run in a browser session", severity="warning")
        return False
    try:
        argv = editor_command(app.root / rel, line)
    except EditorError as exc:
        app.notify(str(exc), severity="error", title="Editor")
        return False
    try:
        with app.suspend():
            subprocess.run(argv, check=False)  # the user's own editor, no shell
    except SuspendNotSupported:
        app.notify("this terminal cannot hand over to an editor", severity="error")
        return False
    except OSError as exc:
        app.notify(inert(f"cannot run {argv[0]}: {exc}"), severity="error", title="Editor")
        return False
    worker = app.reload_repository()
    await worker.wait()
    await app.wait_settled()
    return True


# -- from the audit view to a role ------------------------------------------------------------


async def jump_in_role(app: Host, role: str | None, ref: str) -> None:
    """Close the audit view, switch the main view to ``role`` and select ``ref``."""
    while len(app.screen_stack) > 1:
        app.pop_screen()
    if role is not None and role != app.inputs.role:
        app.set_role(role)
    await app.wait_settled()
    view = app.view
    if view is not None and role is not None and view.query.role != role:
        return  # a newer choice replaced this one
    app.action_jump(ref)
