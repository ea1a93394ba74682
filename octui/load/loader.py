"""Loading a repository: walk the sources, parse each file, report every problem.

Reading goes through a :class:`Tree` — the working tree on disk
(:class:`FsTree`) or any other snapshot (a git revision) — so loading never
depends on where the bytes come from, and never writes anything.

Parsing one file is a pure function of its bytes (:func:`parse_file`), so its
result can be cached by file identity; everything that depends on the
configuration (forced authority, classification levels) happens afterwards in
:func:`assemble`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import stat
import unicodedata
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from octui.core.enums import Authority, WarningCode
from octui.core.model import KNOWN_FIELDS, ContextObject, Finding, FrontMatter, RepositorySource
from octui.load.config import CONFIG_FILE, Config, ConfigError, _describe, load_config_bytes
from octui.load.fastpath import fast_fields, fast_mapping
from octui.load.fsread import (
    BROKEN,
    HIDDEN,
    OUTSIDE,
    RefusedFile,
    hidden_below,
    inside,
    not_regular,
    read_inside,
    read_regular,
    resolve_inside,
)
from octui.load.strict_yaml import YamlError, decode_text, load_yaml
from octui.resolve.ranking import TokenTables

MAX_FILE_BYTES = 1024 * 1024
READ_BUDGET_BYTES = 1 << 30
"""The most distinct file content one load reads (1 GiB); files past it are findings."""
OBJECT_SUFFIXES = (".md", ".yaml", ".yml")
_AUTHORITIES = frozenset(a.value for a in Authority)
VANISHED = "file vanished while loading"


# -- reading ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """One directory entry. ``problem`` is set for entries that cannot be followed.

    ``identity`` names the real file or folder behind the entry (on disk its device and
    inode, in a git revision its resolved path; None when the tree cannot tell), so two
    paths to one real file are recognised. ``ino`` and ``ctime_ns`` complete the cache
    key on disk (0 elsewhere); ``link`` says the entry was reached through a symbolic link.
    """

    name: str
    rel: str
    is_dir: bool
    size: int = 0
    mtime_ns: int = 0
    problem: str | None = None
    ino: int = 0
    ctime_ns: int = 0
    identity: Hashable | None = None
    link: bool = False

    @property
    def key(self) -> FileKey:
        """What a parse of this file is cached under: a key that timestamps alone cannot
        forge (the inode and ``st_ctime_ns``, which only the kernel sets)."""
        return (self.rel, self.size, self.mtime_ns, self.ino, self.ctime_ns)


FileKey = tuple[str, int, int, int, int]
"""``(path, size, mtime_ns, inode, ctime_ns)`` of a file."""


class Tree(Protocol):
    """A read-only snapshot of a repository's files, addressed by POSIX relative paths."""

    def read(self, rel: str) -> bytes: ...

    def is_dir(self, rel: str) -> bool: ...

    def is_file(self, rel: str) -> bool: ...

    def scandir(self, rel: str) -> list[Entry]:
        """Entries of a folder; raises ``OSError`` when the folder cannot be read."""
        ...

    def describe(self, rel: str) -> str:
        """How to name ``rel`` in a message."""
        ...


