"""Reading git history never runs repository-controlled code and never writes into ``.git``.

Each vector below is a repository whose ``.git/config`` (or committed ``.gitattributes``)
names a canary program: a script that records that it ran. A positive control first runs
plain git on a *copy* of the repository and sees the canary run — so the vector is live —
then every command that reads git runs on the original: ``resolve``, ``validate``,
``history``, ``diff`` and ``changes`` with ``--rev``, the explorer's revision picker
(``list_revisions``) and the explorer's revision session (``GitTree`` + ``Session``). The
canary must never run and a checksum of the whole ``.git`` folder must not move.

Then: a blob missing from a partial clone is a finding naming the path, never a fetch,
never a crash; blobs obey the 1 MiB cap before they are read, hidden files are never
read, one blob is read and parsed once however many paths name it, and the distinct
content read stays within a budget.
"""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hostile_util import CONFIG, CliRun, cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from git_fixture import git, git_dir_checksum, git_env

from octui.core.enums import WarningCode
from octui.load import gitblobs, gitrun, loader
from octui.load.gittree import GitTree
from octui.load.loader import Loader
from octui.load.revisions import list_revisions, load_revision
from octui.load.tree import MAX_FILE_BYTES
from octui.session import Session

PROJECT = Path(__file__).resolve().parents[2]

GOOD_MD = b"---\nid: policies.good\nauthority: canonical\ntitle: Good\n---\nFine.\n"
GOOD_YAML = b"id: good.yaml\nauthority: approved\ncontent: Also fine.\n"
BIG_MD = b"---\nid: policies.big\nauthority: approved\ntitle: Big\n---\n" + b"padding line\n" * 300


@dataclass
class Canary:
    script: Path
    marker: Path

    def ran(self) -> str:
        return self.marker.read_text() if self.marker.exists() else ""

    def reset(self) -> None:
        self.marker.unlink(missing_ok=True)


def make_canary(root: Path) -> Canary:
    marker = root / "canary-ran"
    script = root / "canary.sh"
    # It never reads its input: a program git waits on (ssh, a filter) must not block.
    script.write_text(f'#!/bin/sh\necho "ran: $0 $*" >> "{marker}"\nexit 0\n')
    script.chmod(0o755)
    return Canary(script, marker)


def base_repo(work: Path) -> None:
    """Two commits: the first without ``policies/big.md``, the second adds it and edits one."""
    (work / "policies").mkdir(parents=True)
    git(work, "init", "-q")
    (work / "opencontext.yaml").write_bytes(CONFIG)
    (work / "policies" / "good.md").write_bytes(GOOD_MD)
    (work / "good.yaml").write_bytes(GOOD_YAML)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "first", date="2026-01-01T00:00:00Z")
    (work / "policies" / "big.md").write_bytes(BIG_MD)
    (work / "good.yaml").write_bytes(GOOD_YAML.replace(b"Also fine", b"Still fine"))
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "second", date="2026-02-01T00:00:00Z")


def set_config(work: Path, *pairs: tuple[str, str]) -> None:
    for key, value in pairs:
        git(work, "config", "--local", key, value)


def plain_git(cwd: Path, *args: str, tty: bool = False) -> None:
    """Run git as a user would (the repository's configuration in force), ignoring failures."""
    if not tty:
        subprocess.run(["git", *args], cwd=cwd, env=git_env(), capture_output=True, timeout=30)
        return
    leader, follower = pty.openpty()
    try:
        subprocess.run(
            ["git", *args],
            cwd=cwd,
            env={**git_env(), "TERM": "xterm"},
            stdin=follower,
            stdout=follower,
            stderr=follower,
            timeout=60,
        )
    finally:
        os.close(follower)
        os.close(leader)


# -- the vectors ----------------------------------------------------------------------------
#
# Each builds a hostile repository at ``work`` (canary named in it) and returns the plain
# git commands (run on a copy) that show the vector runs the canary.

Trigger = tuple[tuple[str, ...], bool]  # (git arguments, needs a terminal)


