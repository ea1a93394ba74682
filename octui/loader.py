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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from octui.config import CONFIG_FILE, Config, ConfigError, _describe, load_config_bytes
from octui.enums import Authority, WarningCode
from octui.fastyaml import fast_fields, fast_mapping
from octui.model import KNOWN_FIELDS, ContextObject, Finding, FrontMatter, RepositorySource
from octui.yamlio import YamlError, decode_text, load_yaml

MAX_FILE_BYTES = 1024 * 1024
OBJECT_SUFFIXES = (".md", ".yaml", ".yml")
_AUTHORITIES = frozenset(a.value for a in Authority)
VANISHED = "file vanished while loading"


# -- reading ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """One directory entry. ``problem`` is set for entries that cannot be followed."""

    name: str
    rel: str
    is_dir: bool
    size: int = 0
    mtime_ns: int = 0
    problem: str | None = None


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
    """The working tree. Symbolic links are followed only while they stay inside the root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root = Path(os.path.realpath(root))

    def _path(self, rel: str) -> Path:
        return self.root / rel if rel not in ("", ".") else self.root

    def describe(self, rel: str) -> str:
        return str(self._path(rel))

    def read(self, rel: str) -> bytes:
        with open(self._path(rel), "rb") as handle:
            # read(n) allocates n bytes up front: ask for 1 MiB only when the file is that big
            if os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES:
                return handle.read(MAX_FILE_BYTES + 1)
            return handle.read()

    def is_dir(self, rel: str) -> bool:
        return self._inside(self._path(rel)) and self._path(rel).is_dir()

    def is_file(self, rel: str) -> bool:
        return self._inside(self._path(rel)) and self._path(rel).is_file()

    def _inside(self, path: Path) -> bool:
        real = os.path.realpath(path)
        return real == str(self.real_root) or real.startswith(str(self.real_root) + os.sep)

    def scandir(self, rel: str) -> list[Entry]:
        base = self._path(rel)
        entries: list[Entry] = []
        with os.scandir(base) as it:
            for item in it:
                child = item.name if rel in ("", ".") else f"{rel}/{item.name}"
                if not _utf8(item.name):  # never let undecodable bytes reach an output
                    name, child = (
                        os.fsencode(n).decode("utf-8", "backslashreplace")
                        for n in (item.name, child)
                    )
                    problem = "file name is not valid UTF-8; rename it"
                    entries.append(Entry(name, child, _is_dir(item), problem=problem))
                    continue
                entries.append(self._entry(item, child))
        return entries

    def _entry(self, item: os.DirEntry[str], rel: str) -> Entry:
        try:
            if item.is_symlink():
                real = os.path.realpath(item.path)
                if not self._inside(Path(item.path)):
                    return Entry(
                        item.name,
                        rel,
                        os.path.isdir(item.path),  # a folder link is reported, not skipped
                        problem="symbolic link leads outside the repository; not followed",
                    )
                if not os.path.exists(real):
                    return Entry(item.name, rel, False, problem="broken symbolic link")
                st = os.stat(real)
                if stat.S_ISDIR(st.st_mode):
                    # A loop when the target holds any folder on the way here (a/toB/toA).
                    parts = rel.split("/")[:-1]
                    chain = [str(self.real_root)] + [
                        os.path.realpath(self.root.joinpath(*parts[: i + 1]))
                        for i in range(len(parts))
                    ]
                    if any(h == real or h.startswith(real + os.sep) for h in chain):
                        return Entry(
                            item.name, rel, True, problem="symbolic link loop; not followed"
                        )
                    return Entry(item.name, rel, True)
                return Entry(item.name, rel, False, st.st_size, st.st_mtime_ns)
            if item.is_dir(follow_symlinks=False):
                return Entry(item.name, rel, True)
            st = item.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                return Entry(item.name, rel, False, problem="not a regular file")
            return Entry(item.name, rel, False, st.st_size, st.st_mtime_ns)
        except OSError as exc:
            return Entry(item.name, rel, False, problem=f"cannot be read ({exc.strerror or exc})")


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


def split_front_matter(text: str) -> tuple[str, str] | None:
    """``(front matter, body)`` of a Markdown text, or None when it has no front matter.

    Raises ``YamlError`` when the opening ``---`` is never closed.
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
            return text[first_end + 1 : pos], "" if end < 0 else text[end + 1 :]
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


def walk_source(
    tree: Tree, base: str, owned: Callable[[str], bool], problems: list[tuple[str, str]]
) -> Iterator[Entry]:
    """Yield object files under ``base`` in sorted order, skipping hidden names.

    ``owned(rel)`` says whether a folder belongs to this source (nested sources
    own their own subtrees). Unreadable entries are appended to ``problems``.
    """
    stack = [base]
    seen_dirs: set[str] = set()
    while stack:
        rel = stack.pop()
        try:
            entries = tree.scandir(rel)
        except OSError as exc:
            problems.append((rel, f"folder cannot be read ({exc.strerror or exc})"))
            continue
        subdirs: list[str] = []
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.name.startswith("."):
                continue
            if entry.problem is not None:
                if entry.is_dir or entry.name.endswith(OBJECT_SUFFIXES):
                    problems.append((entry.rel, entry.problem))
                continue
            if entry.is_dir:
                if owned(entry.rel) and entry.rel not in seen_dirs:
                    seen_dirs.add(entry.rel)
                    subdirs.append(entry.rel)
                continue
            if not entry.name.endswith(OBJECT_SUFFIXES):
                continue
            if entry.rel == CONFIG_FILE:
                continue
            yield entry
        stack.extend(reversed(subdirs))


Parser = Callable[[str, Entry, Tree], ParsedFile]


