"""What a loader keeps of each parsed file between loads (:mod:`octui.load.kept`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from repo_builder import make_repo, obj, write_config

from octui.load.frontmatter import parse_file
from octui.load.kept import MadeFields
from octui.load.loader import Loader
from octui.load.parsed import ParsedFile
from octui.load.tree import FsTree

FILES: dict[str, dict[str, Any] | str] = {
    "plain.md": obj("plain", title="Plain", tags=["a", "b"], content="Body.\n"),
    "unclassified.md": obj("unclassified", authority=None, content="x"),
    "access.md": obj("access", access={"roles": ["sales"]}, classification="internal"),
    "nobody.md": obj("nobody", access={"roles": None}),
    "repeats.yaml": obj("repeats", supersedes=["a", "a", "b"], conflicts_with=["c", "c"]),
    "dated.md": obj("dated", created="2024-01-02", review_every="30d", confidence=0.5),
    "broken.md": "---\nid: Not An Id\n---\n",
    "README.md": "no front matter",
}


def loaded(root: Path) -> Loader:
    loader = Loader(FsTree(root), str(root))
    loader.load()
    return loader


def kept(loader: Loader) -> dict[str, ParsedFile]:
    return {p.rel: p for p in loader._cache.values()}


def test_a_parse_that_made_an_object_is_kept_read_from_it(tmp_path: Path) -> None:
    """No dictionary per file is kept: the fields are read from the object, and equal (key
    for key, in order) what parsing the file gives, the values it derives included."""
    root = make_repo(tmp_path, FILES)
    loader = loaded(root)
    assert loader.repository is not None
    by_path = {o.path: o for o in loader.repository.objects}
    for rel, parsed in kept(loader).items():
        fresh = parse_file(rel, (root / rel).read_bytes())
        assert parsed == fresh and list(parsed.fields or ()) == list(fresh.fields or ())
        if rel in by_path:
            assert isinstance(parsed.fields, MadeFields)
            assert parsed.fields.obj is by_path[rel]
        else:
            assert parsed.fields is None  # broken, or not an object file


def test_a_changed_configuration_remakes_the_objects_from_what_was_kept(tmp_path: Path) -> None:
    """The kept fields make the same objects a fresh load makes (the file's own
    classification and authority, not the ones the objects were given), and are then read
    from the new objects, not the earlier ones."""
    root = make_repo(tmp_path, FILES)
    loader = loaded(root)
    write_config(
        root,
        {
            "classification": {"levels": ["internal", "public", "confidential", "restricted"]},
            "sources": [{"name": "all", "path": ".", "authority": "observed"}],
        },
    )
    repo = loader.load()
    fresh = loaded(root).repository
    assert fresh is not None
    assert [vars_of(o) for o in repo.objects] == [vars_of(o) for o in fresh.objects]
    assert {o.id: o.classification for o in repo.objects}["unclassified"] == "internal"
    by_path = {o.path: o for o in repo.objects}
    for rel, parsed in kept(loader).items():
        if rel in by_path:
            assert isinstance(parsed.fields, MadeFields) and parsed.fields.obj is by_path[rel]


def test_a_moved_object_is_read_from_its_copy(tmp_path: Path) -> None:
    """A file added before the others moves every object one place: the kept fields follow
    the copies the new repository holds, so the earlier objects can be freed."""
    root = make_repo(tmp_path, FILES)
    loader = loaded(root)
    make_repo(root, {"aaa.md": obj("aaa")})
    repo = loader.load()
    made = [f for p in kept(loader).values() if isinstance(f := p.fields, MadeFields)]
    assert len(made) == len(repo.objects)
    for fields in made:
        assert repo.objects[fields.obj.uid] is fields.obj


def test_a_hinted_reload_keeps_the_changed_file_read_from_its_object(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES)
    loader = loaded(root)
    make_repo(root, {"plain.md": obj("plain", title="Edited", content="New body.\n")})
    repo = loader.load([str(root / "plain.md")])
    assert loader.replaced is not None  # replaced in place
    edited = next(o for o in repo.objects if o.id == "plain")
    parsed = loader.by_path["plain.md"][0] if loader.by_path else None
    assert parsed is not None and isinstance(parsed.fields, MadeFields)
    assert parsed.fields.obj is edited and parsed.fields["title"] == "Edited"
    # the table by path holds the record's very entries, not a copy of each
    assert loader.by_path is not None
    assert all(entry is loader._objects[id(entry[0])] for entry in loader.by_path.values())


def vars_of(o: object) -> tuple[object, ...]:
    return tuple(getattr(o, name) for name in o.__slots__)  # type: ignore[attr-defined]


def test_the_fingerprint_shares_the_keys_of_the_kept_parses(tmp_path: Path) -> None:
    """The last load's fingerprint names each file by the very key its parse is kept under
    (one tuple per file, not two), and equals a fresh scan's."""
    root = make_repo(tmp_path, FILES)
    loader = loaded(root)
    assert loader.fingerprint is not None
    keys = loader.fingerprint[1]
    assert isinstance(keys, tuple) and len(keys) == len(loader._cache)
    assert all(a is b for a, b in zip(keys, loader._cache, strict=True))
    from octui.session import Session

    assert Session(root).fingerprint() == loader.fingerprint


def test_a_load_keeps_no_table_of_the_values_its_parses_met(tmp_path: Path) -> None:
    """The parser's tables of repeated values serve one load; after it the objects hold
    the values, and a reload parses an edited file to the same object without them."""
    from octui.load import fastpath

    tables = (fastpath._plain, fastpath._value_of, fastpath._key, fastpath._instant)
    root = make_repo(tmp_path, FILES)
    loader = loaded(root)
    assert [t.cache_info().currsize for t in tables] == [0, 0, 0, 0]
    make_repo(root, {"dated.md": obj("dated", created="2024-01-02", review_every="30d")})
    repo = loader.load()
    assert [t.cache_info().currsize for t in tables] == [0, 0, 0, 0]
    fresh = loaded(root).repository
    assert fresh is not None
    assert [vars_of(o) for o in repo.objects] == [vars_of(o) for o in fresh.objects]
