"""Loading: file formats, enumeration, sources, and load problems as findings (SPEC §1.2–1.4)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from repo_builder import make_repo, obj, resolve_at

from octui.core.enums import Status
from octui.load.frontmatter import parse_file
from octui.load.loader import load_repository


def invalid(repo_root: Path) -> dict[str, str]:
    """path → message of every invalid-object finding."""
    repo = load_repository(repo_root)
    return {f.paths[0]: f.message for f in repo.findings if f.code.value == "invalid-object"}


def test_markdown_front_matter_and_body(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": "---\nid: a\nauthority: approved\ntags: [x, y]\n---\n# Title\n\nBody.\n",
            "b.yaml": "id: b\ncontent: the body\nsuperseded_by: a\n",
            "c.yml": "id: c\nversion: 3\n",
        },
    )
    repo = load_repository(root)
    by = {o.id: o for o in repo.objects}
    assert by["a"].content == "# Title\n\nBody.\n" and by["a"].tags == ("x", "y")
    assert by["a"].authority == "approved"
    assert by["b"].content == "the body" and by["b"].superseded_by == ("a",)
    assert by["c"].version == 3 and by["c"].content == ""
    assert by["c"].status is Status.ACTIVE and by["c"].classification == "public"
    assert repo.findings == []


@pytest.mark.parametrize("fast", [True, False], ids=["fast-path", "full-loader"])
def test_markdown_front_matter_is_its_lines_with_their_line_breaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    """A block scalar ending the front matter keeps its final newline, as in a .yaml file."""
    if not fast:
        monkeypatch.setattr("octui.load.frontmatter.fast_mapping", lambda text: None)
    lines = "summary: |\n  text\n  more\ntitle: >\n  folded\n  line\n"
    root = make_repo(
        tmp_path,
        {
            "a.md": f"---\nid: a\n{lines}---\nbody\n",
            "b.yaml": f"id: b\n{lines}",
            "c.md": "---\nid: c\nsummary: |\n  text\n---\n",
            "d.md": "---\nid: d\nsummary: |+\n  text\n\n---\n",
        },
    )
    repo = load_repository(root)
    by = {o.id: o for o in repo.objects}
    assert repo.findings == []
    assert by["a"].summary == by["b"].summary == "text\nmore\n"
    assert by["a"].title == by["b"].title == "folded line\n"
    assert by["a"].content == "body\n"
    assert by["c"].summary == "text\n" and by["d"].summary == "text\n\n"


def test_markdown_without_front_matter_is_skipped(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"README.md": "# About\n---\nid: x\n---\n", "a.md": obj("a")})
    repo = load_repository(root)
    assert [o.id for o in repo.objects] == ["a"] and repo.findings == []


def test_hidden_files_and_other_suffixes_skipped(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            ".hidden.md": obj("hidden"),
            ".git/x.md": obj("gitobj"),
            "dir/.secret/y.md": obj("y"),
            "notes.txt": "id: txt\n",
            "a.md": obj("a"),
        },
    )
    assert [o.id for o in load_repository(root).objects] == ["a"]


def test_crlf_and_bom(tmp_path: Path) -> None:
    raw = "\ufeff---\r\nid: a\r\ntitle: T\r\n---\r\nline1\r\nline2\r\n".encode()
    root = make_repo(tmp_path, {"a.md": raw})
    o = load_repository(root).objects[0]
    assert (o.id, o.title, o.content) == ("a", "T", "line1\nline2\n")


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"---\nid: a\n", "never closed"),
        (b"---\n- a\n- b\n---\n", "not a mapping"),
        (b"---\nid: a\nid: b\n---\n", "duplicate key"),
        (b"---\nid: Bad_Id\n---\n", "id"),
        (b"---\nid: a\nversion: two\n---\n", "version"),
        (b"---\nid: a\nversion: 0\n---\n", "version"),
        (b"---\nid: 12\n---\n", "id"),
        (b"---\nid: a\ntags: solo\n---\n", "tags"),
        (b"---\nid: a\nconfidence: 1.5\n---\n", "confidence"),
        (b"---\nid: a\nvalid_from: yesterday\n---\n", "valid_from"),
        (b"---\nid: a\nreview_every: 90\n---\n", "review_every"),
        (b"---\nid: a\nstatus: published\n---\n", "status"),
        (b"---\nid: a\nlayer: L9\n---\n", "layer"),
        (b"---\nid: a\nsupersedes: [a@x]\n---\n", "supersedes"),
        (b"---\nid: a\nclassification: top-secret\n---\n", "top-secret"),
        (b"---\nid: a\ntitle: caf\xe9\n---\n", "UTF-8"),
        (b"---\nid: [a\n---\n", "YAML"),
        (b"id: a\n\x00\n", "NUL"),
    ],
)
def test_bad_files_are_invalid_objects(tmp_path: Path, content: bytes, needle: str) -> None:
    name = "bad.yaml" if content.startswith(b"id: a\n\x00") else "bad.md"
    root = make_repo(tmp_path, {name: content, "good.md": obj("good")})
    found = invalid(root)
    assert list(found) == [name]
    assert needle in found[name] and name in found[name]
    assert "\n" not in found[name]
    # the rest still loads
    assert [o.id for o in load_repository(root).objects] == ["good"]


def test_file_over_one_mib_is_invalid(tmp_path: Path) -> None:
    big = b"---\nid: big\n---\n" + b"x" * (1024 * 1024)
    root = make_repo(tmp_path, {"big.md": big})
    assert "1 MiB" in invalid(root)["big.md"]


def test_yaml_document_not_a_mapping(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.yaml": "just a string\n", "b.yml": ""})
    found = invalid(root)
    assert set(found) == {"a.yaml", "b.yml"}


def test_unknown_fields_kept_not_fatal(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": obj("a", superseeded_by="b", reviewer="x")})
    o = load_repository(root).objects[0]
    assert o.unknown_fields == ("reviewer", "superseeded_by")
    assert o.superseded_by == ()


def test_dates_normalised_to_utc(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": "---\nid: a\ncreated: 2026-03-01\n---\n",
            "b.md": "---\nid: b\ncreated: 2026-03-01T00:00:00Z\n---\n",
            "c.md": "---\nid: c\ncreated: 2026-03-01T01:00:00+01:00\n---\n",
            "d.md": "---\nid: d\ncreated: '2026-03-01T00:00:00'\n---\n",
            "e.md": "---\nid: e\ncreated: 2026-02-28T19:00:00-05:00\n---\n",
        },
    )
    expected = datetime(2026, 3, 1, tzinfo=UTC)
    for o in load_repository(root).objects:
        assert o.created == expected, o.id
        assert o.created.tzinfo is not None
        assert o.effective_start == expected


def test_effective_start(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "a.md": obj("a", created="2026-01-01", valid_from="2026-02-01"),
            "b.md": obj("b", created="2026-01-01"),
            "c.md": obj("c"),
        },
    )
    starts = {o.id: o.effective_start for o in load_repository(root).objects}
    assert starts["a"] == datetime(2026, 2, 1, tzinfo=UTC)
    assert starts["b"] == datetime(2026, 1, 1, tzinfo=UTC)
    assert starts["c"].year == 1


def test_enumeration_is_sorted_and_uids_follow_id_version_path(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"z.md": obj("b"), "m/y.md": obj("a", version=2), "a.md": obj("a"), "c/x.md": obj("c")},
    )
    objs = load_repository(root).objects
    assert [(o.key, o.uid) for o in objs] == [("a@1", 0), ("a@2", 1), ("b@1", 2), ("c@1", 3)]


def test_file_belongs_to_the_deepest_source(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "p.md": obj("p"),
            "inbox/t.md": obj("t", authority="canonical"),
            "inbox/deep/u.md": obj("u", authority="canonical"),
            "inbox/deep/v/w.md": obj("w", authority="canonical"),
        },
        {
            "sources": [
                {"name": "main", "path": "."},
                {"name": "inbox", "path": "inbox", "authority": "observed"},
                {"name": "deep", "path": "inbox/deep", "authority": "inferred"},
            ]
        },
    )
    objs = {o.id: o for o in load_repository(root).objects}
    assert len(objs) == 4  # nothing loaded twice
    assert [(objs[i].source, objs[i].authority) for i in "ptuw"] == [
        ("main", "canonical"),
        ("inbox", "observed"),
        ("deep", "inferred"),
        ("deep", "inferred"),
    ]
    assert objs["t"].declared_authority == "canonical"


def test_source_listed_first_nested_still_deepest(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"a/b/x.md": obj("x")},
        {
            "sources": [
                {"name": "inner", "path": "a/b", "authority": "historical"},
                {"name": "outer", "path": "a"},
            ]
        },
    )
    (o,) = load_repository(root).objects
    assert (o.source, o.authority) == ("inner", "historical")


def test_source_outside_main_not_loaded_twice_and_only_sources_walked(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {"docs/a.md": obj("a"), "other/b.md": obj("b")},
        {"sources": [{"name": "docs", "path": "docs"}]},
    )
    assert [o.id for o in load_repository(root).objects] == ["a"]


def test_symlinks_not_followed_out_of_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.md").write_text("---\nid: leak\n---\nsecret\n", encoding="utf-8")
    root = make_repo(tmp_path / "repo", {"a.md": obj("a"), "inside/b.md": obj("b")})
    (root / "link-dir").symlink_to(outside, target_is_directory=True)
    (root / "link.md").symlink_to(outside / "leak.md")
    (root / "ok.md").symlink_to(root / "inside" / "b.md")
    repo = load_repository(root)
    ids = sorted(o.id for o in repo.objects)
    assert "leak" not in ids
    # the in-root link is followed, and is a second path to inside/b.md: loaded once, from there
    assert ids == ["a", "b"]
    assert [o.path for o in repo.objects if o.id == "b"] == ["inside/b.md"]
    assert any(
        f.paths == ("ok.md",) and "same file as inside/b.md" in f.message for f in repo.findings
    )
    assert all("secret" not in o.content for o in repo.objects)


def test_loading_never_writes(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": obj("a"), "b.md": "---\nid: [\n---\n"})
    before = sorted((p, p.stat().st_mtime_ns) for p in root.rglob("*"))
    resolve_at(root)
    resolve_at(root, role=None)
    after = sorted((p, p.stat().st_mtime_ns) for p in root.rglob("*"))
    assert before == after


def test_parse_file_is_pure() -> None:
    raw = b"---\nid: a\ntags: [x]\n---\nbody\n"
    first, second = parse_file("a.md", raw), parse_file("a.md", raw)
    assert first == second and first.fields is not None and first.fields["id"] == "a"
    assert parse_file("r.md", b"# readme\n").skipped


def test_content_key_in_markdown_is_unknown(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": "---\nid: a\ncontent: fake\n---\nreal\n"})
    o = load_repository(root).objects[0]
    assert o.content == "real\n" and "content" in o.unknown_fields


def test_a_one_shot_load_gives_what_a_reloadable_loader_gives_and_keeps_nothing(
    tmp_path: Path,
) -> None:
    """``load_repository`` loads once: the same objects, findings and token tables as a
    :class:`Loader` kept for reloads, without the per-file cache, walk record and
    fingerprint only a reload reads."""
    from dataclasses import fields

    from octui.load.loader import Loader
    from octui.load.tree import FsTree
    from octui.synth.repository import write_repository

    root = tmp_path / "repo"
    write_repository(root, 120, seed=3)
    one = Loader(FsTree(root), str(root), one_shot=True)
    kept = Loader(FsTree(root), str(root))
    a, b = one.load(), kept.load()
    assert [[getattr(o, f.name) for f in fields(o)] for o in a.objects] == [
        [getattr(o, f.name) for f in fields(o)] for o in b.objects
    ]
    assert a.findings == b.findings and a.invalid_files == b.invalid_files
    assert [a.tokens.get(o) for o in a.objects] == [b.tokens.get(o) for o in b.objects]
    assert one._cache == {} and one.fingerprint is None and one.walked is None
    assert kept._cache and kept.fingerprint is not None and kept.walked is not None
    loader = Loader(FsTree(root), str(root))
    assert not loader.one_shot  # a loader is kept for reloads unless told otherwise
    assert len(load_repository(root).objects) == len(a.objects)