def promisor_with_ssh(work: Path, canary: Canary) -> list[Trigger]:
    """A partial clone missing ``policies/big.md``'s blob, its promisor remote reached over
    ssh with ``core.sshCommand`` = canary (and every protocol allowed)."""
    origin = work.parent / "origin"
    base_repo(origin)
    set_config(origin, ("uploadpack.allowFilter", "true"))
    git(
        work.parent,
        "clone",
        "-q",
        "--no-checkout",
        "--filter=blob:limit=1k",
        f"file://{origin}",
        str(work),
    )
    shutil.rmtree(origin)  # offline: nothing to fetch from, whatever runs
    set_config(
        work,
        ("remote.origin.url", "canary.invalid:repo.git"),
        ("core.sshCommand", str(canary.script)),
        ("protocol.allow", "always"),
        ("protocol.ssh.allow", "always"),
    )
    return [(("cat-file", "-p", "HEAD:policies/big.md"), False)]


def signed_commit(work: Path, canary: Canary) -> list[Trigger]:
    """HEAD is a commit carrying a ``gpgsig`` header; ``log.showSignature`` and every
    ``gpg.*.program`` name the canary."""
    base_repo(work)
    tree = git(work, "rev-parse", "HEAD^{tree}").strip()
    parent = git(work, "rev-parse", "HEAD").strip()
    body = "\n".join(
        [
            f"tree {tree}",
            f"parent {parent}",
            "author Fixture <fixture@example.invalid> 1767225600 +0000",
            "committer Fixture <fixture@example.invalid> 1767225600 +0000",
            "gpgsig -----BEGIN PGP SIGNATURE-----",
            " ",
            " iQEzBAABCAAdFiEEAAAAAAAAAAAAAAAAAAAAAAAAAAAFAmAAAAAACgkQAAAAAAAA",
            " =AAAA",
            " -----END PGP SIGNATURE-----",
            "",
            "signed (not really)",
            "",
        ]
    )
    path = work.parent / "commit.txt"
    path.write_text(body)
    sha = git(work, "hash-object", "-t", "commit", "-w", str(path)).strip()
    git(work, "update-ref", "HEAD", sha)
    set_config(
        work,
        ("log.showSignature", "true"),
        ("gpg.program", str(canary.script)),
        ("gpg.openpgp.program", str(canary.script)),
        ("gpg.ssh.program", str(canary.script)),
        ("gpg.x509.program", str(canary.script)),
    )
    return [(("log", "-1"), False)]


def fsmonitor(work: Path, canary: Canary) -> list[Trigger]:
    base_repo(work)
    set_config(work, ("core.fsmonitor", str(canary.script)))
    return [(("status",), False)]


def hooks_path(work: Path, canary: Canary) -> list[Trigger]:
    base_repo(work)
    hooks = work.parent / "hooks"
    hooks.mkdir()
    for name in (
        "pre-commit",
        "commit-msg",
        "post-commit",
        "post-checkout",
        "post-merge",
        "post-rewrite",
        "pre-auto-gc",
        "post-index-change",
        "reference-transaction",
        "fsmonitor-watchman",
        "pre-push",
        "push-to-checkout",
        "sendemail-validate",
    ):
        (hooks / name).symlink_to(canary.script)
    set_config(work, ("core.hooksPath", str(hooks)))
    return [(("commit", "-q", "--allow-empty", "-m", "x"), False)]


def diff_external(work: Path, canary: Canary) -> list[Trigger]:
    base_repo(work)
    set_config(work, ("diff.external", str(canary.script)))
    return [(("diff", "HEAD~1", "HEAD"), False)]


def pager(work: Path, canary: Canary) -> list[Trigger]:
    base_repo(work)
    set_config(
        work,
        ("core.pager", str(canary.script)),
        ("pager.log", str(canary.script)),
        ("pager.ls-tree", str(canary.script)),
        ("pager.cat-file", str(canary.script)),
        ("pager.rev-parse", str(canary.script)),
    )
    return [(("log", "-1"), True)]


def attributes(work: Path, canary: Canary) -> list[Trigger]:
    """A committed ``.gitattributes`` puts every file under a textconv driver and a
    smudge/clean filter; the configuration names the canary for both."""
    base_repo(work)
    (work / ".gitattributes").write_text("* diff=canary filter=canary\n")
    git(work, "add", ".gitattributes")
    git(work, "commit", "-q", "-m", "attributes", date="2026-03-01T00:00:00Z")
    set_config(
        work,
        ("diff.canary.textconv", str(canary.script)),
        ("filter.canary.smudge", str(canary.script)),
        ("filter.canary.clean", str(canary.script)),
        ("filter.canary.process", str(canary.script)),
    )
    return [
        (("cat-file", "--filters", "HEAD:good.yaml"), False),
        (("show", "HEAD~1"), False),
    ]


