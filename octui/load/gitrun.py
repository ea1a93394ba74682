"""Running git on an untrusted repository, and the plumbing queries octui asks of it.

Every git command runs hardened (:func:`hardened_git`): the repository's configuration
cannot make it run a program, fetch, or write. Only plumbing is used (no aliases), and
nothing here ever asks git for an object a partial clone does not have.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path


class GitRevisionError(Exception):
    """A revision cannot be read: not a git repository, unknown revision, git missing."""


_NEVER_RUNS = "/dev/null/octui-never-runs"
"""A program path that cannot exist (``/dev/null`` is not a folder): nothing can start."""


_TRANSPORTS = ("file", "git", "ssh", "http", "https", "ftp", "ftps", "ext", "fd")

#: Configuration given on every git command line. Command-line values override the
#: repository's ``.git/config`` (read last, they win), and git hands them on to any git it
#: starts itself, so they hold there too.
_HARDENED_CONFIG: tuple[tuple[str, str], ...] = (
    # No transport at all, whatever the repository allows: a partial clone's lazy fetch of
    # a missing object (git < 2.44 has no GIT_NO_LAZY_FETCH) cannot reach any remote.
    ("protocol.allow", "never"),
    *((f"protocol.{name}.allow", "never") for name in _TRANSPORTS),
    # ...and the lazy fetch itself (a ``git fetch`` child) stops while reading its
    # configuration, before it could write .git/config or start anything: it rejects this value.
    ("fetch.recurseSubmodules", "octui-never-fetches"),
    ("submodule.recurse", "false"),
    ("core.sshCommand", _NEVER_RUNS),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("core.alternateRefsCommand", _NEVER_RUNS),
    # No signature verification and no signing program.
    ("log.showSignature", "false"),
    ("gpg.program", _NEVER_RUNS),
    ("gpg.openpgp.program", _NEVER_RUNS),
    ("gpg.x509.program", _NEVER_RUNS),
    ("gpg.ssh.program", _NEVER_RUNS),
    # Nothing else a repository's configuration can make git run or write.
    ("core.pager", "cat"),
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.attributesFile", os.devnull),
    ("diff.external", _NEVER_RUNS),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("log.mailmap", "false"),
    ("i18n.logOutputEncoding", "UTF-8"),
)

#: Set in git's environment (every inherited ``GIT_*`` variable is dropped first).
_HARDENED_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_OPTIONAL_LOCKS": "0",  # never refresh or write the index
    "GIT_NO_LAZY_FETCH": "1",  # git >= 2.44: a missing object is never fetched
    "GIT_ALLOW_PROTOCOL": "",  # beats every protocol.*.allow: no transport is allowed
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_SSH_COMMAND": _NEVER_RUNS,
    "GIT_SSH": _NEVER_RUNS,
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_LITERAL_PATHSPECS": "1",
    "LC_ALL": "C",
}
_DROPPED_ENV = ("SSH_ASKPASS",)


def hardened_git(cwd: str) -> tuple[list[str], dict[str, str]]:
    """The argv prefix (``git --no-pager -c ... -C cwd``) and the environment every git
    command runs with.

    A repository is untrusted: nothing in its ``.git/config``, ``.gitattributes`` or hooks
    may run a program or write into ``.git`` — no lazy fetch, no transport, no signature
    program, pager, fsmonitor, hook, external diff, textconv or filter, no optional lock, no
    system or global configuration, no prompt. Callers use plumbing only (no aliases).
    """
    exe = shutil.which("git")
    if exe is None:
        raise GitRevisionError("git is not installed; --rev needs it")
    argv = [exe, "--no-pager", "--literal-pathspecs"]
    for key, value in _HARDENED_CONFIG:
        argv += ["-c", f"{key}={value}"]
    argv += ["-C", cwd]
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k not in _DROPPED_ENV
    }
    env.update(_HARDENED_ENV)
    return argv, env


def git(cwd: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    argv, env = hardened_git(cwd)
    return subprocess.run(
        [*argv, *args],
        input=stdin,
        capture_output=True,
        env=env,
        check=False,
    )


def first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else ""


def nearest_existing_dir(path: Path) -> Path:
    current = path.absolute()
    while not current.is_dir():
        if current.parent == current:
            break
        current = current.parent
    return current


def locate_worktree(path: Path) -> tuple[str, str]:
    """``(git top level, prefix)`` of the work tree holding ``path``; the prefix is the
    POSIX path of ``path`` below the top level ("" at the top)."""
    start = nearest_existing_dir(path)
    top = git(str(start), "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        reason = first_line(top.stderr)
        if "not a git repository" in reason.lower() or not reason:
            raise GitRevisionError(f"{path}: not inside a git repository (--rev needs one)")
        raise GitRevisionError(f"{path}: {reason}")
    toplevel = os.fsdecode(top.stdout).rstrip("\n")
    real_top = os.path.realpath(toplevel)
    real_path = os.path.realpath(path.absolute())
    rel = os.path.relpath(real_path, real_top)
    if rel == "." or rel == "":
        return toplevel, ""
    if rel.startswith(".."):
        raise GitRevisionError(f"{path}: not inside the git work tree at {toplevel}")
    return toplevel, rel.replace(os.sep, "/")


def resolve_commit(toplevel: str, rev: str) -> str:
    """The commit id ``rev`` names in the repository at ``toplevel``."""
    if not rev or rev.startswith("-"):
        raise GitRevisionError(f"unknown git revision {rev!r} in {toplevel}")
    found = git(
        toplevel,
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        f"{rev}^{{commit}}",
    )
    if found.returncode != 0:
        raise GitRevisionError(f"unknown git revision {rev!r} in {toplevel}")
    return found.stdout.decode("ascii", "replace").strip()


def _parse_listing(data: bytes) -> Iterator[tuple[str, str, str, str]]:
    """``(mode, type, object id, path)`` of each ``ls-tree -r -z`` record; a record not in
    this shape is skipped."""
    for record in data.split(b"\0"):
        meta, tab, raw_path = record.partition(b"\t")
        fields = meta.decode("ascii", "replace").split()
        if not tab or len(fields) != 3 or not raw_path:
            continue
        mode, kind, sha = fields
        yield mode, kind, sha, os.fsdecode(raw_path)


def parse_batch(data: bytes) -> Iterator[tuple[str, bytes]]:
    """``(object id, contents)`` of each object in ``cat-file --batch`` output; an object git
    calls missing (a header not ``<id> <type> <size>``) is skipped, a truncated one ends it."""
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            break
        header = data[pos:end].decode("ascii", "replace").split()
        pos = end + 1
        if len(header) != 3 or not header[2].isdigit():
            continue  # "<id> missing"
        size = int(header[2])
        yield header[0], data[pos : pos + size]
        pos += size + 1


def _parse_sizes(data: bytes) -> dict[str, int]:
    """``object id -> size`` from ``cat-file --batch-check='%(objectname) %(objectsize)'``;
    an object git calls missing (or any line not in this shape) is left out."""
    sizes: dict[str, int] = {}
    for line in data.decode("ascii", "replace").splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1].isdigit():
            sizes[fields[0]] = int(fields[1])
    return sizes


def list_commit(
    toplevel: str, commit: str, rev: str
) -> list[tuple[str, str, str, str, int | None]]:
    """``(mode, type, object id, path, size)`` of every entry of ``commit``'s tree; the size
    is None for a blob this clone does not have.

    Nothing here ever asks git for a missing object (in a partial clone that would fetch it
    or, with fetching off, stop git): ``rev-list --missing=print`` names the missing objects
    without fetching, the tree is listed without sizes, and sizes are asked of present
    blobs only.
    """
    missing_run = git(
        toplevel,
        "rev-list",
        "--objects",
        "--no-object-names",
        "--no-walk",
        "--missing=print",
        "--end-of-options",
        commit,
    )
    missing = {
        line[1:]
        for line in missing_run.stdout.decode("ascii", "replace").splitlines()
        if line.startswith("?")
    }
    listing = git(toplevel, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit)
    if listing.returncode != 0:
        problem = first_line(listing.stderr) or "git ls-tree failed"
        if missing:
            problem = "some of its folders are not in this clone (partial clone?); not fetched"
        raise GitRevisionError(f"cannot list revision {rev!r}: {problem}")
    entries = list(_parse_listing(listing.stdout))
    present = sorted({sha for _, kind, sha, _ in entries if kind == "blob"} - missing)
    sizes: dict[str, int] = {}
    if present:
        checked = git(
            toplevel,
            "cat-file",
            "--batch-check=%(objectname) %(objectsize)",
            stdin="\n".join(present).encode("ascii", "replace") + b"\n",
        )
        sizes = _parse_sizes(checked.stdout)
    return [(mode, kind, sha, path, sizes.get(sha)) for mode, kind, sha, path in entries]
