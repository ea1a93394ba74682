"""The long-lived session behind the explorer, while the repository changes under it.

Files and folders deleted, a file turned into a folder, the configuration broken,
removed and fixed, thousands of files added: the session notices every change, a
reload either succeeds or raises one clear error while the last good repository
stays usable, and it recovers as soon as the files are fixed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hostile_util import CONFIG, GOOD, GOOD_IDS, write_repo

from octui.core.timeutil import parse_instant
from octui.load.config import ConfigError, NotARepository
from octui.resolve.result import Query
from octui.session import Session

AS_OF = parse_instant("2026-06-01")


def ids(session: Session, role: str | None = "reader") -> set[str]:
    return {i.obj.id for i in session.resolve(Query(role=role, as_of=AS_OF)).included}


def obj(object_id: str) -> bytes:
    return f"---\nid: {object_id}\nauthority: approved\n---\n{object_id}\n".encode()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = GOOD | {f"notes/n{i}.md": obj(f"notes.n{i}") for i in range(5)}
    return write_repo(tmp_path / "repo", files)


def test_files_and_folders_deleted_while_running(root: Path) -> None:
    session = Session(root)
    session.load()
    assert len(ids(session)) == 7
    (root / "notes" / "n0.md").unlink()
    assert session.changed_on_disk()
    session.load()
    assert "notes.n0" not in ids(session) and len(ids(session)) == 6
    shutil.rmtree(root / "notes")
    assert session.changed_on_disk()
    session.load()
    assert ids(session) == set(GOOD_IDS)
    assert not session.changed_on_disk()


def test_a_file_becomes_a_folder_and_back(root: Path) -> None:
    session = Session(root)
    session.load()
    (root / "notes" / "n1.md").unlink()
    (root / "notes" / "n1.md").mkdir()
    (root / "notes" / "n1.md" / "inner.md").write_bytes(obj("notes.inner"))
    session.load()
    assert {"notes.inner"} <= ids(session) and "notes.n1" not in ids(session)
    shutil.rmtree(root / "notes" / "n1.md")
    (root / "notes" / "n1.md").write_bytes(obj("notes.n1"))
    session.load()
    assert "notes.n1" in ids(session) and "notes.inner" not in ids(session)


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        (b"spec: [1\n", "invalid YAML"),
        (b"roles: {reader: {clearance: secret}}\n", "roles.reader.clearance"),
        (b"\xff\xfe", "not valid UTF-8"),
        (b"- a list\n", "expected a mapping"),
    ],
)
def test_config_broken_then_fixed(root: Path, broken: bytes, problem: str) -> None:
    session = Session(root)
    session.load()
    good_ids = ids(session)
    (root / "opencontext.yaml").write_bytes(broken)
    assert session.changed_on_disk()
    with pytest.raises(ConfigError) as caught:
        session.load()
    assert problem in str(caught.value) and "\n" not in str(caught.value)
    assert ids(session) == good_ids  # the last good repository stays usable
    assert session.changed_on_disk()  # still differs from the last good load
    (root / "opencontext.yaml").write_bytes(CONFIG)
    # The disk matches the last good repository again; a reload recovers.
    assert not session.changed_on_disk()
    session.load()
    assert ids(session) == good_ids


def test_config_removed_then_restored(root: Path) -> None:
    session = Session(root)
    session.load()
    (root / "opencontext.yaml").unlink()
    assert session.changed_on_disk()
    with pytest.raises(NotARepository):
        session.load()
    (root / "opencontext.yaml").write_bytes(CONFIG)
    session.load()
    assert len(ids(session)) == 7


def test_thousands_of_files_added_while_running(root: Path) -> None:
    session = Session(root)
    session.load()
    parsed = session.loader.parsed_count
    bulk = root / "bulk"
    for i in range(2000):
        (bulk / f"d{i % 20}").mkdir(parents=True, exist_ok=True)
        (bulk / f"d{i % 20}" / f"o{i}.md").write_bytes(obj(f"bulk.o{i}"))
    (bulk / "d0" / "broken.md").write_bytes(b"---\nid: [\n---\n")
    assert session.changed_on_disk()
    repo = session.load()
    assert len(repo.objects) == 7 + 2000 and repo.invalid_files == 1
    # Only the new files were parsed; the old ones came from the cache.
    assert session.loader.parsed_count - parsed == 2001
    assert len(ids(session)) == 2007
    res = session.resolve(Query(role="support", as_of=AS_OF))
    assert {i.obj.id for i in res.included} == set(GOOD_IDS)  # scope still applies
    shutil.rmtree(bulk)
    session.load()
    assert len(ids(session)) == 7


def test_unchanged_files_are_not_read_again(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = Session(root)
    session.load()
    reads: list[str] = []
    original = session.tree.read

    def read(rel: str) -> bytes:
        reads.append(rel)
        return original(rel)

    monkeypatch.setattr(session.tree, "read", read)
    (root / "notes" / "n2.md").write_bytes(obj("notes.n2") + b"more\n")
    session.load()
    assert sorted(set(reads)) == ["notes/n2.md", "opencontext.yaml"]
