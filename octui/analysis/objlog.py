"""Per-object history from git: every commit that changed a file holding an id.

:func:`object_log` walks the first-parent history of ``HEAD`` over the repository folder
(``git log --first-parent -M --raw``, renames followed), reads the old and new blob of
every object file each commit changed, parses both with the loader's ``parse_file`` and
reports, per version of the id: added, removed, or changed — each changed field as
old → new (normalised as in the bundle: instants RFC 3339 UTC, lists as lists) and a
unified diff of the body. Nothing is checked out; every git command is hardened.

A blob is parsed only when its bytes contain the id (an id is written literally in
the front matter), so a long history over a large repository stays cheap.
"""

from __future__ import annotations

import difflib
import os
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from octui.bundle.bundle import object_fields
from octui.core.enums import LogChangeKind
from octui.core.model import ContextObject
from octui.core.timeutil import format_instant
from octui.load.assemble import object_from_fields
from octui.load.frontmatter import parse_file
from octui.load.gitrun import GitRevisionError, git, parse_batch
from octui.load.known_at import git_toplevel
from octui.load.names import is_object_path
from octui.load.tree import MAX_FILE_BYTES

_ZERO = "0" * 40
BODY = "content"
"""The field holding an object's body: reported as a unified diff, not old → new."""

MAX_COMMITS = 10_000
"""At most this many commits are read (newest first)."""


@dataclass(frozen=True, slots=True)
class VersionChange:
    version: int
    path: str
    kind: LogChangeKind
    fields: dict[str, list[Any]] = field(default_factory=dict)
    """Each changed field: ``[old, new]`` (``path`` too, when the file was renamed)."""
    body_diff: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "path": self.path,
            "kind": self.kind.value,
            "fields": self.fields,
            "body_diff": self.body_diff,
        }


@dataclass(frozen=True, slots=True)
class LoggedCommit:
    commit: str
    author: str
    date: datetime
    subject: str
    changes: tuple[VersionChange, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "author": self.author,
            "date": format_instant(self.date),
            "subject": self.subject,
            "changes": [c.to_json() for c in self.changes],
        }


@dataclass(frozen=True, slots=True)
class ObjectLog:
    id: str
    commits: tuple[LoggedCommit, ...]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "commits": [c.to_json() for c in self.commits]}


def _prefix(toplevel: str, path: str) -> str:
    rel = os.path.relpath(os.path.realpath(os.path.abspath(path)), os.path.realpath(toplevel))
    if rel.startswith(".."):
        raise GitRevisionError(f"{path}: not inside the git work tree at {toplevel}")
    return "" if rel in (".", "") else rel.replace(os.sep, "/")


@dataclass(slots=True)
class _Touch:
    """One file a commit changed: old and new path and blob (None: absent on that side)."""

    old_path: str | None
    new_path: str | None
    old_blob: str | None
    new_blob: str | None


@dataclass(slots=True)
class _RawCommit:
    commit: str
    author: str
    date: datetime
    subject: str
    touches: list[_Touch] = field(default_factory=list)


def _is_commit_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _parse_meta(data: bytes) -> dict[str, tuple[str, datetime, str]]:
    """``commit -> (author, date, subject)`` from ``--format=%H%x00%an%x00%ae%x00%ct%x00%s%x00``
    records (one a line: no field of a commit's headers holds a NUL or a line break)."""
    out: dict[str, tuple[str, datetime, str]] = {}
    for record in data.decode("utf-8", "replace").split("\0\n"):
        fields = record.lstrip("\n").split("\0")
        if len(fields) < 5 or not _is_commit_id(fields[0]):
            continue
        sha, name, email, stamp, subject = fields[:5]
        try:
            when = datetime.fromtimestamp(int(stamp), UTC)
        except (ValueError, OverflowError, OSError):
            continue
        out[sha] = (f"{name} <{email}>" if email else name, when, subject)
    return out


