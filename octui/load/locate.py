"""Where in its file a finding points: the line of the offending key or of the YAML error.

Loading never records lines (the fast path stays as fast as it is, and the parse cache
keeps its format). Lines are found afterwards, only for the files a finding names, by
reading those files again: a top-level ``key:`` scan over the front matter for
``unknown-field`` and ``broken-reference``; for ``invalid-object`` the file is parsed again
to find the YAML error's line, or the key whose value was refused. A file that changed
or vanished since the load, or a key that cannot be found, leaves ``line`` None — a line
is never guessed.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from octui.core.enums import WarningCode
from octui.core.model import Finding
from octui.load.strict_yaml import YamlError, decode_text, load_yaml

Reader = Callable[[str], bytes]
"""Reads a repository-relative file (an ``OSError`` when it cannot)."""

_MAX_BYTES = 1 << 20
_TOP_KEY = re.compile(
    r'(?:"([^"\\\n]*)"'  # "quoted key"
    r"|'([^'\n]*)'"  # 'quoted key'
    r"|([^\s\"'#:\[\]{},&*!|>%@`-][^:\n]*?))"  # a plain key, not a list item or comment
    r"[ \t]*:(?:[ \t]|$)"
)


def front_matter(rel: str, text: str) -> tuple[str, int] | None:
    """The YAML text of a file's metadata and the file line its first line is on; None when
    a Markdown file has no (closed) front matter."""
    if not rel.endswith(".md"):
        return text, 1
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None
    for n, line in enumerate(lines[1:], start=1):
        if line.startswith("---") and line.rstrip() == "---":
            return "\n".join(lines[1:n]) + "\n", 2
    return None


def key_lines(rel: str, raw: bytes) -> dict[str, int]:
    """Each top-level key of the file's metadata and the (1-based) file line it is first
    written on."""
    try:
        text = decode_text(raw)
    except YamlError:
        return {}
    found = front_matter(rel, text)
    if found is None:
        return {}
    yaml_text, first = found
    out: dict[str, int] = {}
    for n, line in enumerate(yaml_text.split("\n")):
        m = _TOP_KEY.match(line)
        if m:
            key = next(g for g in m.groups() if g is not None)
            out.setdefault(key, first + n)
    return out


def problem_line(rel: str, raw: bytes, problem: str) -> int | None:
    """For a file that failed to load with ``problem`` (the loader's words): the line of its
    YAML error, or of the key whose value was refused. None when the problem has no line
    (not UTF-8, too large, not read, …) or when parsing again does not find that problem
    (the file changed since)."""
    if len(raw) > _MAX_BYTES or b"\x00" in raw:
        return None
    try:
        text = decode_text(raw)
    except YamlError:
        return None
    if rel.endswith(".md") and text.split("\n", 1)[0].rstrip() == "---":
        found = front_matter(rel, text)
        if found is None:  # the opening '---' is never closed
            return 1 if "never closed" in problem else None
        yaml_text = "\n" + found[0]  # as the loader parses it: lines stay file lines
    elif rel.endswith(".md"):
        return None
    else:
        yaml_text = text
    try:
        data = load_yaml(yaml_text)
    except YamlError as exc:
        return exc.line if exc.line is not None and f"(line {exc.line}" in problem else None
    if not isinstance(data, dict) or any(not isinstance(k, str) for k in data):
        return None
    key = _refused_key(data)
    if key is None or not re.match(re.escape(key) + r"[:.\[]", problem):
        return None
    return key_lines(rel, raw).get(key)


def _refused_key(data: dict[str, object]) -> str | None:
    """The top-level key whose value the front-matter model refuses (first error, as the
    loader reports it); ``classification`` when the model accepts everything (then the
    level was unknown to the configuration)."""
    from pydantic import ValidationError  # a finding is being located: a rare path

    from octui.core.validation import FrontMatter

    fields = {k: v for k, v in data.items() if k != "content"}
    try:
        FrontMatter.model_validate(FrontMatter.coerce_enums(fields))
    except ValidationError as exc:
        loc = (exc.errors()[0].get("loc") or ("",))[0]
        return loc if isinstance(loc, str) and loc in data else None
    except Exception:
        return None
    return "classification" if "classification" in data else None


def line_of(finding: Finding, read: Reader) -> int | None:
    """The line ``finding`` points at in its first file, read with ``read``."""
    if not finding.paths:
        return None
    keyed = finding.key is not None and finding.code in (
        WarningCode.UNKNOWN_FIELD,
        WarningCode.BROKEN_REFERENCE,
    )
    if not keyed and finding.code is not WarningCode.INVALID_OBJECT:
        return None
    try:
        raw = read(finding.paths[0])
    except (OSError, ValueError):
        return None
    if keyed:
        return key_lines(finding.paths[0], raw).get(str(finding.key))
    problem = finding.message.removeprefix(f"{finding.paths[0]}: ")
    return problem_line(finding.paths[0], raw, problem)


def locate(findings: Iterable[Finding], read: Reader | None) -> list[Finding]:
    """``findings`` with ``line`` set where it can be found (each file read once)."""
    out: list[Finding] = []
    cache: dict[str, bytes | None] = {}

    def cached(rel: str) -> bytes:
        if rel not in cache:
            try:
                cache[rel] = read(rel) if read is not None else None
            except (OSError, ValueError):
                cache[rel] = None
        data = cache[rel]
        if data is None:
            raise OSError(rel)
        return data

    for f in findings:
        line = f.line if f.line is not None or read is None else line_of(f, cached)
        out.append(f if line == f.line else replace(f, line=line))
    return out


@contextlib.contextmanager
def reader_for(root: str | Path, commit: str | None) -> Iterator[Reader | None]:
    """A reader of the repository at ``root``: its files on disk, or (``commit`` set) the
    files of that git commit. None when it cannot be opened."""
    if commit is None:
        from octui.load.tree import FsTree

        tree = FsTree(Path(root))
        yield tree.read
        return
    from octui.load.gitrun import GitRevisionError
    from octui.load.gittree import GitTree

    try:
        git = GitTree(root, commit)
    except (GitRevisionError, OSError, ValueError):
        yield None
        return
    with git:
        yield git.read
