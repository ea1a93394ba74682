"""A fast path for the front matter most files have, giving exactly what YAML would.

Parsing is the floor of every cold load, and PyYAML's constructor is Python code
that dominates it. Nearly every real front matter is a flat mapping of
``key: value`` lines with flow lists and at most one level of nesting
(``access:\\n  roles: [...]``). :func:`fast_mapping` reads exactly that subset;
every scalar is typed by PyYAML's own resolver and built by PyYAML's own
constructor, so the result is the value :func:`octui.load.strict_yaml.load_yaml` returns.
Anything outside the subset — comments after a value, anchors, tags, block
scalars, escapes, tabs, duplicate keys, odd line breaks — returns ``None`` and the
caller parses the text with the full loader (which also produces the error
message, when there is one).

:func:`fast_fields` does the same for validation: it accepts only values that
:class:`octui.core.model.FrontMatter` would accept unchanged and builds the same
``model_dump``; anything else returns ``None`` and Pydantic decides (and words
the error).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.reader import Reader
from yaml.resolver import Resolver

from octui.core.enums import Layer, Status
from octui.core.model import ID_RE as _ID_RE
from octui.core.model import REF_RE
from octui.core.timeutil import parse_duration, parse_instant

_RESOLVER = Resolver()


def _tag(text: str) -> str:
    """The tag PyYAML's resolver gives a plain scalar."""
    return str(_RESOLVER.resolve(yaml.ScalarNode, text, (True, False)))  # type: ignore[no-untyped-call]


_CONSTRUCTOR = SafeConstructor()
_STR = "tag:yaml.org,2002:str"
_SCALAR_TAGS = frozenset(
    "tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "timestamp")
)
_MAX_ITEMS = 1000

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*))?")
_NESTED_LINE = re.compile(r"([ ]+)([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+(.*))?")
_ITEM_LINE = re.compile(r"([ ]*)-[ ]+(.*)")
# one flat key line with its line break (the value without its trailing spaces)
_FLAT_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):[ ]+([^\n]*[^ \n])[ ]*\n", re.M)
_DOUBLE = re.compile(r'"((?:[^"\\]|\\["\\])*)"')
_SINGLE = re.compile(r"'((?:[^']|'')*)'")
_PLAIN_FIRST_BAD = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_LIST_BAD = re.compile(r"[\"'\[\]{}#]")  # inside a flow list: quotes, nesting, comments
_FLOW_ITEM_BAD = re.compile(r"[,\[\]{}:#]")  # in one item of a flow list
# what the YAML reader refuses, plus line breaks other than \n and characters whose
# handling differs between readers: all go to the full loader
_SUSPECT = re.compile(Reader.NON_PRINTABLE.pattern + "|[\t\r\x85\u2028\u2029\ufeff]")
_ASCII_SUSPECT = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")  # the same test for ASCII text
_MAX_TEXT = 64 * 1024  # keeps any document far under yamlio's node budget
# YAML's scanner forgets a possible simple key once it runs past 1024 characters, so a
# longer key is an error ("could not find expected ':'"), never a key
_MAX_KEY = 1024


class _NotSimple(Exception):
    """The text is outside the fast subset."""


@lru_cache(maxsize=65536)
def _plain(text: str, flow: bool) -> Any:
    """A one-line plain scalar, typed and built the way PyYAML's SafeLoader does."""
    if not text or text[0] in _PLAIN_FIRST_BAD or text != text.strip():
        raise _NotSimple
    if " #" in text or ": " in text or text.endswith(":"):
        raise _NotSimple
    if flow and _FLOW_ITEM_BAD.search(text):
        raise _NotSimple
    tag = _tag(text)
    if tag not in _SCALAR_TAGS:
        raise _NotSimple
    if tag == _STR:
        return text
    node = yaml.ScalarNode(tag, text)
    try:
        return _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, node)
    except Exception:
        raise _NotSimple from None


def _scalar(text: str, flow: bool = False) -> Any:
    first = text[:1]
    if first == '"':
        inner = text[1:-1]
        if len(text) >= 2 and text[-1] == '"' and '"' not in inner and "\\" not in inner:
            return inner  # what the regex below gives, without its step per character
        m = _DOUBLE.fullmatch(text)
        if m is None:
            raise _NotSimple
        return m.group(1).replace('\\"', '"').replace("\\\\", "\\")
    if first == "'":
        inner = text[1:-1]
        if len(text) >= 2 and text[-1] == "'" and "'" not in inner:
            return inner
        m = _SINGLE.fullmatch(text)
        if m is None:
            raise _NotSimple
        return m.group(1).replace("''", "'")
    return _plain(text, flow)


def _value(text: str) -> Any:
    """A value on the same line as its key: scalar or flow list of plain scalars."""
    value = _value_of(text)
    return list(value) if type(value) is tuple else value  # every caller gets its own list