def read_and_parse(rel: str, entry: Entry, tree: Tree) -> ParsedFile:
    if entry.size > MAX_FILE_BYTES:
        return ParsedFile(rel, error=f"file is larger than {MAX_FILE_BYTES} bytes (1 MiB)")
    try:
        raw = tree.read(rel)
    except FileNotFoundError:
        return ParsedFile(rel, error=VANISHED)
    except OSError as exc:
        return ParsedFile(rel, error=f"cannot be read ({exc.strerror or exc})")
    return parse_file(rel, raw)


def scan(
    tree: Tree, config: Config
) -> tuple[list[tuple[str, Entry]], list[tuple[str, str]], list[tuple[str, str]]]:
    """Enumerate object files: ``(source name, entry)``, unreadable paths, unavailable sources."""
    paths = [s.path for s in config.sources]
    files: list[tuple[str, Entry]] = []
    problems: list[tuple[str, str]] = []
    unavailable: list[tuple[str, str]] = []
    for source in config.sources:
        base = "" if source.path == "." else source.path
        if base and not tree.is_dir(base):
            what = "is not a folder" if tree.is_file(base) else "does not exist"
            link = isinstance(tree, FsTree) and os.path.lexists(tree.describe(base))
            if link and not tree.is_file(base):
                what = "is a symbolic link that is broken, loops or leads outside the repository"
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

        files.extend((source.name, e) for e in walk_source(tree, base, owned, problems))
    return files, problems, unavailable


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
        declared = f["authority"]
        authority = forced[source_name] or declared
        access = f["access"]
        obj = ContextObject(
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
            supersedes=tuple(dict.fromkeys(f["supersedes"])),  # each reference once
            superseded_by=tuple(dict.fromkeys(f["superseded_by"])),  # each reference once
            conflicts_with=tuple(dict.fromkeys(f["conflicts_with"])),  # each reference once
            content=f["content"],
            path=parsed_file.rel,
            source=source_name,
            unknown_fields=parsed_file.unknown,
            declared_authority=declared,
        )
        objects.append(obj)
        origin[id(obj)] = (parsed_file, source_name)
    objects.sort(key=lambda o: (o.id, o.version, o.path))
    for uid, obj in enumerate(objects):
        if id(obj) not in reused:
            obj.uid = uid
        elif obj.uid != uid:  # moved: the earlier repository keeps its own object
            objects[uid] = copy = replace(obj, uid=uid)
            copy.__dict__.update((k, v) for k, v in obj.__dict__.items() if k.startswith("_"))
            origin[id(copy)] = origin[id(obj)]
    if record is not None:
        for obj in objects:
            parsed_file, source_name = origin[id(obj)]
            record[id(parsed_file)] = (parsed_file, source_name, obj)
    return Repository(root, config, objects, findings, unavailable, invalid)


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
        # Count what was made as old: without this the first allocation after re-enabling
        # would walk every young object at once. Nothing is exempt from collection for good.
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()


class Loader:
    """Loads a repository from a tree, re-parsing only files whose identity changed.

    A file's identity is ``(path, size, mtime)``; an unchanged file is never read
    again. An optional ``store`` (a persistent cache) is consulted before parsing.
    """

    def __init__(self, tree: Tree, root: str, store: ParseStore | None = None) -> None:
        self.tree = tree
        self.root = root
        self.store = store
        self._cache: dict[tuple[str, int, int], ParsedFile] = {}
        self._objects: Reuse = {}
        self._config_raw: bytes | None = None
        self.parsed_count = 0
        self.fingerprint: tuple[object, ...] | None = None
        """What the last load saw: the same tuple as ``Session.fingerprint()`` computes."""

    def load(self) -> Repository:
        with gc_paused():
            return self._load()

    def _load(self) -> Repository:
        try:
            raw_config = self.tree.read(CONFIG_FILE)
        except FileNotFoundError:
            from octui.config import NotARepository

            raise NotARepository(
                f"{self.root}: not an OpenContext repository (no {CONFIG_FILE})"
            ) from None
        except OSError as exc:
            raise ConfigError(
                self.tree.describe(CONFIG_FILE), "", f"cannot be read ({exc.strerror or exc})"
            ) from None
        config = load_config_bytes(raw_config, self.tree.describe(CONFIG_FILE))
        files, problems, unavailable = scan(self.tree, config)
        parsed: list[tuple[str, ParsedFile]] = []
        cache: dict[tuple[str, int, int], ParsedFile] = {}
        fresh: dict[tuple[str, int, int], ParsedFile] = {}
        for source_name, entry in files:
            key = (entry.rel, entry.size, entry.mtime_ns)
            result = self._cache.get(key)
            if result is None and self.store is not None:
                result = self.store.get(key)
            if result is None:
                result = read_and_parse(entry.rel, entry, self.tree)
                self.parsed_count += 1
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
        self.fingerprint = fingerprint_of(raw_config, files, problems, unavailable)
        return repo


def fingerprint_of(
    raw_config: bytes,
    files: list[tuple[str, Entry]],
    problems: list[tuple[str, str]],
    unavailable: list[tuple[str, str]],
) -> tuple[object, ...]:
    """What a load saw: the config bytes and every file's (path, size, mtime), plus the
    unreadable paths and sources. Equal fingerprints mean nothing to reload."""
    return (
        raw_config,
        tuple((e.rel, e.size, e.mtime_ns) for _, e in files),
        tuple(problems),
        tuple(unavailable),
    )


class ParseStore(Protocol):
    """A persistent cache of parsed files keyed by file identity."""

    def get(self, key: tuple[str, int, int]) -> ParsedFile | None: ...

    def put_many(self, items: dict[tuple[str, int, int], ParsedFile]) -> None: ...


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