class FsTree:
    """The working tree. Symbolic links are followed only while they stay inside the root and
    lead to nothing hidden; only regular files are read, at most ``MAX_FILE_BYTES + 1`` bytes
    of each (:mod:`octui.load.fsread`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root = Path(os.path.realpath(root))
        self._real = str(self.real_root)
        self._real_dirs: dict[str, str] = {}
        """``rel -> real path`` of every folder listed by :meth:`scandir` (saves a realpath
        of every file read)."""

    def _path(self, rel: str) -> Path:
        return self.root / rel if rel not in ("", ".") else self.root

    def describe(self, rel: str) -> str:
        return str(self._path(rel))

    def read(self, rel: str) -> bytes:
        parent, _, name = rel.rpartition("/")
        real_parent = self._real_dirs.get(parent)
        if real_parent is not None:
            candidate = os.path.join(real_parent, name)
            plain = inside(candidate, self._real) and not hidden_below(candidate, self._real)
            try:
                mode = os.lstat(candidate).st_mode if plain else 0
            except OSError:
                mode = 0
            if mode and not stat.S_ISLNK(mode):
                return read_regular(candidate, MAX_FILE_BYTES)
        return read_inside(str(self._path(rel)), self._real, MAX_FILE_BYTES)

    def is_dir(self, rel: str) -> bool:
        real = self._resolved(rel)
        return real is not None and os.path.isdir(real)

    def is_file(self, rel: str) -> bool:
        real = self._resolved(rel)
        return real is not None and os.path.isfile(real)

    def _resolved(self, rel: str) -> str | None:
        try:
            return resolve_inside(str(self._path(rel)), self._real)
        except OSError:
            return None

    def scandir(self, rel: str) -> list[Entry]:
        base = self._path(rel)
        key = "" if rel in ("", ".") else rel
        real_dir = self._real if not key else os.path.realpath(base)
        entries: list[Entry] = []
        with os.scandir(base) as it:
            for item in it:
                child = item.name if not key else f"{key}/{item.name}"
                if not _utf8(item.name):  # never let undecodable bytes reach an output
                    name, child = (
                        os.fsencode(n).decode("utf-8", "backslashreplace")
                        for n in (item.name, child)
                    )
                    problem = "file name is not valid UTF-8; rename it"
                    entries.append(Entry(name, child, _is_dir(item), problem=problem))
                    continue
                entries.append(self._entry(item, child, real_dir))
        self._real_dirs[key] = real_dir
        return entries

    def _entry(self, item: os.DirEntry[str], rel: str, real_dir: str) -> Entry:
        try:
            if item.is_symlink():
                return self._link_entry(item, rel, real_dir)
            st = item.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                return Entry(item.name, rel, True, identity=(st.st_dev, st.st_ino))
            if not stat.S_ISREG(st.st_mode):
                return Entry(item.name, rel, False, problem=not_regular(st.st_mode))
            return _file_entry(item.name, rel, st, link=False)
        except OSError as exc:
            return Entry(item.name, rel, False, problem=f"cannot be read ({exc.strerror or exc})")

    def _link_entry(self, item: os.DirEntry[str], rel: str, real_dir: str) -> Entry:
        real = os.path.realpath(item.path)
        is_dir = os.path.isdir(real)  # a folder link is reported, not skipped
        if not inside(real, self._real):
            return Entry(item.name, rel, is_dir, problem=OUTSIDE)
        if not os.path.lexists(real):
            return Entry(item.name, rel, False, problem=BROKEN)
        if hidden_below(real, self._real):
            return Entry(item.name, rel, is_dir, problem=HIDDEN)
        st = os.stat(real)
        if stat.S_ISDIR(st.st_mode):
            # A loop when the target holds the folder this link is in (a/loop -> ..).
            if inside(real_dir, real):
                return Entry(item.name, rel, True, problem="symbolic link loop; not followed")
            return Entry(item.name, rel, True, identity=(st.st_dev, st.st_ino), link=True)
        if not stat.S_ISREG(st.st_mode):
            return Entry(item.name, rel, False, problem=not_regular(st.st_mode))
        return _file_entry(item.name, rel, st, link=True)


def _file_entry(name: str, rel: str, st: os.stat_result, *, link: bool) -> Entry:
    return Entry(
        name,
        rel,
        False,
        st.st_size,
        st.st_mtime_ns,
        ino=st.st_ino,
        ctime_ns=st.st_ctime_ns,
        identity=(st.st_dev, st.st_ino),
        link=link,
    )


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # os.scandir's surrogate escapes for undecodable bytes
        return False
    return True


def _is_dir(item: os.DirEntry[str]) -> bool:
    try:
        return item.is_dir(follow_symlinks=False)
    except OSError:
        return False


# -- parsing one file ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """The result of parsing one file: front matter and body, an error, or not an object."""

    rel: str
    fields: dict[str, Any] | None = None
    unknown: tuple[str, ...] = ()
    error: str | None = None
    skipped: bool = False
    tokens: Any = field(default=None, compare=False)
    """The token table of the object these fields make, when the persistent parse cache
    kept it (:func:`octui.resolve.ranking.fields_token_table`); never part of what a file
    parses to."""


def split_front_matter(text: str) -> tuple[str, str] | None:
    """``(front matter, body)`` of a Markdown text, or None when it has no front matter.

    The front matter is the lines between the two ``---`` lines, each with its line
    break (so a block scalar ending the front matter keeps its final newline, as it
    would in a ``.yaml`` file). Raises ``YamlError`` when the opening ``---`` is never
    closed.
    """
    first_end = text.find("\n")
    if (text if first_end < 0 else text[:first_end]).rstrip() != "---":
        return None
    # Jump between lines that start with "---" instead of splitting the whole body.
    pos = first_end
    while pos >= 0:
        pos = text.find("\n---", pos)
        if pos < 0:
            break
        start = pos + 1
        end = text.find("\n", start)
        if (text[start:] if end < 0 else text[start:end]).rstrip() == "---":
            return text[first_end + 1 : pos + 1], "" if end < 0 else text[end + 1 :]
        pos = start
    raise YamlError("front matter opened with '---' is never closed")


def parse_file(rel: str, raw: bytes) -> ParsedFile:
    """Parse one object file. Pure: the same bytes always give the same result."""
    if len(raw) > MAX_FILE_BYTES:
        return ParsedFile(rel, error=f"file is larger than {MAX_FILE_BYTES} bytes (1 MiB)")
    try:
        text = decode_text(raw)
        if "\x00" in text:
            return ParsedFile(rel, error="file contains NUL bytes")
        if rel.endswith(".md"):
            split = split_front_matter(text)
            if split is None:
                return ParsedFile(rel, skipped=True)
            front, body = split
            # the fast path gives exactly what load_yaml would, or None (then load_yaml);
            # the "\n" keeps YAML line numbers file-relative
            data = fast_mapping(front) or load_yaml("\n" + front)
            if not isinstance(data, dict):
                return ParsedFile(rel, error=f"front matter is not a mapping (found {_kind(data)})")
            unknown_extra = ("content",) if "content" in data else ()
            data = {k: v for k, v in data.items() if k != "content"}
            data["content"] = body
        else:
            data = fast_mapping(text) or load_yaml(text)
            if not isinstance(data, dict):
                return ParsedFile(rel, error=f"document is not a mapping (found {_kind(data)})")
            unknown_extra = ()
    except YamlError as exc:
        return ParsedFile(rel, error=str(exc))
    bad_keys = [k for k in data if not isinstance(k, str)]
    if bad_keys:
        return ParsedFile(rel, error=f"front matter key {bad_keys[0]!r} is not a string")
    unknown = tuple(sorted(set(data) - KNOWN_FIELDS)) + unknown_extra
    fields = fast_fields(data)  # what Pydantic would give for plainly valid data, else None
    if fields is None:
        try:
            model = FrontMatter.model_validate(FrontMatter.coerce_enums(dict(data)))
        except ValidationError as exc:
            key, msg = _field_problem(exc.errors()[0])
            return ParsedFile(rel, error=f"{key}: {msg}" if key else msg)
        fields = model.model_dump(exclude=set(model.model_extra or ()))
    return ParsedFile(rel, fields=fields, unknown=unknown)


_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")
_EXPECTED = {"status": "expected active or draft", "layer": "expected one of L0, L1, L2, L3, L4"}


def _field_problem(error: Any) -> tuple[str, str]:
    """Pydantic's error in the repository's words; a look-alike character is named."""
    key, msg = _describe(error)
    kind, value, top = error.get("type"), error.get("input"), (error.get("loc") or ("",))[0]
    if kind == "string_pattern_mismatch" and isinstance(value, str):
        odd = sorted({c for c in value if c not in _ID_CHARS})
        named = ", ".join(f"{c!r} (U+{ord(c):04X} {unicodedata.name(c, '?')})" for c in odd)
        msg = (
            f"expected lower-case ASCII letters, digits, '.', '_' or '-', starting with a "
            f"letter or digit; got {value!r}" + (f", which contains {named}" if named else "")
        )
    elif kind == "is_instance_of" and top in _EXPECTED:
        msg = f"{_EXPECTED[str(top)]}, got {value!r}"
    return key, msg


def _kind(data: object) -> str:
    if data is None:
        return "nothing"
    return {list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(data), type(data).__name__
    )


# -- walking -------------------------------------------------------------------------------------


@dataclass
class Repository:
    """Everything read from a repository: its configuration, objects and load findings."""

    root: str
    config: Config
    objects: list[ContextObject]
    findings: list[Finding]
    unavailable_sources: list[tuple[str, str]]
    """``(source name, problem)`` for every configured source that could not be read."""
    invalid_files: int = 0
    source: RepositorySource = field(default_factory=RepositorySource)
    """Where it was read from (set by whoever reads a git revision)."""
    tokens: TokenTables = field(default_factory=TokenTables, compare=False, repr=False)
    """The objects' token tables for ranking (the loader's, kept across its loads)."""

    def by_id(self) -> dict[str, list[ContextObject]]:
        result: dict[str, list[ContextObject]] = {}
        for obj in self.objects:
            result.setdefault(obj.id, []).append(obj)
        return result


def _source_of(rel: str, source_paths: list[str]) -> str | None:
    """The deepest configured source path containing ``rel``."""
    best: str | None = None
    for path in source_paths:
        contains = path == "." or rel == path or rel.startswith(path + "/")
        if contains and (best is None or best == "." or len(path) > len(best)):
            best = path
    return best


Owned = Callable[[str], bool]


class _Walk:
    """One enumeration of every source, visiting each real folder and file once.

    Folders are walked in sorted order, a folder's files before its subfolders, hidden
    names skipped. Whatever is reached through a symbolic link waits until every source's
    real folders are walked, so a file is loaded at its own path whenever that path is
    walked, and a link is the second path. Real identity (device, inode) decides what was
    visited: a second path to a file or folder (a link, a hard link) is reported, not
    walked or loaded again, so no arrangement of links makes the walk grow beyond the
    real tree. Trees without identities (a git revision) are walked by path.
    """

    def __init__(self, tree: Tree, problems: list[tuple[str, str]]) -> None:
        self.tree = tree
        self.problems = problems
        self.files: list[tuple[str, Entry]] = []
        self.seen: dict[Hashable, str] = {}
        self.links: deque[tuple[str, Owned, Entry]] = deque()

    def mark(self, rel: str) -> None:
        """Count a source's own folder as visited."""
        if isinstance(self.tree, FsTree):
            with contextlib.suppress(OSError):
                st = os.stat(self.tree.describe(rel))
                self.seen.setdefault((st.st_dev, st.st_ino), rel or ".")

    def first_visit(self, entry: Entry) -> bool:
        """True the first time a real file or folder is met; a second path is reported."""
        identity = entry.identity
        if identity is None:
            return True
        earlier = self.seen.setdefault(identity, entry.rel)
        if earlier == entry.rel:
            return True
        if entry.is_dir:
            problem = f"a second path to the same folder as {earlier}; its files are loaded once"
            problem += ", from there"
        else:
            problem = f"a second path to the same file as {earlier}; loaded once, as {earlier}"
        self.problems.append((entry.rel, problem))
        return False

    def folder(self, source: str, base: str, owned: Owned) -> None:
        stack = [base]
        while stack:
            rel = stack.pop()
            try:
                entries = self.tree.scandir(rel)
            except OSError as exc:
                self.problems.append((rel, f"folder cannot be read ({exc.strerror or exc})"))
                continue
            subdirs: list[str] = []
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name.startswith("."):
                    continue
                candidate = entry.is_dir or entry.name.endswith(OBJECT_SUFFIXES)
                if entry.problem is not None:
                    if candidate:
                        self.problems.append((entry.rel, entry.problem))
                    continue
                if not candidate or entry.rel == CONFIG_FILE:
                    continue
                if entry.is_dir and not owned(entry.rel):
                    continue  # a nested source owns it
                if entry.link:
                    self.links.append((source, owned, entry))
                elif not self.first_visit(entry):
                    continue
                elif entry.is_dir:
                    subdirs.append(entry.rel)
                else:
                    self.files.append((source, entry))
            stack.extend(reversed(subdirs))

    def follow_links(self) -> None:
        while self.links:
            source, owned, entry = self.links.popleft()
            if not self.first_visit(entry):
                continue
            if entry.is_dir:
                self.folder(source, entry.rel, owned)
            else:
                self.files.append((source, entry))