@lru_cache(maxsize=65536)
def _value_of(text: str) -> Any:
    """:func:`_value` with a flow list as a tuple, so that the (often repeated) values are
    parsed once and the cache hands out nothing mutable. A scalar is never a tuple."""
    if text[:1] == "[":
        if not text.endswith("]"):
            raise _NotSimple
        inner = text[1:-1]
        if not inner.strip(" "):
            return ()
        if _FLOW_LIST_BAD.search(inner):
            raise _NotSimple
        items = [item.strip(" ") for item in inner.split(",")]
        if len(items) > _MAX_ITEMS:
            raise _NotSimple
        return tuple([_plain(item, True) for item in items])
    return _scalar(text)


def fast_mapping(text: str) -> dict[str, Any] | None:
    """The mapping ``text`` holds, when it is in the simple subset; else ``None``."""
    if len(text) > _MAX_TEXT:
        return None
    if (_ASCII_SUSPECT if text.isascii() else _SUSPECT).search(text):
        return None
    try:
        flat = _flat(text)
        return flat if flat is not None else _mapping(text.split("\n"))
    except _NotSimple:
        return None


def _flat(text: str) -> dict[str, Any] | None:
    """The mapping of a text made only of ``key: value`` lines, each ended by a line break,
    with one regex pass instead of a loop over lines; ``None`` for any other text.

    It gives what :func:`_mapping` gives for such a text: every line is a key line with a
    value after the colon, so there are no blank lines, comments or nested blocks; ``|``
    alone (a literal block) can only be followed by another key line or nothing, which
    :func:`_mapping` refuses too.
    """
    pairs = _FLAT_LINE.findall(text)
    if not pairs or len(pairs) != text.count("\n") or text[-1] != "\n":
        return None  # not every line is a flat key line: the loop decides
    key_of, value_of = _key, _value_of  # :func:`_value`, inlined: this loop runs per line
    out: dict[str, Any] = {}
    for raw_key, rest in pairs:  # a lone "|" is no plain scalar: _value_of refuses it
        value = value_of(rest)
        out[key_of(raw_key)] = list(value) if type(value) is tuple else value
    if len(out) != len(pairs):  # a key given twice
        raise _NotSimple
    return out