def aliases(work: Path, canary: Canary) -> list[Trigger]:
    base_repo(work)
    command = f"!{canary.script}"
    set_config(
        work,
        *(
            (f"alias.{name}", command)
            for name in ("canary", "log", "ls-tree", "cat-file", "rev-parse", "show", "rev-list")
        ),
    )
    return [(("canary",), False)]


VECTORS: dict[str, Callable[[Path, Canary], list[Trigger]]] = {
    "core.sshCommand+promisor": promisor_with_ssh,
    "log.showSignature+gpg.program": signed_commit,
    "core.fsmonitor": fsmonitor,
    "core.hooksPath": hooks_path,
    "diff.external": diff_external,
    "core.pager": pager,
    "gitattributes textconv+filter": attributes,
    "alias.*": aliases,
}


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def every_git_reader(repo: Path) -> Iterator[tuple[str, object]]:
    """Run each command that reads git on ``repo``; yield (name, result) to check."""
    r = str(repo)
    commands = {
        "resolve": ["resolve", r, "--role", "reader", "--rev", "HEAD", "--format", "json"],
        "validate": ["validate", r, "--rev", "HEAD", "--format", "json"],
        "history": ["history", "policies.good", r, "--rev", "HEAD"],
        "diff": ["diff", r, "--role", "reader", "--rev", "HEAD~1", "--against-rev", "HEAD"],
        "changes": ["changes", r, "--role", "reader", "--rev", "HEAD", "--until", "30d"],
        "resolve --known-at": ["resolve", r, "--role", "reader", "--known-at", "9999-01-01"],
        "diff --against-known-at": [
            "diff",
            r,
            "--role",
            "reader",
            "--rev",
            "HEAD~1",
            "--against-known-at",
            "9999-01-01",
        ],
        "history --log": ["history", "policies.good", r, "--log", "--format", "json"],
    }
    for name, argv in commands.items():
        yield name, cli(argv)
    cited = repo.parent / "cited-bundle.json"  # outside the repository and its .git
    at_head = cli(["resolve", r, "--role", "reader", "--rev", "HEAD", "--format", "json"])
    cited.write_text(at_head.out, encoding="utf-8")
    yield "verify", cli(["verify", str(cited), r])
    yield "list_revisions", list_revisions(repo)
    with GitTree(repo, "HEAD") as tree:  # what the explorer does on picking a revision
        session = Session(repo, tree=tree)
        yield "explorer session", session.load()
        yield "explorer change check", session.changed_on_disk()


@pytest.mark.parametrize("vector", sorted(VECTORS))
def test_no_git_reader_runs_repository_code_or_writes_into_git(tmp_path: Path, vector: str) -> None:
    canary = make_canary(tmp_path)
    work = tmp_path / "work"
    triggers = VECTORS[vector](work, canary)

    # The positive control: plain git on a copy runs the canary, so the vector is live.
    copy = tmp_path / "copy"
    shutil.copytree(work, copy, symlinks=True)
    for args, tty in triggers:
        plain_git(copy, *args, tty=tty)
    assert canary.ran(), f"{vector}: the canary did not run under plain git"
    canary.reset()
    shutil.rmtree(copy)

    before = git_dir_checksum(work / ".git")
    for name, result in every_git_reader(work):
        assert not canary.ran(), f"{vector}: {name} ran the repository's program"
        if isinstance(result, CliRun):
            assert result.code in (0, 1), f"{vector}: {name}: {result.err}"
            assert "Traceback" not in result.err
        assert git_dir_checksum(work / ".git") == before, f"{vector}: {name} wrote into .git"
    revisions = list_revisions(work)
    assert revisions and len(revisions[0].commit) == 40


# -- a partial clone: a missing blob is a finding -------------------------------------------