def read_and_parse(rel: str, entry: Entry, tree: Tree) -> ParsedFile:
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


def scan(
    tree: Tree, config: Config
) -> tuple[list[tuple[str, Entry]], list[tuple[str, str]], list[tuple[str, str]]]:
    """Enumerate object files: ``(source name, entry)``, unreadable paths, unavailable sources."""
    paths = [s.path for s in config.sources]
    problems: list[tuple[str, str]] = []
    unavailable: list[tuple[str, str]] = []
    walk = _Walk(tree, problems)
    for source in config.sources:
        base = "" if source.path == "." else source.path
        if any(part.startswith(".") for part in base.split("/")):
            what = "is hidden; hidden files and folders are never read"
            unavailable.append((source.name, f"source path {source.path!r} {what}"))
            continue
        if base and not tree.is_dir(base):
            what = "is not a folder" if tree.is_file(base) else "does not exist"
            link = isinstance(tree, FsTree) and os.path.lexists(tree.describe(base))
            if link and not tree.is_file(base):
                what = (
                    "is a symbolic link that is broken, loops, leads outside the repository "
                    "or to a hidden folder"
                )
            unavailable.append((source.name, f"source path {source.path!r} {what}"))
            continue
        try:
            tree.scandir(base)
        except OSError as exc:
            unavailable.append(
                (source.name, f"source path {source.path!r} cannot be read ({exc.strerror})")
            )
            continue

        def owned(rel: str, mine: str = source.path) -> bool:
            return _source_of(rel, paths) == mine

        walk.mark(base)
        walk.folder(source.name, base, owned)
    walk.follow_links()
    return walk.files, problems, unavailable


