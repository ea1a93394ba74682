"""Helpers shared by the hostile-input tests: repositories on disk and in memory, CLI runs."""

from __future__ import annotations

import hashlib
import io
import os
import stat
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from octui.cli.main import main
from octui.load.tree import MAX_FILE_BYTES, Entry

CONFIG = b"""spec: 1
classification:
  levels: [public, internal, confidential, restricted]
roles:
  reader: {clearance: restricted}
  support:
    clearance: internal
    scope: {include: ["policies.*", "good.*", "mission"]}
"""

#: Two valid objects that sit beside every broken input and must keep resolving.
GOOD: dict[str, bytes] = {
    "policies/good.md": b"---\nid: policies.good\nauthority: canonical\ntitle: Good\n---\nFine.\n",
    "good.yaml": b"id: good.yaml\nauthority: approved\ncontent: Also fine.\n",
}
GOOD_IDS = ("good.yaml", "policies.good")


def write_repo(root: Path, files: dict[str, bytes], config: bytes | None = CONFIG) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (root / "opencontext.yaml").write_bytes(config)
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


@dataclass
class CliRun:
    code: int
    out: str
    err: str


def cli(argv: Sequence[str]) -> CliRun:
    """Run ``opencontext`` in-process; an escaping exception fails the calling test."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
    return CliRun(code, out.getvalue(), err.getvalue())


class MemTree:
    """An in-memory :class:`octui.load.tree.Tree`: ``{rel: bytes}``; folders are implied.

    ``reverse`` lists folders in reverse order, to prove enumeration order never matters.
    """

    def __init__(self, files: dict[str, bytes], *, reverse: bool = False) -> None:
        self.files = dict(files)
        self.reverse = reverse

    def describe(self, rel: str) -> str:
        return f"mem:{rel}"

    def read(self, rel: str) -> bytes:
        try:
            return self.files[rel][: MAX_FILE_BYTES + 1]
        except KeyError:
            raise FileNotFoundError(rel) from None

    def is_file(self, rel: str) -> bool:
        return rel in self.files

    def is_dir(self, rel: str) -> bool:
        prefix = "" if rel in ("", ".") else rel + "/"
        return any(k.startswith(prefix) for k in self.files)

    def scandir(self, rel: str) -> list[Entry]:
        prefix = "" if rel in ("", ".") else rel + "/"
        names: dict[str, bool] = {}
        for key in self.files:
            if key.startswith(prefix):
                head, _, rest = key[len(prefix) :].partition("/")
                names[head] = names.get(head, False) or bool(rest)
        if not names and prefix:
            raise FileNotFoundError(rel)
        entries = [
            Entry(n, prefix + n, d, 0 if d else len(self.files[prefix + n]), 0)
            for n, d in sorted(names.items(), reverse=self.reverse)
        ]
        return entries


def snapshot(root: Path) -> dict[str, tuple[str, int, str]]:
    """Every entry under ``root`` (hidden ones too): kind, mode and content hash or link target."""
    out: dict[str, tuple[str, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", st.st_mode, os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", st.st_mode, "")
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()
                out[rel] = ("file", st.st_mode, f"{digest} {st.st_mtime_ns}")
            else:
                out[rel] = ("other", st.st_mode, "")
    return out