def test_missing_blob_is_a_finding_naming_the_path_never_a_fetch(tmp_path: Path) -> None:
    canary = make_canary(tmp_path)
    work = tmp_path / "work"
    promisor_with_ssh(work, canary)
    before = git_dir_checksum(work / ".git")
    run = cli(["validate", str(work), "--rev", "HEAD", "--format", "json"])
    assert run.code == 1, run.err
    report = json.loads(run.out)
    messages = [f["message"] for f in report["findings"]]
    assert any(
        m.startswith("policies/big.md: object not available in this clone") for m in messages
    ), messages
    # The rest keeps working.
    repo = load_revision(work, "HEAD")
    assert {o.id for o in repo.objects} == {"good.yaml", "policies.good"}
    [finding] = [f for f in repo.findings if "big.md" in f.message]
    assert finding.code is WarningCode.INVALID_OBJECT and finding.paths == ("policies/big.md",)
    assert not canary.ran()
    assert git_dir_checksum(work / ".git") == before


def test_missing_configuration_blob_is_one_line_exit_2(tmp_path: Path) -> None:
    canary = make_canary(tmp_path)
    origin, work = tmp_path / "origin", tmp_path / "work"
    base_repo(origin)
    (origin / "opencontext.yaml").write_bytes(CONFIG + b"# " + b"x" * 2048 + b"\n")
    git(origin, "commit", "-qam", "long config", date="2026-03-01T00:00:00Z")
    set_config(origin, ("uploadpack.allowFilter", "true"))
    git(
        tmp_path,
        "clone",
        "-q",
        "--no-checkout",
        "--filter=blob:limit=1k",
        f"file://{origin}",
        "work",
    )
    set_config(
        work, ("remote.origin.url", "canary.invalid:x"), ("core.sshCommand", str(canary.script))
    )
    run = cli(["resolve", str(work), "--role", "reader", "--rev", "HEAD"])
    assert run.code == 2
    assert run.err.count("\n") == 1 and "opencontext.yaml at HEAD" in run.err
    assert "object not available in this clone" in run.err
    assert not canary.ran()


def test_tree_listing_and_sizes_are_parsed_whatever_git_prints() -> None:
    sha = "a" * 40
    listing = (
        f"100644 blob {sha}\tok.md\x00040000 tree {sha}\tdir\x00garbage without a tab\x00"
        f"100644 blob {sha}     12\tlong-format.md\0"
    ).encode()
    assert [e[3] for e in gitrun._parse_listing(listing)] == ["ok.md", "dir"]
    sizes = f"{'b' * 40} 12\n{'c' * 40} missing\n{'d' * 40} BAD\n{'e' * 40} -1\njunk\n"
    assert gitrun._parse_sizes(sizes.encode()) == {"b" * 40: 12}


# -- what is read: the cap before reading, hidden names never, each blob once, a budget -------