def _mapping(lines: list[str]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        i += 1
        stripped = line.strip(" ")
        if not stripped or stripped[0] == "#":
            continue
        m = _KEY_LINE.fullmatch(line.rstrip(" "))
        if m is None:
            raise _NotSimple
        key = _key(m.group(1))
        if key in out:
            raise _NotSimple
        rest = m.group(2)
        if rest == "|":
            out[key], i = _literal(lines, i)
            continue
        if rest:
            out[key] = _value(rest)
            continue
        # nothing after the colon: a nested block, or null
        block: list[str] = []
        while i < n:
            nxt = lines[i]
            s = nxt.strip(" ")
            if s and s[0] != "#" and not nxt.startswith((" ", "- ")):
                break
            block.append(nxt)
            i += 1
        out[key] = _block(block)
    return out or None


def _literal(lines: list[str], i: int) -> tuple[str, int]:
    """A top-level ``key: |`` block (literal, clip): its text and the index after it.

    Only the plain shape: indentation from the first non-blank line, blank lines no wider
    than it, the block ended by a line at column 0. Anything else is left to the loader.
    """
    n = len(lines)
    j = i
    while j < n and not lines[j].strip(" "):
        j += 1
    if j == n:
        raise _NotSimple
    indent = len(lines[j]) - len(lines[j].lstrip(" "))
    if indent == 0:
        raise _NotSimple
    body: list[str] = []
    last = -1
    k = i
    while k < n:
        line = lines[k]
        if not line.strip(" "):
            if len(line) > indent:
                raise _NotSimple
            body.append("")
        else:
            lead = len(line) - len(line.lstrip(" "))
            if lead < indent:
                if lead:
                    raise _NotSimple
                break
            body.append(line[indent:])
            last = len(body) - 1
        k += 1
    text = "\n".join(body[: last + 1])
    if i + last < n - 1:  # the last line of text has its line break: clip keeps it
        text += "\n"
    return text, k


@lru_cache(maxsize=4096)
def _key(text: str) -> str:
    if len(text) > _MAX_KEY or _tag(text) != _STR:
        raise _NotSimple
    return text


def _block(lines: list[str]) -> Any:
    body = [ln for ln in lines if ln.strip(" ") and ln.strip(" ")[0] != "#"]
    if not body:
        return None
    first = _ITEM_LINE.fullmatch(body[0].rstrip(" "))
    if first is not None:
        indent = first.group(1)
        items = []
        for ln in body:
            m = _ITEM_LINE.fullmatch(ln.rstrip(" "))
            if m is None or m.group(1) != indent or m.group(2)[:1] in ("[", "-", ""):
                raise _NotSimple
            items.append(_scalar(m.group(2)))
        if len(items) > _MAX_ITEMS:
            raise _NotSimple
        return items
    nested: dict[str, Any] = {}
    indent = None
    for ln in body:
        m = _NESTED_LINE.fullmatch(ln.rstrip(" "))
        if m is None or not m.group(3):
            raise _NotSimple
        if indent is None:
            indent = m.group(1)
        elif m.group(1) != indent:
            raise _NotSimple
        key = _key(m.group(2))
        if key in nested:
            raise _NotSimple
        nested[key] = _value(m.group(3))
    return nested


# -- validation -------------------------------------------------------------------------------

_INSTANTS = ("created", "updated", "valid_from", "valid_until")
_OPTIONAL_STRS = ("authority", "title", "summary", "type", "owner", "classification")
_STATUS = {s.value: s for s in Status}
_LAYER = {layer.value: layer for layer in Layer}


@lru_cache(maxsize=8192)
def _instant(value: Any) -> Any:
    """``parse_instant`` for the dates and datetimes YAML gives (they repeat a lot)."""
    if type(value) not in (str, date, datetime):
        raise _Refuse  # bools (1 == True would share a cache entry), lists, numbers
    return parse_instant(value)


class _Refuse(Exception):
    """Let Pydantic decide."""


def _str_list(value: Any) -> list[str]:
    if type(value) is not list or any(type(v) is not str for v in value):
        raise _Refuse
    return list(value)


def _refs(value: Any, pattern: re.Pattern[str], single: bool = False) -> list[str]:
    if value is None:
        return []
    if single and type(value) is str:  # superseded_by alone also takes one reference
        value = [value]
    items = _str_list(value)
    for item in items:
        if pattern.fullmatch(item) is None:
            raise _Refuse
    return items


def _optional_str(value: Any) -> str | None:
    if value is not None and type(value) is not str:
        raise _Refuse
    return value


def fast_fields(data: dict[str, Any]) -> dict[str, Any] | None:
    """``FrontMatter.model_validate(data).model_dump()`` minus extras, or ``None`` (unsure)."""
    try:
        return _fields(data)
    except (_Refuse, ValueError, TypeError, OverflowError):
        return None


def _fields(data: dict[str, Any]) -> dict[str, Any]:
    def get(key: str, default: Any) -> Any:  # an explicit null is an absent key
        value = data.get(key)
        return default if value is None else value

    # A field whose default is None reads as data.get(key): a null and an absence agree.
    field = data.get
    object_id = field("id")
    if type(object_id) is not str or _ID_RE.fullmatch(object_id) is None:
        raise _Refuse
    version = get("version", 1)
    if type(version) is not int or version < 1:
        raise _Refuse
    status = get("status", "active")
    if type(status) is not str and type(status) is not Status:
        raise _Refuse
    status_value = _STATUS.get(status)
    layer = field("layer")
    layer_value = None if layer is None else _LAYER.get(layer) if type(layer) is str else None
    if (layer is not None and layer_value is None) or status_value is None:
        raise _Refuse
    access = field("access")
    if access is not None:
        if type(access) is not dict or set(access) - {"roles"}:
            raise _Refuse
        roles = access.get("roles")
        access = {"roles": None if roles is None else _str_list(roles)}
    confidence = field("confidence")
    if confidence is not None:
        if type(confidence) is int:
            confidence = float(confidence)
        if type(confidence) is not float or not 0 <= confidence <= 1:
            raise _Refuse
    review = field("review_every")
    content = get("content", "")
    if type(content) is not str:
        raise _Refuse
    authority, title, summary, kind, owner, classification = values = [
        field(name) for name in _OPTIONAL_STRS
    ]
    for value in values:
        if value is not None and type(value) is not str:
            raise _Refuse
    tags, applies_to = field("tags"), field("applies_to")
    supersedes, superseded_by = field("supersedes"), field("superseded_by")
    conflicts_with = field("conflicts_with")
    instant = _instant
    created, updated, valid_from, valid_until = [
        None if value is None else instant(value) for value in map(field, _INSTANTS)
    ]
    return {  # the order of FrontMatter's fields; an absent list is a fresh empty one
        "id": object_id,
        "version": version,
        "authority": authority,
        "status": status_value,
        "title": title,
        "summary": summary,
        "type": kind,
        "owner": owner,
        "layer": layer_value,
        "tags": [] if tags is None else _str_list(tags),
        "applies_to": [] if applies_to is None else _str_list(applies_to),
        "classification": classification,
        "access": access,
        "created": created,
        "updated": updated,
        "valid_from": valid_from,
        "valid_until": valid_until,
        "review_every": None if review is None else parse_duration(review),
        "confidence": confidence,
        "supersedes": [] if supersedes is None else _refs(supersedes, REF_RE),
        "superseded_by": [] if superseded_by is None else _refs(superseded_by, REF_RE, True),
        "conflicts_with": [] if conflicts_with is None else _refs(conflicts_with, _ID_RE),
        "content": content,
    }


def forget_values() -> None:
    """Empty the tables of values met while parsing. They pay off while one load parses
    thousands of files that repeat values; between loads they would keep tens of megabytes
    of a large repository's texts alive (every file's values up to their bounds) for the
    few files a reload parses again. Parsing gives equal values with or without them."""
    for table in (_plain, _value_of, _key, _instant):
        table.cache_clear()