Reuse = dict[int, tuple[ParsedFile, str, ContextObject]]
"""``id(parsed file) -> (parsed file, source name, object)`` of a previous :func:`assemble`."""


def assemble(
    root: str,
    config: Config,
    parsed: list[tuple[str, ParsedFile]],
    problems: list[tuple[str, str]],
    unavailable: list[tuple[str, str]],
    *,
    previous: Reuse | None = None,
    record: Reuse | None = None,
) -> Repository:
    """Turn parsed files into objects under ``config``; every problem becomes a finding.

    ``previous`` (made under the same configuration) lets an unchanged parsed file keep its
    object — and the token sets cached on it. An object is never changed once a repository
    holds it: when its position (``uid``) moves, the new repository gets a copy. ``record``
    is filled with this call's objects, for the next call's ``previous``.
    """
    reused: set[int] = set()
    origin: dict[int, tuple[ParsedFile, str]] = {}
    forced = {s.name: s.authority for s in config.sources}
    levels = config.classification.levels
    objects: list[ContextObject] = []
    findings: list[Finding] = []
    invalid = 0

    def invalid_file(rel: str, problem: str) -> None:
        nonlocal invalid
        invalid += 1
        findings.append(
            Finding(
                WarningCode.INVALID_OBJECT,
                (),
                f"{rel}: {problem}",
                "Fix the file; until then it is not part of any bundle.",
                (rel,),
            )
        )

    for rel, problem in problems:
        invalid_file(rel, problem)
    for source_name, parsed_file in parsed:
        if parsed_file.skipped:
            continue
        if parsed_file.error is not None or parsed_file.fields is None:
            invalid_file(parsed_file.rel, parsed_file.error or "cannot be parsed")
            continue
        earlier = previous.get(id(parsed_file)) if previous else None
        if earlier is not None and earlier[0] is parsed_file and earlier[1] == source_name:
            objects.append(earlier[2])
            reused.add(id(earlier[2]))
            origin[id(earlier[2])] = (parsed_file, source_name)
            continue
        f = parsed_file.fields
        classification = f["classification"] if f["classification"] is not None else levels[0]
        if classification not in levels:
            invalid_file(
                parsed_file.rel,
                f"classification: unknown level {classification!r}; "
                f"expected one of {', '.join(levels)} (failing closed)",
            )
            continue
        authority = forced[source_name] or f["authority"]
        obj = object_from_fields(
            f,
            parsed_file.rel,
            authority=authority,
            classification=classification,
            source=source_name,
            unknown_fields=parsed_file.unknown,
        )
        objects.append(obj)
        origin[id(obj)] = (parsed_file, source_name)
    objects.sort(key=lambda o: (o.id, o.version, o.path))
    for uid, obj in enumerate(objects):
        if id(obj) not in reused:
            obj.uid = uid
        elif obj.uid != uid:  # moved: the earlier repository keeps its own object
            objects[uid] = copy = replace(obj, uid=uid)
            origin[id(copy)] = origin[id(obj)]
    if record is not None:
        for obj in objects:
            parsed_file, source_name = origin[id(obj)]
            record[id(parsed_file)] = (parsed_file, source_name, obj)
    return Repository(root, config, objects, findings, unavailable, invalid)


