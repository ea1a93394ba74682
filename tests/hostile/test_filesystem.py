"""Only regular files are ever read, inside the repository, once, within a budget.

Every case that could hang or exhaust memory when it regresses (a FIFO, ``/dev/zero``, an
exponential walk, amplification through links) runs ``opencontext`` in a child process
with a timeout and an address-space limit, so a regression fails the test instead of
hanging the suite or the machine.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hostile_util import CONFIG, GOOD, GOOD_IDS, cli, write_repo

from octui.load import loader
from octui.load.loader import load_repository
from octui.load.tree import MAX_FILE_BYTES, FsTree

AS_OF = "2026-06-01"
INV = "invalid-object"
TIMEOUT = 60
MEMORY_LIMIT = 1536 << 20
"""The child's address space: enough for the tool, far below what a regression takes."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` (with ``ARGS`` = args) in a fresh interpreter, bounded in time and memory."""
    prelude = "import sys, json, time\nARGS = sys.argv[1:]\n"
    env = dict(os.environ, OCTUI_NO_CACHE="1")
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limit_memory,
        env=env,
        check=False,
    )


def opencontext(*argv: str) -> subprocess.CompletedProcess[str]:
    return child("from octui.cli.main import main\nraise SystemExit(main(ARGS))", *argv)


def validate(root: Path) -> tuple[int, list[dict[str, object]]]:
    run = opencontext("validate", str(root), "--as-of", AS_OF, "--format", "json")
    assert run.stderr == "", run.stderr
    return run.returncode, json.loads(run.stdout)["findings"]


def invalid(findings: list[dict[str, object]], rel: str) -> list[str]:
    """Messages of the ``invalid-object`` findings about ``rel``."""
    return [
        str(f["message"])
        for f in findings
        if f["code"] == INV and rel in f["paths"]  # type: ignore[operator]
    ]


def fm(text: str, body: str = "Body.\n") -> bytes:
    return f"---\n{text}---\n{body}".encode()


# -- only regular files ------------------------------------------------------------------------


