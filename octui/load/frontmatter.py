"""Parsing one object file: its front matter (or YAML document) and body, or why not.

Parsing is a pure function of a file's bytes (:func:`parse_file`), so its result can be
cached by file identity (:mod:`octui.load.parse_cache`); everything that depends on the
configuration happens afterwards (:mod:`octui.load.assemble`).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from octui.core.model import KNOWN_FIELDS
from octui.load.config_values import _describe
from octui.load.fastpath import fast_fields, fast_mapping
from octui.load.parsed import ParsedFile
from octui.load.strict_yaml import YamlError, decode_text, load_yaml
from octui.load.tree import MAX_FILE_BYTES


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
            fast = fast_mapping(front)
            data = fast if fast is not None else load_yaml("\n" + front)
            if not isinstance(data, dict):
                return ParsedFile(rel, error=f"front matter is not a mapping (found {_kind(data)})")
            unknown_extra: tuple[str, ...] = ()
            if "content" in data:  # the body is the content; a key of that name is unknown
                unknown_extra = ("content",)
                data = {k: v for k, v in data.items() if k != "content"}
            data["content"] = body  # a fresh mapping (either parser's): ours to fill
        else:
            fast = fast_mapping(text)
            data = fast if fast is not None else load_yaml(text)
            if not isinstance(data, dict):
                return ParsedFile(rel, error=f"document is not a mapping (found {_kind(data)})")
            unknown_extra = ()
    except YamlError as exc:
        return ParsedFile(rel, error=str(exc))
    if fast is None:  # the fast path's keys are strings
        bad_keys = [k for k in data if not isinstance(k, str)]
        if bad_keys:
            return ParsedFile(rel, error=f"front matter key {bad_keys[0]!r} is not a string")
    if KNOWN_FIELDS.issuperset(data):
        unknown = unknown_extra
    else:
        unknown = tuple(sorted(set(data) - KNOWN_FIELDS)) + unknown_extra
    fields = fast_fields(data)  # what Pydantic would give for plainly valid data, else None
    if fields is None:
        fields_or_error = _validated(data)
        if isinstance(fields_or_error, str):
            return ParsedFile(rel, error=fields_or_error)
        fields = fields_or_error
    return ParsedFile(rel, fields=fields, unknown=unknown)


def _validated(data: dict[str, Any]) -> dict[str, Any] | str:
    """The fields :class:`~octui.core.validation.FrontMatter` gives ``data``, or the error
    line. Pydantic is imported here, by the first file off the fast path, not at start-up."""
    from pydantic import ValidationError

    from octui.core.validation import FrontMatter

    try:
        model = FrontMatter.model_validate(FrontMatter.coerce_enums(dict(data)))
    except ValidationError as exc:
        key, msg = _field_problem(exc.errors()[0])
        return f"{key}: {msg}" if key else msg
    return model.model_dump(exclude=set(model.model_extra or ()))


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


def parse_frontmatter_only(raw: bytes, rel: str) -> Any:
    """The parsing floor used by the benchmark: decode + split + CSafeLoader, nothing else
    (no duplicate-key check, no size budget, no validation: the least any loader must do)."""
    import yaml

    text = decode_text(raw)
    if rel.endswith(".md"):
        split = split_front_matter(text)
        return None if split is None else yaml.load(split[0], Loader=yaml.CSafeLoader)
    return yaml.load(text, Loader=yaml.CSafeLoader)