def object_from_fields(
    f: dict[str, Any],
    rel: str,
    *,
    authority: str | None,
    classification: str,
    source: str = "",
    unknown_fields: tuple[str, ...] = (),
) -> ContextObject:
    """The object a file's validated front matter describes, at path ``rel``, with the
    authority and classification it is given (a source may force the authority; the lowest
    level stands in for a missing classification). Each reference is held once."""
    access = f["access"]
    return ContextObject(
        id=f["id"],
        version=f["version"],
        authority=authority,
        status=f["status"],
        title=f["title"],
        summary=f["summary"],
        type=f["type"],
        owner=f["owner"],
        layer=f["layer"],
        tags=tuple(f["tags"]),
        applies_to=tuple(f["applies_to"]),
        classification=classification,
        access_roles=tuple(access["roles"]) if access and access["roles"] is not None else None,
        created=f["created"],
        updated=f["updated"],
        valid_from=f["valid_from"],
        valid_until=f["valid_until"],
        review_every=f["review_every"],
        confidence=f["confidence"],
        supersedes=tuple(dict.fromkeys(f["supersedes"])),
        superseded_by=tuple(dict.fromkeys(f["superseded_by"])),
        conflicts_with=tuple(dict.fromkeys(f["conflicts_with"])),
        content=f["content"],
        path=rel,
        source=source,
        unknown_fields=unknown_fields,
        declared_authority=f["authority"],
    )