def test_a_link_to_a_fifo_is_an_invalid_object_and_never_blocks(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo", GOOD)
    os.mkfifo(root / "pipe")
    os.symlink("pipe", root / "b.md")
    os.mkfifo(root / "policies" / "direct.md")
    code, findings = validate(root)
    (b,) = invalid(findings, "b.md")
    assert b.startswith("b.md: ") and "not a regular file" in b and "FIFO" in b
    (direct,) = invalid(findings, "policies/direct.md")
    assert "not a regular file" in direct
    assert code == 1
    res = opencontext(
        "resolve", str(root), "--role", "reader", "--as-of", AS_OF, "--format", "json"
    )
    assert res.returncode == 0 and {o["id"] for o in json.loads(res.stdout)["objects"]} == set(
        GOOD_IDS
    )


def test_a_socket_is_an_invalid_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_repo(tmp_path / "repo", GOOD)
    monkeypatch.chdir(root / "policies")  # a relative name: socket paths are short
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("sock.md")
        os.symlink("policies/sock.md", root / "via-link.md")
        _, findings = validate(root)
    for rel in ("policies/sock.md", "via-link.md"):
        (message,) = invalid(findings, rel)
        assert "not a regular file" in message and "socket" in message


def _config_case(root: Path, how: str) -> None:
    config = root / "opencontext.yaml"
    config.unlink()
    if how == "fifo":
        os.mkfifo(config)
    elif how == "link-to-fifo":
        os.mkfifo(root / "pipe")
        os.symlink("pipe", config)
    elif how == "dev-zero":
        os.symlink("/dev/zero", config)
    elif how == "etc-passwd":
        os.symlink("/etc/passwd", config)
    elif how == "too-big":
        config.write_bytes(CONFIG + b"#" * MAX_FILE_BYTES + b"\n")
    elif how == "hidden-target":
        (root / ".conf").mkdir()
        (root / ".conf" / "real.yaml").write_bytes(CONFIG)
        os.symlink(".conf/real.yaml", config)
    elif how == "dangling":
        os.symlink("nowhere.yaml", config)


CONFIG_HOSTILE = [
    ("fifo", "not a regular file"),
    ("link-to-fifo", "not a regular file"),
    ("dev-zero", "leads outside the repository"),
    ("etc-passwd", "leads outside the repository"),
    ("too-big", f"larger than {MAX_FILE_BYTES} bytes"),
    ("hidden-target", "hidden"),
    ("dangling", "broken symbolic link"),
]


@pytest.mark.parametrize(("how", "problem"), CONFIG_HOSTILE, ids=[c[0] for c in CONFIG_HOSTILE])
def test_a_hostile_config_file_is_one_line_exit_2(tmp_path: Path, how: str, problem: str) -> None:
    root = write_repo(tmp_path / "repo", GOOD)
    _config_case(root, how)
    for argv in (["validate", str(root)], ["resolve", str(root), "--role", "reader"]):
        run = opencontext(*argv, "--as-of", AS_OF)
        assert run.returncode == 2, run
        assert run.stdout == ""
        assert run.stderr.count("\n") == 1, run.stderr
        assert f"{root / 'opencontext.yaml'}: " in run.stderr
        assert problem in run.stderr, run.stderr
        assert "root:" not in run.stderr  # nothing of /etc/passwd


def test_a_config_file_linked_inside_the_repository_is_read(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo", GOOD)
    (root / "conf").mkdir()
    (root / "opencontext.yaml").rename(root / "conf" / "real.yaml")
    os.symlink("conf/real.yaml", root / "opencontext.yaml")
    run = cli(["resolve", str(root), "--role", "reader", "--as-of", AS_OF, "--format", "json"])
    assert run.code == 0, run.err
    assert {o["id"] for o in json.loads(run.out)["objects"]} == set(GOOD_IDS)


def test_the_explorer_config_reader_obeys_the_same_rules(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo", GOOD)
    _config_case(root, "etc-passwd")
    run = child(
        """
        from pathlib import Path
        from octui.load.config import ConfigError, load_config
        try:
            load_config(Path(ARGS[0]))
        except ConfigError as exc:
            print(exc)
        """,
        str(root),
    )
    assert run.returncode == 0 and "leads outside the repository" in run.stdout, run


# -- once: real identity -----------------------------------------------------------------------


def _dag(root: Path, n: int) -> None:
    """``d_i/l1`` and ``d_i/l2`` both lead to ``d_{i+1}``: 2**n paths to ``d_n``."""
    for i in range(n + 1):
        folder = root / f"d{i}"
        folder.mkdir()
        (folder / f"o{i}.md").write_bytes(fm(f"id: dag.o{i}\nauthority: approved\n"))
        if i < n:
            os.symlink(f"../d{i + 1}", folder / "l1")
            os.symlink(f"../d{i + 1}", folder / "l2")


def test_a_dag_of_folder_links_is_walked_once_per_real_folder(tmp_path: Path) -> None:
    n = 18
    root = write_repo(tmp_path / "repo", GOOD)
    _dag(root, n)
    run = child(
        """
        from octui.load.loader import load_repository
        start = time.perf_counter()
        repo = load_repository(ARGS[0])
        elapsed = time.perf_counter() - start
        print(json.dumps({
            "elapsed": elapsed,
            "paths": sorted(o.path for o in repo.objects),
            "findings": [f.message for f in repo.findings],
        }))
        """,
        str(root),
    )
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["elapsed"] < 1.0, doc["elapsed"]
    # every real file once, at its real path
    expected = sorted([*GOOD, *(f"d{i}/o{i}.md" for i in range(n + 1))])
    assert doc["paths"] == expected
    # every link is a second path to a folder already walked, reported once
    for i in range(n):
        for link in ("l1", "l2"):
            (message,) = [m for m in doc["findings"] if m.startswith(f"d{i}/{link}: ")]
            assert f"d{i + 1}" in message and "second path" in message


def test_a_dag_of_folder_links_in_a_git_revision_is_walked_once(tmp_path: Path) -> None:
    from git_fixture import commit, git

    n = 18
    root = write_repo(tmp_path / "repo", GOOD)
    _dag(root, n)
    git(root, "init", "-q")
    commit(root, "dag", "2026-01-01T00:00:00Z")
    run = child(
        """
        from octui.load.revisions import load_revision
        start = time.perf_counter()
        repo = load_revision(ARGS[0], "HEAD")
        print(json.dumps({
            "elapsed": time.perf_counter() - start,
            "paths": sorted(o.path for o in repo.objects),
        }))
        """,
        str(root),
    )
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["elapsed"] < 3.0, doc["elapsed"]
    assert doc["paths"] == sorted([*GOOD, *(f"d{i}/o{i}.md" for i in range(n + 1))])


def test_a_second_path_to_a_file_is_reported_and_not_loaded_again(tmp_path: Path) -> None:
    a = fm("id: policies.a\nauthority: approved\n")
    root = write_repo(tmp_path / "repo", GOOD | {"policies/a.md": a, "zz/real.md": fm("id: z\n")})
    os.symlink("a.md", root / "policies" / "alias.md")
    os.symlink("zz/real.md", root / "aa.md")  # sorts first, yet the real path is the one loaded
    os.link(root / "policies" / "a.md", root / "policies" / "b-hard.md")
    repo = load_repository(root)
    by_id = {o.id: o.path for o in repo.objects}
    assert sorted(o.id for o in repo.objects) == sorted([*GOOD_IDS, "policies.a", "z"])
    assert by_id["policies.a"] == "policies/a.md" and by_id["z"] == "zz/real.md"
    messages = {f.paths[0]: f.message for f in repo.findings}
    assert set(messages) == {"policies/alias.md", "aa.md", "policies/b-hard.md"}
    assert messages["aa.md"] == (
        "aa.md: a second path to the same file as zz/real.md; loaded once, as zz/real.md"
    )
    assert "policies/a.md" in messages["policies/alias.md"]
    assert "policies/a.md" in messages["policies/b-hard.md"]
    assert all(f.code.value == INV for f in repo.findings)


def test_an_in_root_link_to_a_file_outside_every_walked_folder_is_loaded(tmp_path: Path) -> None:
    config = CONFIG + b"sources: [{name: docs, path: docs}]\n"
    root = write_repo(tmp_path / "repo", {"shared/x.md": fm("id: shared.x\n")}, config)
    (root / "docs").mkdir()
    os.symlink("../shared/x.md", root / "docs" / "x.md")
    repo = load_repository(root)
    assert [(o.id, o.path) for o in repo.objects] == [("shared.x", "docs/x.md")]
    assert repo.findings == []


# -- hidden, amplification, budget -------------------------------------------------------------


def test_a_link_to_a_hidden_file_or_into_a_hidden_folder_is_never_read(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo", GOOD)
    (root / ".secret").mkdir()
    (root / ".secret" / "s.md").write_bytes(fm("id: secret.folder\n"))
    (root / ".s.md").write_bytes(fm("id: secret.file\n"))
    os.symlink(".s.md", root / "to-file.md")
    os.symlink(".secret/s.md", root / "into-folder.md")
    os.symlink(".secret", root / "folder-link")
    repo = load_repository(root)
    assert sorted(o.id for o in repo.objects) == sorted(GOOD_IDS)
    messages = {f.paths[0]: f.message for f in repo.findings}
    assert set(messages) == {"to-file.md", "into-folder.md", "folder-link"}
    assert all("hidden" in m and "not followed" in m for m in messages.values())


def test_many_links_to_one_big_file_read_and_hold_it_once(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo", GOOD)
    head = fm("id: big.one\nauthority: approved\n", "")
    (root / "big.md").write_bytes(head + b"x" * (MAX_FILE_BYTES - len(head) - 16) + b"\n")
    (root / ".hidden-big.md").write_bytes(b"y" * MAX_FILE_BYTES)
    (root / "links").mkdir()
    for i in range(1500):
        os.symlink("../big.md", root / "links" / f"l{i:04}.md")
        os.symlink("../.hidden-big.md", root / "links" / f"h{i:04}.md")
    run = child(
        """
        from octui.load.loader import load_repository
        repo = load_repository(ARGS[0])
        # VmHWM is this process's own peak; ru_maxrss carries the forking parent's across exec
        status = open("/proc/self/status").read().splitlines()
        hwm = int([line for line in status if line.startswith("VmHWM")][0].split()[1])
        print(json.dumps({
            "peak_mb": hwm / 1024,
            "big": [o.path for o in repo.objects if o.id == "big.one"],
            "findings": len(repo.findings),
        }))
        """,
        str(root),
    )
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["big"] == ["big.md"]
    assert doc["findings"] == 3000
    assert doc["peak_mb"] < 300, doc


def test_past_the_read_budget_files_are_findings_not_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"f/o{i}.md": fm(f"id: o.n{i}\n", "z" * 200) for i in range(10)}
    root = write_repo(tmp_path / "repo", files)
    size = len(files["f/o0.md"])
    monkeypatch.setattr(loader, "READ_BUDGET_BYTES", 4 * size)
    reads: list[str] = []
    original = FsTree.read

    def counting(self: FsTree, rel: str) -> bytes:
        reads.append(rel)
        return original(self, rel)

    monkeypatch.setattr(FsTree, "read", counting)
    repo = load_repository(root)
    assert sorted(o.id for o in repo.objects) == [f"o.n{i}" for i in range(4)]
    over = [f for f in repo.findings if "budget" in f.message]
    assert [f.paths[0] for f in over] == [f"f/o{i}.md" for i in range(4, 10)]
    assert all(f.code.value == INV for f in over)
    assert sorted(r for r in reads if r.startswith("f/")) == [f"f/o{i}.md" for i in range(4)]
    assert 4 * size == loader.READ_BUDGET_BYTES
    monkeypatch.undo()
    assert loader.READ_BUDGET_BYTES == 1 << 30


def test_reads_never_take_more_than_the_cap(tmp_path: Path) -> None:
    """A file that grows after the scan is still read only up to the cap (plus one byte)."""
    root = write_repo(tmp_path / "repo", GOOD)
    tree = FsTree(root)
    (root / "grown.md").write_bytes(b"x" * (3 * MAX_FILE_BYTES))
    assert len(tree.read("grown.md")) == MAX_FILE_BYTES + 1


def test_walking_a_large_plain_tree_stays_fast(tmp_path: Path) -> None:
    """The identity checks cost a stat, not a walk: 3,000 files load in a few seconds."""
    files = {f"t{i % 30}/o{i}.md": fm(f"id: t.o{i}\n") for i in range(3000)}
    root = write_repo(tmp_path / "repo", files)
    start = time.perf_counter()
    repo = load_repository(root)
    assert len(repo.objects) == 3000 and repo.findings == []
    assert time.perf_counter() - start < 10
