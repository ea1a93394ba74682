"""The CLI's UTF-8 output of a bundle is :func:`dumps_bundle`'s text encoded, byte for byte,
whichever writer made it, and written to stdout as the text would be."""

from __future__ import annotations

import io
import sys
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from repo_builder import make_repo, obj, resolve_at

from octui.bundle.bundle import (
    _E2_LOOKS,
    _UNSAFE_JSON,
    _holds_unsafe,
    bundle_dict,
    dumps_bundle,
    dumps_bundle_utf8,
    exclusion_json,
    resolution_json_utf8,
    warning_json,
)
from octui.bundle.jsonout import dumps_indent2_utf8, orjson_agrees
from octui.cli.common import write_utf8
from octui.core.enums import ExclusionReason, Severity, WarningCode
from octui.core.model import Exclusion, Finding
from octui.resolve.result import Resolution

VALUES: list[Any] = [
    {"a": "plain", "b": [1, 2.5, None, True, False], "c": {}},
    {"controls": "x\u202ey\x85z\u2028\x1b[31mred\x9b\u2066"},
    {"near-miss": "\u00a0\u00e9 \u2014 \u2030 \u2070 é — ‰"},  # lead bytes c2/e2, nothing escaped
    {"surrogate": "a\udcff b"},  # orjson refuses it: the standard library's way
    {"small": 1e-7, "large": 1e16, "big-int": 2**70},
    {"tuple": ("a", ("b", 3)), "nested": [[[]], [{}]]},
]


@pytest.mark.parametrize("value", VALUES)
def test_the_utf8_bytes_are_the_text_encoded(value: Any) -> None:
    assert dumps_bundle_utf8(value) == dumps_bundle(value).encode("utf-8")


@pytest.mark.parametrize("value", VALUES)
def test_the_final_newline_is_the_text_and_a_line_break(value: Any) -> None:
    """orjson writes the break into its own buffer; the standard library's way adds it."""
    text, ended = dumps_indent2_utf8(value), dumps_indent2_utf8(value, final_newline=True)
    assert type(ended) is type(text)
    assert ended == text + (b"\n" if isinstance(text, bytes) else "\n")  # type: ignore[operator]


BOUNDARIES = "\u007f\u0080\u009f\u00a0\u2027\u2028\u202e\u202f\u2065\u2066\u2069\u206a\u2014"
"""Each side of every range escaped, told apart by the byte after a lead (c2, e2 80, e2 81)."""


@pytest.mark.parametrize("char", BOUNDARIES)
def test_each_side_of_an_escaped_range_is_the_text_encoded(char: str) -> None:
    for value in ({"k": char}, {"k": f"a \u2014 b{char}"}, {"k": f"{char}\u2192" * 3}):
        assert dumps_bundle_utf8(value) == dumps_bundle(value).encode("utf-8")


def test_an_unusual_value_raises_what_dumps_bundle_raises() -> None:
    with pytest.raises(ValueError):
        dumps_bundle({"nan": float("nan")})
    with pytest.raises(ValueError):
        dumps_bundle_utf8({"nan": float("nan")})


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8", "latin-1"])
def test_write_utf8_writes_what_writing_the_text_writes(
    encoding: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "head\n" + dumps_bundle({"k": "\u00e9"})
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding=encoding, errors="replace")
    out.write("before ")
    monkeypatch.setattr(sys, "stdout", out)
    write_utf8(text.encode("utf-8"))
    out.flush()
    assert raw.getvalue() == ("before " + text).encode(encoding, errors="replace")


def test_write_utf8_to_a_text_only_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    write_utf8("é\n".encode())
    assert out.getvalue() == "é\n"


# -- a resolution's bundle: the record parts are not walked -----------------------------------

_PLAIN_ANNOTATIONS = {"str", "int | None", "str | None", "tuple[str, ...]"}


def test_the_record_parts_are_made_only_of_what_orjson_writes_as_json_does() -> None:
    """:data:`RECORD_PARTS` go unchecked to orjson: every field their JSON reads is a string, an
    integer, None, a tuple of strings or a string enum (never a float)."""
    exclusion = Exclusion("a.b", 2, ExclusionReason.NOT_IN_SCOPE, ("c.d",), "detail", "a.md")
    finding = Finding(WarningCode.BROKEN_REFERENCE, ("a.b",), "message", "hint")
    assert set(exclusion_json(exclusion)) == {"id", "version", "reason", "related", "detail"}
    assert set(warning_json(finding)) == {"code", "severity", "ids", "message", "hint"}
    types = {f.name: f.type for f in fields(Exclusion)} | {f.name: f.type for f in fields(Finding)}
    for name in ("id", "version", "related", "detail", "ids", "message", "hint"):
        assert types[name] in _PLAIN_ANNOTATIONS, name
    for enum in (ExclusionReason, WarningCode, Severity):
        assert all(type(member.value) is str for member in enum)
    assert orjson_agrees([exclusion_json(exclusion), warning_json(finding)])


def _bundle_text(resolution: Resolution) -> bytes:
    fixed = {"bundle_id": "b", "generated_at": datetime(2026, 1, 1, tzinfo=UTC)}
    return resolution_json_utf8(resolution, **fixed)  # type: ignore[arg-type]


@pytest.mark.parametrize("confidence", [0.75, 1e-7])
def test_a_resolutions_bytes_are_dumps_bundle_of_its_bundle(
    tmp_path: Path, confidence: float
) -> None:
    """With a float orjson spells as ``repr`` does, and one it does not (``1e-7``): the objects
    are still walked."""
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a.one", content="Body \u2028 text"),
            "b.md": obj("a.two", supersedes=["a.one"], confidence=confidence, content="Body"),
            "c.md": obj("a.three", supersedes=["a.gone"], status="draft"),
            "d.md": obj("a.four", conflicts_with=["a.gone"]),
        },
    )
    resolution = resolve_at(root, task="body")
    assert resolution.exclusions and resolution.warnings
    assert [i.obj.confidence for i in resolution.included if i.obj.id == "a.two"] == [confidence]
    bundle = bundle_dict(resolution, bundle_id="b", generated_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert _bundle_text(resolution) == dumps_bundle(bundle).encode("utf-8")


# -- the search for characters to escape ------------------------------------------------------

_E2 = "\u2014\u2192\u2026\u2028\u2029\u202a\u202e\u202f\u2066\u2069\u206a\u2065\u2027"
"""Characters led by the byte e2: either side of each escaped range, dashes and arrows."""


@given(st.text(alphabet=st.sampled_from(_E2 + "a\u00e9\u0085\u00a0"), max_size=600))
def test_the_byte_search_finds_exactly_what_the_pattern_matches(text: str) -> None:
    assert _holds_unsafe(text.encode("utf-8")) == bool(_UNSAFE_JSON.search(text))


@pytest.mark.parametrize("char", ["\u2028", "\u202e", "\u2066", "\u2069", "\u0085"])
@pytest.mark.parametrize("before", [0, _E2_LOOKS - 1, _E2_LOOKS, 3 * _E2_LOOKS])
def test_a_character_to_escape_is_found_after_any_number_of_dashes(char: str, before: int) -> None:
    """Past :data:`_E2_LOOKS` characters led by e2 one by one, the search goes on by pairs."""
    text = "\u2014\u2192" * before + char + "\u2014"
    assert _holds_unsafe(text.encode("utf-8"))
    assert not _holds_unsafe(text.replace(char, "\u2027").encode("utf-8"))
    value = {"k": text}
    assert dumps_bundle_utf8(value) == dumps_bundle(value).encode("utf-8")