class ReadSpy:
    """Every blob id asked of a ``git cat-file --batch`` (a content read) that octui.load.gitblobs
    (or octui.load.gitrun) starts, whether as one run or a long-lived process."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.asked: list[str] = []
        asked = self.asked
        real_run, real_popen = subprocess.run, subprocess.Popen

        def reads_content(argv: list[str]) -> bool:
            return "cat-file" in argv and "--batch" in argv

        def run(argv: list[str], *args: Any, **kwargs: Any) -> Any:
            if reads_content(argv) and kwargs.get("input"):
                asked.extend(kwargs["input"].decode().split())
            return real_run(argv, *args, **kwargs)

        class Recorder:
            def __init__(self, pipe: Any) -> None:
                self.pipe = pipe

            def write(self, data: bytes) -> int:
                asked.extend(data.decode().split())
                return int(self.pipe.write(data))

            def __getattr__(self, name: str) -> Any:
                return getattr(self.pipe, name)

        def popen(argv: list[str], *args: Any, **kwargs: Any) -> Any:
            proc = real_popen(argv, *args, **kwargs)
            if reads_content(argv) and proc.stdin is not None:
                proc.stdin = Recorder(proc.stdin)  # type: ignore[assignment]
            return proc

        fake = types.SimpleNamespace(
            run=run, Popen=popen, PIPE=subprocess.PIPE, DEVNULL=subprocess.DEVNULL
        )
        monkeypatch.setattr(gitblobs, "subprocess", fake)  # the long-lived cat-file process
        monkeypatch.setattr(gitrun, "subprocess", fake)  # one-off git runs


def commit_tree(work: Path, entries: list[tuple[str, str, str]]) -> None:
    """Commit a tree made of ``(mode, blob id, path)`` entries (nested paths allowed)."""
    git(work, "init", "-q")
    env = {**git_env(), "GIT_INDEX_FILE": str(work.parent / "index")}
    subprocess.run(
        ["git", "update-index", "--index-info"],
        input="".join(f"{mode} {sha}\t{path}\n" for mode, sha, path in entries).encode(),
        cwd=work,
        env=env,
        check=True,
    )
    tree = (
        subprocess.run(["git", "write-tree"], cwd=work, env=env, check=True, capture_output=True)
        .stdout.decode()
        .strip()
    )
    commit = git(work, "commit-tree", tree, "-m", "crafted", date="2026-01-01T00:00:00Z").strip()
    git(work, "update-ref", "HEAD", commit)


def blob(work: Path, data: bytes) -> str:
    result = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=work,
        input=data,
        env=git_env(),
        check=True,
        capture_output=True,
    )
    return result.stdout.decode().strip()


def test_huge_configuration_blob_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    huge = blob(work, CONFIG + b"# padding\n" * (8 * MAX_FILE_BYTES // 10))
    good = blob(work, GOOD_MD)
    commit_tree(work, [("100644", huge, "opencontext.yaml"), ("100644", good, "good.md")])
    spy = ReadSpy(monkeypatch)
    run = cli(["validate", str(work), "--rev", "HEAD"])
    assert run.code == 2
    assert run.err.count("\n") == 1
    assert "opencontext.yaml at HEAD" in run.err and "larger than 1048576 bytes" in run.err
    assert huge not in spy.asked


def test_hidden_and_oversized_blobs_are_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    config, good = blob(work, CONFIG), blob(work, GOOD_MD)
    hidden = blob(work, GOOD_MD.replace(b"policies.good", b"policies.hidden"))
    big = blob(work, b"---\nid: policies.huge\n---\n" + b"x" * (MAX_FILE_BYTES + 1))
    link = blob(work, b"../.secret/hidden.md")
    commit_tree(
        work,
        [
            ("100644", config, "opencontext.yaml"),
            ("100644", good, "policies/good.md"),
            ("100644", hidden, ".secret/hidden.md"),
            ("100644", hidden, "policies/.hidden.md"),
            ("120000", link, "policies/to-hidden.md"),
            ("100644", big, "policies/huge.md"),
        ],
    )
    spy = ReadSpy(monkeypatch)
    repo = load_revision(work, "HEAD")
    assert {o.id for o in repo.objects} == {"policies.good"}
    assert hidden not in spy.asked and big not in spy.asked
    messages = sorted(f.message for f in repo.findings)
    assert any(m.startswith("policies/huge.md: file is larger than") for m in messages)
    assert any(
        m.startswith("policies/to-hidden.md: symbolic link leads to a hidden") for m in messages
    )


def one_blob_many_paths(work: Path, count: int) -> str:
    """A tree of ``count`` paths naming one ~1 MiB object blob (a few hundred KB of .git)."""
    work.mkdir()
    git(work, "init", "-q")
    body = b"---\nid: big\nauthority: canonical\n---\n"
    body += b"lorem ipsum dolor sit amet " * ((MAX_FILE_BYTES - len(body)) // 27)
    assert len(body) <= MAX_FILE_BYTES
    big = blob(work, body)
    entries = [("100644", blob(work, CONFIG), "opencontext.yaml")]
    entries += [("100644", big, f"d{i % 10}/f{i:05d}.md") for i in range(count)]
    commit_tree(work, entries)
    return big


def test_one_blob_named_by_many_paths_is_read_and_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    big = one_blob_many_paths(work, 300)
    spy = ReadSpy(monkeypatch)
    with GitTree(work, "HEAD") as tree:
        loader = Loader(tree, str(work))
        repo = loader.load()
        assert spy.asked.count(big) == 1
        assert loader.parsed_count == 1
        assert tree.bytes_read < 2 * MAX_FILE_BYTES  # the blob and the configuration, once
    assert len(repo.objects) == 300
    assert len({id(o.content) for o in repo.objects}) == 1  # held once


def test_one_blob_named_by_3000_paths_stays_small(tmp_path: Path) -> None:
    """Before: 3,000 paths to one ~1 MiB blob took 3.1 GB; now the process stays small."""
    work = tmp_path / "work"
    one_blob_many_paths(work, 3000)
    probe = (
        "import sys\n"
        "from octui.cli.main import main\n"
        "code = main(sys.argv[1:])\n"
        # VmHWM: this process's own peak. ru_maxrss would carry over the peak of the
        # (large) pytest process it was forked from, across exec.
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
        "print(code, hwm)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe, "validate", str(work), "--rev", "HEAD", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PROJECT,
    )
    code, peak_kib = run.stdout.strip().splitlines()[-1].split()
    assert code == "1", run.stderr  # 2,999 duplicate versions: errors, not a crash
    assert int(peak_kib) < 400 * 1024, f"peak {int(peak_kib) // 1024} MiB"


def test_distinct_content_past_the_read_budget_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    entries = [("100644", blob(work, CONFIG), "opencontext.yaml")]
    for i in range(10):
        data = f"id: obj.{i}\nauthority: approved\ncontent: {'x' * 1000}\n".encode()
        entries.append(("100644", blob(work, data), f"obj{i}.yaml"))
    commit_tree(work, entries)
    budget = len(CONFIG) + 4 * 1050
    with GitTree(work, "HEAD", read_budget=budget) as tree:
        repo = Loader(tree, str(work)).load()
        assert tree.bytes_read <= budget
    assert len(repo.objects) == 4
    over = [f for f in repo.findings if "read budget" in f.message]
    assert len(over) == 10 - len(repo.objects)
    assert all(f.code is WarningCode.INVALID_OBJECT for f in over)
    assert loader.READ_BUDGET_BYTES == 1024 * 1024 * 1024


def test_hardened_invocation_is_used_by_every_git_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every git process octui starts gets the hardened argv prefix and environment."""
    monkeypatch.setenv("GIT_DIR", "/nonexistent")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.pager'='evil'")
    seen: list[tuple[list[str], dict[str, str]]] = []
    real_run, real_popen = subprocess.run, subprocess.Popen

    def record(argv: list[str], env: dict[str, str] | None) -> None:
        if argv and os.path.basename(argv[0]) == "git":
            seen.append((list(argv), dict(env or {})))

    def spy_run(argv, *args, **kwargs):  # type: ignore[no-untyped-def]
        record(argv, kwargs.get("env"))
        return real_run(argv, *args, **kwargs)

    class SpyPopen(real_popen):  # type: ignore[misc, valid-type]
        def __init__(self, argv, *args, **kwargs):  # type: ignore[no-untyped-def]
            record(argv, kwargs.get("env"))
            super().__init__(argv, *args, **kwargs)

    canary = make_canary(tmp_path)
    work = tmp_path / "work"
    aliases(work, canary)
    monkeypatch.setattr(subprocess, "run", spy_run)
    monkeypatch.setattr(subprocess, "Popen", SpyPopen)
    for _ in every_git_reader(work):
        pass
    assert seen
    prefix, _ = gitrun.hardened_git(str(work))
    for argv, used in seen:
        assert argv[: len(prefix) - 2] == prefix[:-2]  # all but "-C <cwd>"
        assert "protocol.allow=never" in argv and "log.showSignature=false" in argv
        for key in ("GIT_DIR", "GIT_CONFIG_PARAMETERS"):
            assert key not in used
        for key, value in gitrun._HARDENED_ENV.items():
            assert used[key] == value
        assert used["GIT_CONFIG_GLOBAL"] == os.devnull and used["GIT_ALLOW_PROTOCOL"] == ""


def test_a_log_asking_for_signatures_still_never_runs_the_signature_program(
    tmp_path: Path,
) -> None:
    """``%G?`` makes git verify a signature even under ``--format`` (the picker's format
    does not ask, but nothing may hinge on that): the hardened git cannot start gpg."""
    canary = make_canary(tmp_path)
    work = tmp_path / "work"
    signed_commit(work, canary)
    argv, env = gitrun.hardened_git(str(work))
    run = subprocess.run([*argv, "log", "-1", "--format=%G? %H"], env=env, capture_output=True)
    assert run.returncode == 0 and run.stdout.startswith(b"N ")
    assert not canary.ran()
    plain_git(work, "log", "-1", "--format=%G? %H")
    assert canary.ran()  # the same command as a user runs it does start the canary