def _parse_raw(data: bytes, meta: dict[str, tuple[str, datetime, str]]) -> list[_RawCommit]:
    """Commits and the files each changed, from ``git log --format=%x01%H --raw -z``: a
    header field, then per file a ``:modes blobs status`` field and its path(s). Paths are
    taken by position, never inspected, so no file name can pass for a header."""
    commits: list[_RawCommit] = []
    fields = data.split(b"\0")
    i = 0
    while i < len(fields):
        item = fields[i].lstrip(b"\n")
        i += 1
        if item.startswith(b"\x01"):
            sha = item[1:].decode("ascii", "replace")
            author, when, subject = meta.get(sha, ("", datetime.fromtimestamp(0, UTC), ""))
            commits.append(_RawCommit(sha, author, when, subject))
            continue
        text = item.decode("ascii", "replace")
        if not text.startswith(":") or not commits:
            continue
        parts = text[1:].split()
        if len(parts) != 5:
            continue
        _, _, old_blob, new_blob, status = parts
        kind = status[:1]
        count = 2 if kind in ("R", "C") else 1
        paths = [os.fsdecode(f) for f in fields[i : i + count]]
        i += count
        if not paths:
            continue
        old_path, new_path = paths[0], paths[-1]
        commits[-1].touches.append(
            _Touch(
                None if kind == "A" else old_path,
                None if kind == "D" else new_path,
                None if kind == "A" or old_blob == _ZERO else old_blob,
                None if kind == "D" or new_blob == _ZERO else new_blob,
            )
        )
    return commits


def _is_object_file(path: str | None, prefix: str) -> bool:
    if path is None:
        return False
    rel = path[len(prefix) + 1 :] if prefix else path
    if any(part.startswith(".") for part in rel.split("/")):
        return False
    return is_object_path(rel)


def _read_blobs(toplevel: str, shas: set[str], needle: bytes) -> dict[str, bytes]:
    """The bytes of each blob within the size cap that contains ``needle``."""
    if not shas:
        return {}
    ordered = sorted(shas)
    checked = git(
        toplevel,
        "cat-file",
        "--batch-check=%(objectname) %(objecttype) %(objectsize)",
        stdin="\n".join(ordered).encode("ascii") + b"\n",
    )
    wanted = []
    for line in checked.stdout.decode("ascii", "replace").splitlines():
        parts = line.split()
        big = len(parts) != 3 or not parts[2].isdigit() or int(parts[2]) > MAX_FILE_BYTES
        if not big and parts[1] == "blob":
            wanted.append(parts[0])
    out: dict[str, bytes] = {}
    for start in range(0, len(wanted), 512):
        batch = wanted[start : start + 512]
        result = git(toplevel, "cat-file", "--batch", stdin="\n".join(batch).encode() + b"\n")
        for sha, blob in parse_batch(result.stdout):
            if needle in blob:
                out[sha] = blob
    return out


def _versions(
    object_id: str, rel: str, blob: bytes | None, cache: dict[tuple[str, str], list[ContextObject]]
) -> list[ContextObject]:
    """The objects of ``object_id`` one file holds (none when it does not parse)."""
    if blob is None:
        return []
    key = (rel, _blob_key(blob))
    if key not in cache:
        parsed = parse_file(rel, blob)
        found: list[ContextObject] = []
        if parsed.fields is not None and parsed.fields.get("id") == object_id:
            try:
                found.append(_object(parsed.fields, rel))
            except (TypeError, ValueError, KeyError):
                found = []
        cache[key] = found
    return cache[key]


def _object(f: Mapping[str, Any], rel: str) -> ContextObject:
    """The object a file's parsed fields describe, as declared (no source forcing authority,
    no classification default: what the file itself says)."""
    return object_from_fields(f, rel, authority=f["authority"], classification=f["classification"])


def _blob_key(blob: bytes) -> str:
    import hashlib

    return hashlib.sha1(blob, usedforsecurity=False).hexdigest()


def _values(obj: ContextObject) -> dict[str, Any]:
    return object_fields(obj) | {BODY: obj.content}


def _body_diff(old: str, new: str, path_a: str, path_b: str) -> str | None:
    if old == new:
        return None
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path_a}",
        tofile=f"b/{path_b}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _compare(old: ContextObject, new: ContextObject, old_path: str, new_path: str) -> VersionChange:
    va, vb = _values(old), _values(new)
    fields = {
        k: [va.get(k), vb.get(k)]
        for k in va | vb
        if k not in ("id", "version", BODY) and va.get(k) != vb.get(k)
    }
    if old_path != new_path:
        fields["path"] = [old_path, new_path]
    ordered = dict(sorted(fields.items()))
    body = _body_diff(old.content or "", new.content or "", old_path, new_path)
    return VersionChange(new.version, new_path, LogChangeKind.CHANGED, ordered, body)