def object_findings(obj: ContextObject) -> list[Finding]:
    """Findings about one object on its own: unknown fields and unknown authority."""
    out: list[Finding] = []
    for key in obj.unknown_fields:
        hint = (
            "Markdown content is the body after the front matter, not a key."
            if (key == "content")
            else "Check the spelling; an unknown key is ignored."
        )
        out.append(
            Finding(
                WarningCode.UNKNOWN_FIELD,
                (obj.id,),
                f"{obj.key} has an unknown front-matter key {key!r}",
                hint,
                (obj.path,),
                key=key,
            )
        )
    if obj.authority not in _AUTHORITIES:
        what = (
            "has no authority"
            if obj.authority is None
            else (f"has an unknown authority {obj.authority!r}")
        )
        out.append(
            Finding(
                WarningCode.UNKNOWN_AUTHORITY,
                (obj.id,),
                f"{obj.key} {what}; it sorts after every known level",
                "Set authority to one of canonical, approved, reference, observed, "
                "inferred, historical.",
                (obj.path,),
            )
        )
    return out


_heap_held = False
"""Whether the loaded heap is frozen (:func:`hold_heap`) until the next load."""


def hold_heap() -> None:
    """Exempt everything alive now from the cyclic collector's passes until the next load.

    A loaded repository is millions of long-lived containers that make no garbage cycles;
    without this, every full collection (triggered by ordinary allocation later) walks all
    of them again: half a second or more at 50k objects. Reference counting still frees
    anything that is dropped, and :func:`release_heap` (called by every load) hands the
    frozen objects back to the collector, so an old repository's cycles are still freed.
    """
    global _heap_held
    gc.freeze()
    _heap_held = True


