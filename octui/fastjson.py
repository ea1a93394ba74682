"""``json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)``, several times faster.

With ``indent`` set, the standard library falls back from its C encoder to a
generator per value; a 50k-object bundle spends most of its output time there.
:func:`dumps_indent2` writes the same text — byte for byte — with one recursive
function and the C string encoder. Anything it does not know (keys that are not
strings, unusual types) is handed to ``json.dumps`` itself, so the result, or the
error, is always the standard library's.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring  # the C implementation when available
from typing import Any


class _Unusual(Exception):
    """A value outside what the fast writer handles: use json.dumps."""


def dumps_indent2(value: Any) -> str:
    """Exactly ``json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)``."""
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
