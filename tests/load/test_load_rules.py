"""Front-matter rules of SPEC §1.3: an explicit null is an absent key, list fields take lists,
reference lists hold each reference once, and no number crashes the loader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from repo_builder import codes, make_repo, obj, resolve_at, warnings_with

from octui.bundle.bundle import object_fields
from octui.cli.main import main
from octui.core.validation import FrontMatter
from octui.load.fastpath import fast_fields
from octui.load.frontmatter import parse_file
from octui.load.loader import load_repository

#: A value for every field with a default, different from that default.
SET_VALUES: dict[str, Any] = {
    "version": 2,
    "authority": "approved",
    "status": "draft",
    "title": "T",
    "summary": "S",
    "type": "policy",
    "owner": "o",
    "layer": "L2",
    "tags": ["t"],
    "applies_to": ["a"],
    "classification": "internal",
    "access": {"roles": ["reader"]},
    "created": "2026-01-01",
    "updated": "2026-01-02",
    "valid_from": "2026-01-03",
    "valid_until": "2027-01-01",
    "review_every": "30d",
    "confidence": 0.5,
    "supersedes": ["b"],
    "superseded_by": ["c"],
    "conflicts_with": ["d"],
    "content": "body",
}
DEFAULTED = sorted(n for n, f in FrontMatter.model_fields.items() if not f.is_required())


def test_every_defaulted_field_is_covered() -> None:
    assert sorted(SET_VALUES) == DEFAULTED


def _slow(data: dict[str, Any]) -> dict[str, Any]:
    model = FrontMatter.model_validate(FrontMatter.coerce_enums(dict(data)))
    return model.model_dump(exclude=set(model.model_extra or ()))


@pytest.mark.parametrize("name", DEFAULTED)
def test_explicit_null_is_the_same_as_an_absent_key(name: str) -> None:
    """On both parsing paths (the fast one and Pydantic), ``key: null`` equals no key."""
    absent = {"id": "a"}
    null = {"id": "a", name: None}
    assert _slow(null) == _slow(absent)
    fast = fast_fields(null)
    assert fast is None or fast == _slow(absent)
    # and through the loader, in both file kinds
    for rel in ("a.yaml", "a.md"):
        text = f"id: a\n{name}: null\n"
        raw = (f"---\n{text}---\n" if rel.endswith(".md") else text).encode()
        base = b"---\nid: a\n---\n" if rel.endswith(".md") else b"id: a\n"
        parsed, plain = parse_file(rel, raw), parse_file(rel, base)
        assert parsed.error is None, (rel, parsed.error)
        assert parsed.fields == plain.fields


def test_null_inside_access_is_every_role() -> None:
    assert _slow({"id": "a", "access": {"roles": None}})["access"] == {"roles": None}


@pytest.mark.parametrize("name", DEFAULTED)
def test_a_set_value_is_kept(name: str) -> None:
    """The null test is not vacuous: each value above differs from the default."""
    assert _slow({"id": "a", name: SET_VALUES[name]})[name] != _slow({"id": "a"})[name]


@pytest.mark.parametrize(
    ("field", "value"),
    [("supersedes", "b"), ("conflicts_with", "b"), ("tags", "x"), ("applies_to", "x")],
)
def test_a_list_field_refuses_a_single_value(tmp_path: Path, field: str, value: str) -> None:
    root = make_repo(tmp_path, {"a.md": obj("a", **{field: value}), "b.md": obj("b")})
    repo = load_repository(root)
    assert [o.id for o in repo.objects] == ["b"]
    (finding,) = repo.findings
    assert finding.code.value == "invalid-object" and "a.md" in finding.message
    assert field in finding.message
    assert fast_fields({"id": "a", field: value}) is None


def test_superseded_by_also_takes_a_single_reference(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": obj("a", superseded_by="b"), "b.md": obj("b")})
    res = resolve_at(root)
    assert [i.obj.id for i in res.included] == ["b"]
    assert fast_fields({"id": "a", "superseded_by": "b"}) == _slow(
        {"id": "a", "superseded_by": "b"}
    )


def test_reference_lists_hold_each_reference_once(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", supersedes=["b", "b@1", "b"] * 3, conflicts_with=["c", "c"]),
            "b.md": obj("b", superseded_by=["a", "a"]),
            "c.md": obj("c", authority="reference"),
        },
    )
    res = resolve_at(root)
    (a,) = [i.obj for i in res.included if i.obj.id == "a"]
    assert a.supersedes == ("b", "b@1")
    assert a.conflicts_with == ("c",)
    assert object_fields(a)["supersedes"] == ["b", "b@1"]


def test_a_confidence_too_large_for_a_float_is_an_invalid_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = "1" + "0" * 400
    root = make_repo(tmp_path, {"a.yaml": f"id: a\nconfidence: {huge}\n", "b.md": obj("b")})
    res = resolve_at(root)
    assert codes(res) == ["invalid-object"]
    assert [i.obj.id for i in res.included] == ["b"]
    assert main(["validate", str(root), "--as-of", "2026-06-01"]) == 1
    out = capsys.readouterr()
    assert "a.yaml" in out.out and "confidence" in out.out and "Traceback" not in out.err
    assert main(["resolve", str(root), "--role", "reader", "--format", "json"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert warnings_with(resolve_at(root), "invalid-object")[0].message == "1 file failed to load"


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("\n", "access.'\\n'"),
        ("a\u2028b", "access.'a\\u2028b'"),
        ("", "access.''"),
        (" lead", "access.' lead'"),
        ("a\tb", "access.'a\\tb'"),
        ("str", "access.str"),
        ("list[x]", "access.list[x]"),
        ("plain", "access.plain"),
    ],
)
def test_an_unknown_key_in_an_object_is_named_on_one_line(key: str, shown: str) -> None:
    """The invalid-object error names the unknown key on one line: a key that would not
    read as itself there is quoted and escaped (the fuzz found ``access: {"\\n": null}``
    breaking the error over two lines), and a key named like a type is not left out."""
    import json

    raw = f"---\naccess:\n  {json.dumps(key)}: null\nid: policies.x\n---\nbody".encode()
    parsed = parse_file("x.md", raw)
    assert parsed.fields is None and parsed.error is not None
    assert parsed.error.startswith(shown + ": unknown key"), parsed.error
    assert parsed.error.isprintable()