def release_heap() -> None:
    """Give everything :func:`hold_heap` froze back to the collector (oldest generation)."""
    global _heap_held
    gc.unfreeze()
    _heap_held = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector around allocation-heavy work that makes no cycles.

    Loading 50k objects allocates millions of containers; every full collection walks all
    of them again. Reference counting still frees everything as usual meanwhile, and the
    collector still sees everything later.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not _heap_held:
            # Count what was made as old: without this the first allocation after re-enabling
            # would walk every young object at once. Nothing is exempt for good. (While the
            # heap is held this would unfreeze it, so what was made stays young and is
            # collected, if ever, by passes that skip the frozen heap.)
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()


class Loader:
    """Loads a repository from a tree, re-parsing only files whose identity changed.

    A file's identity is :attr:`Entry.key` — path, size, mtime, inode and ctime; an
    unchanged file is never read again. An optional ``store`` (a persistent cache) is
    consulted before parsing. One load reads at most :data:`READ_BUDGET_BYTES` of distinct
    content, counted in walk order from the sizes the scan saw (so the files past the
    budget are the same whatever is cached).
    """

    def __init__(self, tree: Tree, root: str, store: ParseStore | None = None) -> None:
        self.tree = tree
        self.root = root
        self.store = store
        self._cache: dict[FileKey, ParsedFile] = {}
        self._objects: Reuse = {}
        self._config_raw: bytes | None = None
        self.tokens = TokenTables()
        """Token tables of every load's objects (an unchanged file keeps its table)."""
        self.parsed_count = 0
        self.fingerprint: tuple[object, ...] | None = None
        """What the last load saw: the same tuple as ``Session.fingerprint()`` computes."""

    def load(self) -> Repository:
        """Load (or reload) the repository; the loaded heap is then held (:func:`hold_heap`)."""
        release_heap()  # the previous repository, if unreferenced, can be collected again
        with gc_paused():
            repo = self._load()
        hold_heap()
        return repo

    def _load(self) -> Repository:
        raw_config = read_config(self.tree, self.root)
        config = load_config_bytes(raw_config, self.tree.describe(CONFIG_FILE))
        files, problems, unavailable = scan(self.tree, config)
        parsed: list[tuple[str, ParsedFile]] = []
        cache: dict[FileKey, ParsedFile] = {}
        fresh: dict[FileKey, ParsedFile] = {}
        budget, used = READ_BUDGET_BYTES, 0
        # A content-addressed tree (git) names equal bytes by one key: read, parsed, held
        # and counted against the budget once.
        content_key = getattr(self.tree, "content_key", None)
        same_content: dict[object, ParsedFile] = {}
        counted: set[object] = set()
        for source_name, entry in files:
            blob = content_key(entry.rel) if content_key is not None else None
            ck = (blob, entry.rel.endswith(".md")) if blob is not None else None  # as parse_file
            if entry.size <= MAX_FILE_BYTES and (blob is None or blob not in counted):
                # A bigger file is refused unread; equal content counts once.
                if blob is not None:
                    counted.add(blob)
                used += entry.size
                if used > budget:
                    parsed.append((source_name, ParsedFile(entry.rel, error=over_budget(budget))))
                    continue
            key = entry.key
            result = self._cache.get(key)
            if result is None and self.store is not None:
                result = self.store.get(key)
            if result is None:
                earlier = same_content.get(ck) if ck is not None else None
                if earlier is not None:
                    result = replace(earlier, rel=entry.rel)
                else:
                    result = read_and_parse(entry.rel, entry, self.tree)
                    self.parsed_count += 1
                    if ck is not None:
                        same_content[ck] = result
                if result.error != VANISHED:
                    fresh[key] = result
            cache[key] = result
            parsed.append((source_name, result))
        if self.store is not None and fresh:
            self.store.put_many(fresh)
        self._cache = cache
        previous = self._objects if raw_config == self._config_raw else None
        record: Reuse = {}
        repo = assemble(
            self.root, config, parsed, problems, unavailable, previous=previous, record=record
        )
        self._objects, self._config_raw = record, raw_config
        for parsed_file, _source, obj in record.values():
            if parsed_file.tokens is not None:  # kept by the persistent parse cache
                self.tokens.put(obj, parsed_file.tokens)
        self.tokens.keep_only(repo.objects)
        repo.tokens = self.tokens
        self.fingerprint = fingerprint_of(raw_config, files, problems, unavailable)
        return repo


