"""``json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)``, several times faster.

With ``indent`` set, the standard library falls back from its C encoder to a
generator per value; a 50k-object bundle spends most of its output time there.
:func:`dumps_indent2` writes the same text — byte for byte — with one recursive
function and the C string encoder. Anything it does not know (keys that are not
strings, unusual types) is handed to ``json.dumps`` itself, so the result, or the
error, is always the standard library's.

When ``orjson`` is installed it writes the text instead, after one walk of the value has
shown that orjson's bytes are the standard library's: only plain dicts with string keys,
lists, tuples, strings and integers (their subclasses too, as enums), booleans and None,
and floats that orjson spells as
``repr`` does (it writes ``1e-7`` where ``json`` writes ``1e-07``, and ``null`` for NaN).
Anything else, or anything orjson refuses (integers over 64 bits, lone surrogates, depth),
goes to the writer below.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring  # the C implementation when available
from typing import Any

try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a dependency; the writer below is exact
    _orjson = None  # type: ignore[assignment]


class _Unusual(Exception):
    """A value outside what the fast writer handles: use json.dumps."""


def dumps_indent2(value: Any) -> str:
    """Exactly ``json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)``."""
    found = dumps_indent2_utf8(value)
    return found.decode("utf-8") if isinstance(found, bytes) else found


def dumps_indent2_utf8(
    value: Any, *, final_newline: bool = False, agrees: bool | None = None
) -> bytes | str:
    """:func:`dumps_indent2`'s text, as UTF-8 bytes when orjson wrote it (which holds no lone
    surrogate: orjson refuses them), else as the ``str`` the standard library's way gives;
    ``final_newline`` ends it with a line break, written by orjson into its own buffer (a
    50k-object bundle is 26 MB: adding the break afterwards copies all of it once more).
    ``agrees`` is :func:`orjson_agrees` of ``value`` when the caller knows it (None: it is
    found here)."""
    if _orjson is not None:
        try:
            if orjson_agrees(value) if agrees is None else agrees:
                option = _orjson.OPT_INDENT_2
                if final_newline:
                    option |= _orjson.OPT_APPEND_NEWLINE
                return _orjson.dumps(value, option=option)
        except (TypeError, ValueError, RecursionError):  # JSONEncodeError is a TypeError
            pass
    text = _dumps_python(value)
    return text + "\n" if final_newline else text


def dumps_canonical(value: Any) -> bytes:
    """Exactly ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
    allow_nan=False).encode("utf-8")``: by orjson when it writes the same bytes (see the
    module), else by the standard library (which also raises what it raises)."""
    if _orjson is not None:
        try:
            if orjson_agrees(value):
                # orjson's bytes keep the whole buffer it grew (often ten times the text):
                # a copy of the exact size, as the pieces are kept
                return bytes(memoryview(_orjson.dumps(value, option=_orjson.OPT_SORT_KEYS)))
        except (TypeError, ValueError, RecursionError):  # JSONEncodeError is a TypeError
            pass
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def dumps_plain(value: Any) -> bytes:
    """orjson's bytes for ``value``, which the caller knows holds only what orjson writes as
    the standard library does when it writes it at all (dicts with string keys in sorted
    order, lists, tuples, strings, ints, booleans, None, floats checked by the caller): its
    canonical JSON. orjson's refusals (an int over 64 bits, a lone surrogate) raise a
    ``TypeError``. Without orjson, :func:`dumps_canonical`."""
    if _orjson is None:  # pragma: no cover - orjson is a dependency
        return dumps_canonical(value)
    return _orjson.dumps(value)


def dumps_kept(value: Any) -> bytes:
    """:func:`dumps_plain`'s bytes copied at their own size, for bytes that are kept: orjson's
    hold the whole buffer it wrote into, about 4 KB however short the text (100,000 kept
    instants took 412 MB instead of 7)."""
    return bytes(memoryview(dumps_plain(value)))


_LEAVES = frozenset({str, int, bool, type(None)})
"""The exact types of the common leaves, which orjson writes as ``json`` does (checked
without a call each)."""


def orjson_agrees(o: Any) -> bool:
    """Whether orjson writes ``o`` byte for byte as ``json.dumps`` does, when it writes it at
    all (see the module): one walk of the whole value."""
    kind = type(o)
    leaves = _LEAVES
    if kind is dict:
        for key, item in o.items():
            if type(key) is not str:
                return False
            if type(item) not in leaves and not orjson_agrees(item):
                return False
        return True
    if kind is list or kind is tuple:
        for item in o:  # noqa: SIM110 - a loop, not all() over a generator: a call less each
            if type(item) not in leaves and not orjson_agrees(item):
                return False
        return True
    if o is None or isinstance(o, (str, int)):  # subclasses (StrEnum, bool) write as values
        return True
    if kind is float:
        assert _orjson is not None
        return math.isfinite(o) and _orjson.dumps(o) == float.__repr__(o).encode("ascii")
    return False


def _dumps_python(value: Any) -> str:
    out: list[str] = []
    try:
        _write(value, "\n", out)
    except (_Unusual, RecursionError):
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    return "".join(out)


def _write(o: Any, newline: str, out: list[str]) -> None:
    append = out.append
    if isinstance(o, str):
        append(encode_basestring(o))
    elif o is None:
        append("null")
    elif o is True:
        append("true")
    elif o is False:
        append("false")
    elif isinstance(o, int):
        append(int.__repr__(o))
    elif isinstance(o, float):
        if not math.isfinite(o):
            raise _Unusual
        append(float.__repr__(o))
    elif isinstance(o, dict):
        if not o:
            append("{}")
            return
        inner = newline + "  "
        separator = "{" + inner
        for key, item in o.items():
            if type(key) is not str:
                raise _Unusual
            kind = type(item)
            if kind is str:  # the common leaves, without a call each
                append(f"{separator}{encode_basestring(key)}: {encode_basestring(item)}")
            elif item is None:
                append(f"{separator}{encode_basestring(key)}: null")
            else:
                append(f"{separator}{encode_basestring(key)}: ")
                _write(item, inner, out)
            separator = "," + inner
        append(newline + "}")
    elif isinstance(o, (list, tuple)):
        if not o:
            append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in o:
            if type(item) is str:
                append(separator + encode_basestring(item))
            else:
                append(separator)
                _write(item, inner, out)
            separator = "," + inner
        append(newline + "]")
    else:
        raise _Unusual