def _rel(path: str, prefix: str) -> str:
    return path[len(prefix) + 1 :] if prefix else path


def _changes(
    object_id: str,
    raw: _RawCommit,
    prefix: str,
    blobs: dict[str, bytes],
    cache: dict[tuple[str, str], list[ContextObject]],
) -> list[VersionChange]:
    before: dict[int, list[tuple[str, ContextObject]]] = defaultdict(list)
    after: dict[int, list[tuple[str, ContextObject]]] = defaultdict(list)
    for t in raw.touches:
        if t.old_path is not None and t.old_blob is not None:
            rel = _rel(t.old_path, prefix)
            for obj in _versions(object_id, rel, blobs.get(t.old_blob), cache):
                before[obj.version].append((rel, obj))
        if t.new_path is not None and t.new_blob is not None:
            rel = _rel(t.new_path, prefix)
            for obj in _versions(object_id, rel, blobs.get(t.new_blob), cache):
                after[obj.version].append((rel, obj))
    out: list[VersionChange] = []
    for version in sorted(set(before) | set(after)):
        olds = sorted(before.get(version, []), key=lambda p: p[0])
        news = sorted(after.get(version, []), key=lambda p: p[0])
        # the same path first, then what is left in path order
        for path, obj in list(olds):
            match = next((n for n in news if n[0] == path), None)
            if match is not None:
                olds.remove((path, obj))
                news.remove(match)
                change = _compare(obj, match[1], path, match[0])
                if change.fields or change.body_diff:
                    out.append(change)
        while olds and news:
            (pa, a), (pb, b) = olds.pop(0), news.pop(0)
            out.append(_compare(a, b, pa, pb))
        out.extend(VersionChange(version, path, LogChangeKind.REMOVED) for path, _ in olds)
        out.extend(VersionChange(version, path, LogChangeKind.ADDED) for path, _ in news)
    return out


def object_log(path: str, object_id: str, *, max_commits: int = MAX_COMMITS) -> ObjectLog:
    """Every first-parent commit of ``HEAD`` that changed a file holding ``object_id``
    (renames followed), newest first. Raises :class:`GitRevisionError` (one line) when
    ``path`` is not in a git work tree or git is missing."""
    toplevel = git_toplevel(path)
    prefix = _prefix(toplevel, path)
    walk = (
        "log",
        "--first-parent",
        "--no-show-signature",
        "--no-notes",
        "--no-mailmap",
        "--no-color",
        f"--max-count={max(1, max_commits)}",
    )
    paths = ("--end-of-options", "HEAD", "--", prefix or ".")
    log = git(
        toplevel,
        *walk,
        "--no-ext-diff",
        "--no-textconv",
        "--no-abbrev",
        "--raw",
        "-z",
        "-M",
        "--format=%x01%H",
        *paths,
    )
    if log.returncode != 0:
        return ObjectLog(object_id, ())  # no commits yet
    meta = git(toplevel, *walk, "--format=%H%x00%an%x00%ae%x00%ct%x00%s%x00", *paths)
    raw_commits = _parse_raw(log.stdout, _parse_meta(meta.stdout))
    for raw in raw_commits:
        raw.touches = [
            t
            for t in raw.touches
            if _is_object_file(t.old_path, prefix) or _is_object_file(t.new_path, prefix)
        ]
    shas = {
        sha
        for raw in raw_commits
        for t in raw.touches
        for sha in (t.old_blob, t.new_blob)
        if sha is not None
    }
    blobs = _read_blobs(toplevel, shas, object_id.encode("utf-8"))
    cache: dict[tuple[str, str], list[ContextObject]] = {}
    commits = []
    for raw in raw_commits:
        changes = _changes(object_id, raw, prefix, blobs, cache)
        if changes:
            commits.append(
                LoggedCommit(raw.commit, raw.author, raw.date, raw.subject, tuple(changes))
            )
    return ObjectLog(object_id, tuple(commits))


__all__ = [
    "LoggedCommit",
    "ObjectLog",
    "VersionChange",
    "object_log",
]