def over_budget(budget: int) -> str:
    return (
        f"not read: this load's read budget ({budget} bytes of distinct file content) is "
        "used up by the files before it"
    )


def read_config(tree: Tree, root: str) -> bytes:
    """The bytes of ``opencontext.yaml``: a regular file inside the repository, at most
    1 MiB; anything else is a configuration error (NotARepository when there is none)."""
    where = tree.describe(CONFIG_FILE)
    try:
        raw = tree.read(CONFIG_FILE)
    except FileNotFoundError:
        from octui.load.config import NotARepository

        raise NotARepository(f"{root}: not an OpenContext repository (no {CONFIG_FILE})") from None
    except RefusedFile as exc:
        raise ConfigError(where, "", exc.problem) from None
    except OSError as exc:
        raise ConfigError(where, "", f"cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(where, "", f"file is larger than {MAX_FILE_BYTES} bytes (1 MiB)")
    return raw


def fingerprint_of(
    raw_config: bytes,
    files: list[tuple[str, Entry]],
    problems: list[tuple[str, str]],
    unavailable: list[tuple[str, str]],
) -> tuple[object, ...]:
    """What a load saw: the config bytes and every file's key (path, size, mtime, inode,
    ctime), plus the unreadable paths and sources. Equal fingerprints mean nothing to
    reload; restoring a file's mtime after an edit does not make them equal."""
    return (
        raw_config,
        tuple(e.key for _, e in files),
        tuple(problems),
        tuple(unavailable),
    )


class ParseStore(Protocol):
    """A persistent cache of parsed files keyed by file identity (:attr:`Entry.key`)."""

    def get(self, key: FileKey) -> ParsedFile | None: ...

    def put_many(self, items: dict[FileKey, ParsedFile]) -> None: ...


def load_repository(root: str | Path, store: ParseStore | None = None) -> Repository:
    """Load the repository at ``root`` (raises NotARepository / ConfigError)."""
    path = Path(root)
    return Loader(FsTree(path), str(path), store).load()


def parse_frontmatter_only(raw: bytes, rel: str) -> Any:
    """The parsing floor used by the benchmark: decode + split + CSafeLoader, nothing else
    (no duplicate-key check, no size budget, no validation: the least any loader must do)."""
    import yaml

    text = decode_text(raw)
    if rel.endswith(".md"):
        split = split_front_matter(text)
        return None if split is None else yaml.load(split[0], Loader=yaml.CSafeLoader)
    return yaml.load(text, Loader=yaml.CSafeLoader)


__all__ = [
    "Entry",
    "FsTree",
    "Loader",
    "ParsedFile",
    "Repository",
    "Tree",
    "load_repository",
    "object_findings",
    "parse_file",
]
