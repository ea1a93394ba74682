"""A corpus of broken inputs, each with the exact finding it must produce.

Every case writes the broken input beside two valid objects and checks, through the
real CLI entry point (in-process):

- ``validate`` reports exactly one finding of the expected code for the file, its
  message is a single line naming the file and the problem, and the exit code follows
  the severities (1 when an error is present);
- nothing escapes as a traceback, stderr stays empty;
- the valid objects beside it still resolve for a role, and a role's bundle never
  names the broken file (it reports only how many files failed).

Unreadable files and folders are simulated by making the tree's read/scandir raise
``PermissionError``: these tests run as root, and ``chmod 000`` does not stop root.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hostile_util import CONFIG, GOOD, GOOD_IDS, cli, write_repo

from octui.core.enums import WarningCode
from octui.core.textsafe import inert
from octui.load.tree import MAX_FILE_BYTES, FsTree

AS_OF = "2026-06-01"

Setup = Callable[[Path, pytest.MonkeyPatch], None]


@dataclass(frozen=True)
class Case:
    name: str
    files: dict[str, bytes]
    code: str
    where: str
    """The file (or source) the finding must name."""
    problem: str
    """A fragment of the problem the message must state."""
    setup: Setup | None = None
    extra: tuple[str, ...] = field(default=())
    """More fragments the message must contain."""


def fm(text: str) -> bytes:
    """A Markdown object: front matter ``text`` between ``---`` lines, and a body."""
    return f"---\n{text}---\nBody.\n".encode()


BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
)

INV = WarningCode.INVALID_OBJECT.value


def bad(name: str, rel: str, data: bytes, problem: str, *extra: str) -> Case:
    return Case(name, {rel: data}, INV, rel, problem, extra=extra)


# -- simulated filesystem trouble ------------------------------------------------------------


def _symlink(link: str, target: str) -> Setup:
    def setup(root: Path, mp: pytest.MonkeyPatch) -> None:
        path = root / link
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)

    return setup


def _mutual_loop(root: Path, mp: pytest.MonkeyPatch) -> None:
    (root / "la").mkdir()
    (root / "lb").mkdir()
    os.symlink("../lb", root / "la" / "to-b")
    os.symlink("../la", root / "lb" / "to-a")


def _outside_file(root: Path, mp: pytest.MonkeyPatch) -> None:
    outside = root.parent / "outside.md"
    outside.write_bytes(fm("id: policies.smuggled\nauthority: canonical\ntitle: SMUGGLED\n"))
    os.symlink(outside, root / "policies" / "smuggled.md")


def _outside_dir(root: Path, mp: pytest.MonkeyPatch) -> None:
    outside = root.parent / "elsewhere"
    outside.mkdir()
    (outside / "x.md").write_bytes(fm("id: policies.smuggled\nauthority: canonical\n"))
    os.symlink(outside, root / "policies" / "elsewhere")


def _fifo(root: Path, mp: pytest.MonkeyPatch) -> None:
    os.mkfifo(root / "policies" / "pipe.md")


def _undecodable_name(name: bytes, folder: bool = False) -> Setup:
    def setup(root: Path, mp: pytest.MonkeyPatch) -> None:
        path = os.fsencode(root / "policies") + b"/" + name
        if folder:
            os.mkdir(path)
            path += b"/inside.md"
        with open(path, "wb") as handle:
            handle.write(fm("id: policies.undecodable\nauthority: canonical\n"))

    return setup


def _raise_on_read(rel: str, exc: OSError) -> Setup:
    def setup(root: Path, mp: pytest.MonkeyPatch) -> None:
        original = FsTree.read

        def read(self: FsTree, r: str) -> bytes:
            if r == rel:
                raise exc
            return original(self, r)

        mp.setattr(FsTree, "read", read)

    return setup


def _raise_on_scandir(rel: str) -> Setup:
    def setup(root: Path, mp: pytest.MonkeyPatch) -> None:
        (root / rel).mkdir(parents=True, exist_ok=True)
        (root / rel / "inside.md").write_bytes(fm("id: policies.locked\n"))
        original = FsTree.scandir

        def scandir(self: FsTree, r: str) -> list:  # type: ignore[type-arg]
            if r == rel:
                raise PermissionError(13, "Permission denied")
            return original(self, r)

        mp.setattr(FsTree, "scandir", scandir)

    return setup


def _vanish(rel: str) -> Setup:
    """The file is listed by the scan, then deleted just before it is read."""

    def setup(root: Path, mp: pytest.MonkeyPatch) -> None:
        original = FsTree.read

        def read(self: FsTree, r: str) -> bytes:
            if r != rel:
                return original(self, r)
            saved = (root / r).read_bytes()
            (root / r).unlink()
            try:
                return original(self, r)
            finally:  # back for the next run, to vanish again
                (root / r).write_bytes(saved)

        mp.setattr(FsTree, "read", read)

    return setup


def _change(rel: str, data: bytes) -> Setup:
    """The file is rewritten between the scan and the read."""

    def setup(root: Path, mp: pytest.MonkeyPatch) -> None:
        original = FsTree.read

        def read(self: FsTree, r: str) -> bytes:
            if r != rel:
                return original(self, r)
            saved = (root / r).read_bytes()
            (root / r).write_bytes(data)
            try:
                return original(self, r)
            finally:  # back for the next run, to change again
                (root / r).write_bytes(saved)

        mp.setattr(FsTree, "read", read)

    return setup


OK_X = fm("id: policies.x\nauthority: canonical\n")

CASES: list[Case] = [
    # -- YAML and front-matter shape
    bad("malformed-yaml", "policies/m.md", fm('id: p.m\ntitle: "open\ntags: [a\n'), "invalid YAML"),
    bad("malformed-yaml-file", "notes/m.yaml", b"id: [x\n", "invalid YAML", "line 2"),
    bad("front-matter-list", "policies/l.md", fm("- a\n- b\n"), "not a mapping (found a list)"),
    bad(
        "front-matter-scalar", "policies/s.md", fm("just words\n"), "not a mapping (found a string)"
    ),
    bad(
        "front-matter-empty", "policies/e.md", b"---\n---\nbody\n", "not a mapping (found nothing)"
    ),
    bad("yaml-document-list", "notes/l.yaml", b"- a\n- b\n", "document is not a mapping"),
    bad("unclosed-front-matter", "policies/u.md", b"---\nid: p.u\nbody\n", "never closed"),
    bad(
        "duplicate-keys",
        "policies/d.md",
        fm("id: p.d\nauthority: a\nauthority: b\n"),
        "duplicate key 'authority'",
        "line 4",
    ),
    bad("duplicate-keys-yaml", "notes/d.yaml", b"id: a\nid: b\n", "duplicate key 'id'", "line 2"),
    bad("multi-document-yaml", "notes/two.yaml", b"id: a\n---\nid: b\n", "single document"),
    bad(
        "python-tag",
        "policies/py.md",
        fm("id: p.py\nx: !!python/object:os.system ls\n"),
        "could not determine a constructor",
    ),
    bad(
        "bad-timestamp-tag",
        "policies/ts.md",
        fm("id: p.ts\nx: !!timestamp nope\n"),
        "invalid timestamp 'nope'",
        "line 3",
    ),
    bad("bad-int-tag", "policies/it.md", fm("id: p.it\nx: !!int nope\n"), "invalid int 'nope'"),
    bad("non-string-key", "policies/k.md", fm("id: p.k\n1: x\n"), "key 1 is not a string"),
    bad("null-key", "policies/nk.md", fm("id: p.nk\n~: x\n"), "key None is not a string"),
    bad("unhashable-key", "policies/uk.md", fm("id: p.uk\n? [a]\n: x\n"), "unhashable mapping key"),
    # -- encodings and bytes
    bad(
        "invalid-utf8",
        "policies/u8.md",
        b"---\nid: p.u8\ntitle: \xff\xfe\n---\n",
        "not valid UTF-8",
    ),
    bad("latin-1", "policies/l1.md", b"---\nid: p.l1\ntitle: caf\xe9\n---\n", "not valid UTF-8"),
    bad("utf-16", "policies/u16.md", "---\nid: p.u16\n---\n".encode("utf-16"), "not valid UTF-8"),
    bad("nul-bytes", "policies/nul.md", b"---\nid: p.nul\n---\nbo\x00dy\n", "NUL bytes"),
    bad("nul-in-yaml", "notes/nul.yaml", b"id: a\x00\n", "NUL bytes"),
    bad(
        "over-size-limit",
        "policies/big.md",
        fm("id: p.big\n") + b"x" * MAX_FILE_BYTES,
        f"larger than {MAX_FILE_BYTES} bytes",
    ),
    bad("alias-bomb", "policies/bomb.md", fm("id: p.bomb\n" + BOMB), "too many values"),
    bad("alias-bomb-yaml", "notes/bomb.yaml", ("id: n.bomb\n" + BOMB).encode(), "too many values"),
    bad("alias-cycle", "policies/cyc.md", fm("id: p.cyc\nx: &x [*x]\n"), "refers to itself"),
    bad(
        "deep-nesting",
        "policies/deep.md",
        fm("id: p.deep\nx: " + "[" * 100 + "]" * 100 + "\n"),
        "nested too deeply",
    ),
    bad(
        "very-deep-nesting",
        "policies/vdeep.md",
        fm("id: p.vdeep\nx: " + "[" * 5000 + "]" * 5000 + "\n"),
        "nesting depth",
    ),
    # -- wrong types
    bad("version-two", "policies/v2.md", fm("id: p.v2\nversion: two\n"), "version:", "'two'"),
    bad(
        "version-zero",
        "policies/v0.md",
        fm("id: p.v0\nversion: 0\n"),
        "version:",
        "greater than or equal to 1",
    ),
    bad("version-bool", "policies/vb.md", fm("id: p.vb\nversion: true\n"), "version:", "True"),
    bad("version-float", "policies/vf.md", fm("id: p.vf\nversion: 1.5\n"), "version:", "1.5"),
    bad(
        "valid-from-yesterday",
        "policies/y.md",
        fm("id: p.y\nvalid_from: yesterday\n"),
        "valid_from: expected a date",
        "'yesterday'",
    ),
    bad(
        "impossible-date",
        "policies/feb.md",
        fm("id: p.feb\nvalid_until: 2026-02-30\n"),
        "invalid timestamp '2026-02-30'",
        "day is out of range",
    ),
    bad(
        "offset-overflow",
        "policies/of.md",
        fm("id: p.of\nvalid_until: 9999-12-31T23:59:59-05:00\n"),
        "valid_until:",
        "out of range",
    ),
    bad("date-as-number", "policies/dn.md", fm("id: p.dn\ncreated: 20260101\n"), "created:"),
    bad(
        "boolean-id",
        "policies/bid.md",
        fm("id: true\n"),
        "id: Input should be a valid string",
        "True",
    ),
    bad("numeric-id", "policies/nid.md", fm("id: 42\n"), "id: Input should be a valid string"),
    bad("float-id", "policies/fid.md", fm("id: 1.5\n"), "id: Input should be a valid string"),
    bad("missing-id", "policies/noid.md", fm("title: Nameless\n"), "id: required key is missing"),
    bad(
        "upper-case-id",
        "policies/up.md",
        fm("id: Policies.Up\n"),
        "id: expected lower-case",
        "U+0050 LATIN CAPITAL LETTER P",
    ),
    bad(
        "id-with-space",
        "policies/sp.md",
        fm("id: policies.with space\n"),
        "id: expected",
        "U+0020 SPACE",
    ),
    bad(
        "look-alike-cyrillic",
        "policies/la.md",
        fm("id: p\u043elicies.refunds\n"),
        "id: expected",
        "U+043E CYRILLIC SMALL LETTER O",
    ),
    bad(
        "look-alike-greek",
        "policies/lg.md",
        fm("id: p\u03bflicies.refunds\n"),
        "id: expected",
        "U+03BF GREEK SMALL LETTER OMICRON",
    ),
    bad(
        "zero-width-in-id",
        "policies/zw.md",
        fm("id: policies.re\u200bfunds\n"),
        "id: expected",
        "U+200B ZERO WIDTH SPACE",
    ),
    bad(
        "fullwidth-id",
        "policies/fw.md",
        fm("id: \uff50olicies\n"),
        "id: expected",
        "U+FF50 FULLWIDTH LATIN SMALL LETTER P",
    ),
    bad("escape-in-id", "policies/esc.md", fm('id: "p\\e[31m"\n'), "id: expected", "U+001B"),
    bad(
        "unknown-classification",
        "policies/uc.md",
        fm("id: p.uc\nclassification: top-secret\n"),
        "classification: unknown level 'top-secret'",
        "failing closed",
    ),
    bad(
        "numeric-classification",
        "policies/nc.md",
        fm("id: p.nc\nclassification: 3\n"),
        "classification:",
    ),
    bad(
        "status-capitalised",
        "policies/st.md",
        fm("id: p.st\nstatus: Active\n"),
        "status: expected active or draft",
    ),
    bad(
        "layer-unknown", "policies/ly.md", fm("id: p.ly\nlayer: L9\n"), "layer: expected one of L0"
    ),
    bad("tags-not-a-list", "policies/tg.md", fm("id: p.tg\ntags: refund\n"), "tags:", "valid list"),
    bad("confidence-above-one", "policies/cf.md", fm("id: p.cf\nconfidence: 1.5\n"), "confidence:"),
    bad("confidence-nan", "policies/cn.md", fm("id: p.cn\nconfidence: .nan\n"), "confidence:"),
    bad(
        "review-every-soon",
        "policies/re.md",
        fm("id: p.re\nreview_every: soon\n"),
        "review_every: expected a duration",
    ),
    bad(
        "supersedes-bad-ref",
        "policies/sb.md",
        fm('id: p.sb\nsupersedes: ["Bad Ref"]\n'),
        "supersedes[0]:",
        "'Bad Ref'",
    ),
    bad(
        "superseded-by-number",
        "policies/sn.md",
        fm("id: p.sn\nsuperseded_by: 5\n"),
        "superseded_by",
    ),
    bad(
        "conflicts-with-mapping",
        "policies/cm.md",
        fm("id: p.cm\nconflicts_with: {a: 1}\n"),
        "conflicts_with",
    ),
    bad(
        "access-not-mapping",
        "policies/ac.md",
        fm("id: p.ac\naccess: support\n"),
        "access: Input should be a valid dictionary",
    ),
    bad(
        "access-roles-string",
        "policies/ar.md",
        fm("id: p.ar\naccess: {roles: support}\n"),
        "access.roles:",
    ),
    bad(
        "access-unknown-key",
        "policies/ak.md",
        fm("id: p.ak\naccess: {role: [support]}\n"),
        "access.role:",
        "unknown key",
    ),
    # -- findings about valid objects
    Case(
        "unknown-field-typo",
        {"policies/t.md": fm("id: p.t\nsuperseeded_by: p.x\n")},
        "unknown-field",
        "policies/t.md",
        "unknown front-matter key 'superseeded_by'",
    ),
    Case(
        "content-key-in-markdown",
        {"policies/c.md": fm("id: p.c\ncontent: hidden\n")},
        "unknown-field",
        "policies/c.md",
        "unknown front-matter key 'content'",
    ),
    Case(
        "unknown-authority",
        {"policies/a.md": fm("id: p.a\nauthority: god\n")},
        "unknown-authority",
        "policies/a.md",
        "unknown authority 'god'",
    ),
    Case(
        "duplicate-version",
        {
            "policies/d1.md": fm("id: p.dup\nauthority: approved\n"),
            "policies/d2.md": fm("id: p.dup\nauthority: approved\n"),
        },
        "duplicate-version",
        "policies/d1.md",
        "2 files hold p.dup@1",
    ),
    Case(
        "broken-reference",
        {"policies/br.md": fm("id: p.br\nsupersedes: [nowhere]\n")},
        "broken-reference",
        "policies/br.md",
        '"nowhere"',
        extra=("names nothing",),
    ),
    Case(
        "supersession-cycle",
        {
            "policies/c1.md": fm("id: p.c1\nauthority: approved\nsupersedes: [p.c2]\n"),
            "policies/c2.md": fm("id: p.c2\nauthority: approved\nsupersedes: [p.c1]\n"),
        },
        "supersession-cycle",
        "policies/c1.md",
        "p.c1",
    ),
    # -- the filesystem
    Case(
        "symlink-to-parent",
        {},
        INV,
        "policies/loop",
        "symbolic link loop",
        setup=_symlink("policies/loop", ".."),
    ),
    Case(
        "symlink-to-itself",
        {},
        INV,
        "policies/self",
        "symbolic link loop",
        setup=_symlink("policies/self", "."),
    ),
    Case(
        "symlink-mutual-loop",
        {},
        INV,
        "la/to-b",
        "a second path to the same folder as lb",
        setup=_mutual_loop,
    ),
    Case(
        "symlink-to-etc-hostname",
        {},
        INV,
        "policies/host.md",
        "leads outside the repository",
        setup=_symlink("policies/host.md", "/etc/hostname"),
    ),
    Case(
        "symlink-to-outside-file",
        {},
        INV,
        "policies/smuggled.md",
        "leads outside the repository",
        setup=_outside_file,
    ),
    Case(
        "symlink-to-outside-folder",
        {},
        INV,
        "policies/elsewhere",
        "leads outside the repository",
        setup=_outside_dir,
    ),
    Case(
        "dangling-symlink",
        {},
        INV,
        "policies/gone.md",
        "broken symbolic link",
        setup=_symlink("policies/gone.md", "nowhere.md"),
    ),
    Case("fifo", {}, INV, "policies/pipe.md", "not a regular file", setup=_fifo),
    Case(
        "file-name-not-utf8",
        {},
        INV,
        "policies/bad\\xff.md",
        "file name is not valid UTF-8",
        setup=_undecodable_name(b"bad\xff.md"),
    ),
    Case(
        "file-name-8bit-csi",
        {},
        INV,
        "policies/\\x9b2J.md",
        "file name is not valid UTF-8",
        setup=_undecodable_name(b"\x9b2J.md"),
    ),
    Case(
        "folder-name-not-utf8",
        {},
        INV,
        "policies/dir\\xfe",
        "file name is not valid UTF-8",
        setup=_undecodable_name(b"dir\xfe", folder=True),
    ),
    Case(
        "unreadable-file",
        {"policies/x.md": OK_X},
        INV,
        "policies/x.md",
        "cannot be read (Permission denied)",
        setup=_raise_on_read("policies/x.md", PermissionError(13, "Permission denied")),
    ),
    Case(
        "io-error-file",
        {"policies/x.md": OK_X},
        INV,
        "policies/x.md",
        "cannot be read (Input/output error)",
        setup=_raise_on_read("policies/x.md", OSError(5, "Input/output error")),
    ),
    Case(
        "unreadable-folder",
        {},
        INV,
        "policies/locked",
        "folder cannot be read (Permission denied)",
        setup=_raise_on_scandir("policies/locked"),
    ),
    Case(
        "vanishes-during-load",
        {"policies/x.md": OK_X},
        INV,
        "policies/x.md",
        "file vanished while loading",
        setup=_vanish("policies/x.md"),
    ),
    Case(
        "breaks-during-load",
        {"policies/x.md": OK_X},
        INV,
        "policies/x.md",
        "duplicate key",
        setup=_change("policies/x.md", fm("id: p.x\nid: p.x\n")),
    ),
    Case(
        "grows-during-load",
        {"policies/x.md": OK_X},
        INV,
        "policies/x.md",
        "larger than",
        setup=_change("policies/x.md", OK_X + b"y" * MAX_FILE_BYTES),
    ),
]


def _source_case(name: str, config_extra: bytes, problem: str, setup: Setup | None = None) -> Case:
    files = {"opencontext.yaml": CONFIG + config_extra}
    return Case(name, files, "source-unavailable", "'archive'", problem, setup=setup)


def _source_is_file(root: Path, mp: pytest.MonkeyPatch) -> None:
    (root / "archive").write_bytes(b"not a folder")


def _source_unreadable(root: Path, mp: pytest.MonkeyPatch) -> None:
    (root / "archive").mkdir()
    original = FsTree.scandir

    def scandir(self: FsTree, r: str) -> list:  # type: ignore[type-arg]
        if r == "archive":
            raise PermissionError(13, "Permission denied")
        return original(self, r)

    mp.setattr(FsTree, "scandir", scandir)


SOURCES = b"sources:\n  - {name: main, path: .}\n  - {name: archive, path: archive}\n"
CASES += [
    _source_case("source-missing", SOURCES, "source path 'archive' does not exist"),
    _source_case("source-links-outside", SOURCES, "symbolic link", _symlink("archive", "/etc")),
    _source_case("source-link-loop", SOURCES, "symbolic link", _symlink("archive", "archive")),
    _source_case("source-is-a-file", SOURCES, "is not a folder", _source_is_file),
    _source_case(
        "source-unreadable", SOURCES, "cannot be read (Permission denied)", _source_unreadable
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_broken_input_is_one_clear_finding(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_repo(tmp_path / "repo", GOOD | case.files)
    if case.setup is not None:
        case.setup(root, monkeypatch)

    run = cli(["validate", str(root), "--as-of", AS_OF, "--format", "json"])
    assert run.err == ""
    doc = json.loads(run.out)
    findings = doc["findings"]
    mine = [
        f
        for f in findings
        if f["code"] == case.code and (case.where in f["paths"] or case.where in f["message"])
    ]
    assert len(mine) == 1, findings
    finding = mine[0]
    message = finding["message"]
    assert "\n" not in message and "\r" not in message
    if case.code == INV:
        assert message.startswith(f"{case.where}: "), message
    assert case.problem in message
    for fragment in case.extra:
        assert fragment in message
    assert finding["severity"] == WarningCode(case.code).severity.value
    assert run.code == (1 if any(f["severity"] == "error" for f in findings) else 0)

    # The audit lists it too, with the same line; a line is always inside the file.
    aud = cli(["audit", str(root), "--as-of", AS_OF, "--format", "json"])
    assert aud.err == "" and aud.code == run.code
    listed = [
        f
        for f in json.loads(aud.out)["findings"]
        if f["code"] == case.code and f["message"] == message
    ]
    assert len(listed) == 1 and listed[0]["line"] == finding["line"]
    if finding["line"] is not None:
        raw = (root / finding["paths"][0]).read_bytes()
        assert 1 <= finding["line"] <= raw.count(b"\n") + 1

    # The same finding in the text layout: one line with the file and the problem.
    text = cli(["validate", str(root), "--as-of", AS_OF])
    assert text.err == ""
    assert text.code == run.code
    head = f"{'✗' if finding['severity'] == 'error' else '⚠'} {case.code}: "
    lines = [ln for ln in text.out.splitlines() if ln == head + inert(message)]
    assert len(lines) == 1, text.out
    assert "Traceback" not in text.out

    # The valid objects beside it still resolve; a role never sees the broken file's path.
    res = cli(["resolve", str(root), "--role", "reader", "--as-of", AS_OF, "--format", "json"])
    assert res.err == "" and res.code == 0
    bundle = json.loads(res.out)
    ids = {o["id"] for o in bundle["objects"]}
    assert set(GOOD_IDS) <= ids
    if case.code == INV:
        assert case.where not in json.dumps(bundle["warnings"])
        counted = [w for w in bundle["warnings"] if w["code"] == INV]
        assert len(counted) == 1 and "failed to load" in counted[0]["message"]
    # Nothing smuggled in through a link out of the repository.
    assert "policies.smuggled" not in res.out and "SMUGGLED" not in res.out


# -- inputs that must load cleanly ---------------------------------------------------------------

CLEAN = [
    ("bom", b"\xef\xbb\xbf---\nid: p.bom\nauthority: canonical\ntitle: T\n---\nBody\n"),
    ("crlf", b"---\r\nid: p.crlf\r\nauthority: canonical\r\ntitle: T\r\n---\r\nBody\r\n"),
    ("bom-and-crlf", b"\xef\xbb\xbf---\r\nid: p.bc\r\nauthority: canonical\r\n---\r\nBody\r\n"),
    ("old-mac-cr", b"---\rid: p.cr\rauthority: canonical\r---\rBody\r"),
]


@pytest.mark.parametrize(("name", "data"), CLEAN, ids=[c[0] for c in CLEAN])
def test_bom_and_line_endings_load_like_plain_text(name: str, data: bytes, tmp_path: Path) -> None:
    plain = data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    digests = []
    for variant, raw in (("odd", data), ("plain", plain)):
        root = write_repo(tmp_path / variant, GOOD | {"policies/x.md": raw})
        val = cli(["validate", str(root), "--as-of", AS_OF, "--format", "json"])
        assert val.code == 0 and json.loads(val.out)["findings"] == []
        res = cli(["resolve", str(root), "--role", "reader", "--as-of", AS_OF, "--format", "json"])
        bundle = json.loads(res.out)
        obj = next(o for o in bundle["objects"] if o["path"] == "policies/x.md")
        assert obj["content"] == "Body\n" and "\r" not in res.out
        digests.append(bundle["digest"])
    assert digests[0] == digests[1]


def test_readme_without_front_matter_is_not_an_object(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo", GOOD | {"README.md": b"# Hello\n\nid: nope\n"})
    val = cli(["validate", str(root), "--as-of", AS_OF, "--format", "json"])
    doc = json.loads(val.out)
    assert val.code == 0 and doc["findings"] == [] and doc["objects"] == 2


# -- configuration errors: exit 2 and one line naming the file, the key and the problem --------


@dataclass(frozen=True)
class ConfigCase:
    name: str
    config: bytes | None
    key: str
    problem: str
    setup: Setup | None = None


def _config_dir(root: Path, mp: pytest.MonkeyPatch) -> None:
    (root / "opencontext.yaml").mkdir()


def _config_unreadable(root: Path, mp: pytest.MonkeyPatch) -> None:
    _raise_on_read("opencontext.yaml", PermissionError(13, "Permission denied"))(root, mp)


PREC = "[canonical, approved, reference, observed, inferred, historical]"
CONFIG_CASES = [
    ConfigCase("top-level-list", b"- spec\n", "", "expected a mapping at the top level"),
    ConfigCase("top-level-scalar", b"hello\n", "", "expected a mapping at the top level"),
    ConfigCase("malformed-yaml", b"spec: [1\n", "", "invalid YAML"),
    ConfigCase("duplicate-key", b"spec: 1\nspec: 1\n", "", "duplicate key 'spec'"),
    ConfigCase("invalid-utf8", b"spec: 1\nroles: {\xff: {}}\n", "", "not valid UTF-8"),
    ConfigCase("nul-byte", b"spec: 1\x00\n", "", "invalid YAML"),
    ConfigCase("alias-bomb", BOMB.encode(), "", "too many values"),
    ConfigCase("bad-timestamp-tag", b"spec: !!timestamp x\n", "", "invalid timestamp 'x'"),
    ConfigCase("spec-2", b"spec: 2\n", "spec", "expected 1"),
    ConfigCase("spec-word", b"spec: one\n", "spec", "valid integer"),
    ConfigCase("unknown-key", b"spec: 1\nrolez: {}\n", "rolez", "unknown key"),
    ConfigCase(
        "precedence-missing",
        b"authority: {precedence: [canonical]}\n",
        "authority.precedence",
        "missing approved",
    ),
    ConfigCase(
        "precedence-unknown",
        b"authority: {precedence: [canonical, approved, reference, observed, inferred, "
        b"historical, gossip]}\n",
        "authority.precedence",
        "unknown gossip",
    ),
    ConfigCase(
        "precedence-repeated",
        b"authority: {precedence: [canonical, canonical, approved, reference, observed, "
        b"inferred, historical]}\n",
        "authority.precedence",
        "repeated canonical",
    ),
    ConfigCase(
        "precedence-not-list",
        b"authority: {precedence: canonical}\n",
        "authority.precedence",
        "expected a list",
    ),
    ConfigCase(
        "tie-breaker-unknown",
        b"authority: {tie_breakers: [age]}\n",
        "authority.tie_breakers",
        "unknown tie breaker 'age'",
    ),
    ConfigCase(
        "tie-breaker-unhashable",
        b"authority: {tie_breakers: [[a]]}\n",
        "authority.tie_breakers",
        "unknown tie breaker",
    ),
    ConfigCase(
        "levels-empty", b"classification: {levels: []}\n", "classification.levels", "non-empty list"
    ),
    ConfigCase(
        "levels-upper",
        b"classification: {levels: [Public]}\n",
        "classification.levels",
        "lower-case",
    ),
    ConfigCase(
        "levels-repeated",
        b"classification: {levels: [a, a]}\n",
        "classification.levels",
        "distinct",
    ),
    ConfigCase(
        "freshness-default",
        b"freshness: {default: soon}\n",
        "freshness.default",
        "expected a duration",
    ),
    ConfigCase(
        "freshness-by-type",
        b"freshness: {by_type: {pricing: 5}}\n",
        "freshness.by_type.pricing",
        "expected a duration",
    ),
    ConfigCase(
        "floor-negative", b"ranking: {floor: -1}\n", "ranking.floor", "greater than or equal to 0"
    ),
    ConfigCase("floor-word", b"ranking: {floor: high}\n", "ranking.floor", "valid integer"),
    ConfigCase("sources-empty", b"sources: []\n", "sources", "non-empty list"),
    ConfigCase(
        "source-absolute",
        b"sources: [{name: a, path: /etc}]\n",
        "sources[0].path",
        "inside the repository",
    ),
    ConfigCase(
        "source-dotdot",
        b"sources: [{name: a, path: ../x}]\n",
        "sources[0].path",
        "inside the repository",
    ),
    ConfigCase(
        "source-name-twice",
        b"sources: [{name: a, path: .}, {name: a, path: x}]\n",
        "sources[1].name",
        "used twice",
    ),
    ConfigCase(
        "source-path-twice",
        b"sources: [{name: a, path: .}, {name: b, path: ./}]\n",
        "sources[1].path",
        "configured twice",
    ),
    ConfigCase(
        "source-authority",
        b"sources: [{name: a, path: ., authority: god}]\n",
        "sources[0].authority",
        "expected one of canonical",
    ),
    ConfigCase(
        "source-no-name", b"sources: [{path: .}]\n", "sources[0].name", "required key is missing"
    ),
    ConfigCase("source-a-string", b"sources: [main]\n", "sources[0]", "valid dictionary"),
    ConfigCase(
        "source-name-escape",
        b'sources: [{name: "a\\e]52;c;aGk=\\a", path: .}]\n',
        "sources[0].name",
        "\\x1b]52",
    ),
    ConfigCase("roles-list", b"roles: [a]\n", "roles", "valid dictionary"),
    ConfigCase("role-null", b"roles: {a: null}\n", "roles.a", "valid dictionary"),
    ConfigCase("role-name-number", b"roles: {1: {}}\n", "roles", "the name 1 must be a string"),
    ConfigCase(
        "role-clearance-unknown",
        b"roles: {a: {clearance: secret}}\n",
        "roles.a.clearance",
        "unknown level 'secret'",
    ),
    ConfigCase(
        "role-key-typo", b"roles: {a: {clearence: public}}\n", "roles.a.clearence", "unknown key"
    ),
    ConfigCase(
        "role-scope-string",
        b"roles: {a: {scope: {include: 'x'}}}\n",
        "roles.a.scope.include",
        "list of id patterns",
    ),
    ConfigCase(
        "role-exclude-null",
        b"roles: {a: {scope: {exclude: null}}}\n",
        "roles.a.scope.exclude",
        "valid list",
    ),
    ConfigCase("config-is-a-folder", None, "", "cannot be read (Is a directory)", _config_dir),
    ConfigCase(
        "config-unreadable",
        b"spec: 1\n",
        "",
        "cannot be read (Permission denied)",
        _config_unreadable,
    ),
]


COMMANDS = [
    ["validate"],
    ["resolve", "--role", "reader"],
    ["resolve", "--role", "reader", "--format", "json"],
    ["history", "policies.good"],
    ["audit"],
    ["audit", "--format", "json"],
]


@pytest.mark.parametrize("case", CONFIG_CASES, ids=[c.name for c in CONFIG_CASES])
def test_config_error_is_one_line_exit_2(
    case: ConfigCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_repo(tmp_path / "repo", GOOD, case.config)
    if case.setup is not None:
        case.setup(root, monkeypatch)
    for command in COMMANDS:
        argv = [command[0], *(["policies.good"] if command[0] == "history" else [])]
        argv += [str(root), *[a for a in command[1:] if a != "policies.good"]]
        run = cli(argv)
        assert run.code == 2, (argv, run)
        assert run.out == ""
        assert run.err.count("\n") == 1 and run.err.endswith("\n"), run.err
        line = run.err.rstrip("\n")
        assert line.startswith("opencontext: error: ")
        assert f"{root / 'opencontext.yaml'}: " in line
        if case.key:
            assert f"opencontext.yaml: {case.key}: " in line, line
        assert case.problem in line, line
        assert "\x1b" not in line and "\x07" not in line


def test_bom_config_is_fine(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo", GOOD, b"\xef\xbb\xbf" + CONFIG.replace(b"\n", b"\r\n"))
    run = cli(["resolve", str(root), "--role", "support", "--as-of", AS_OF, "--format", "json"])
    assert run.code == 0 and {o["id"] for o in json.loads(run.out)["objects"]} == set(GOOD_IDS)


USAGE = [
    ("not-a-repository", ["validate", "{empty}"], "not an OpenContext repository"),
    ("unknown-role", ["resolve", "{root}", "--role", "ghost"], "unknown role 'ghost'"),
    ("unknown-role-escape", ["resolve", "{root}", "--role", "\x1b]52;c;aGk=\x07"], "\\x1b]52"),
    ("bad-as-of", ["resolve", "{root}", "--role", "reader", "--as-of", "yesterday"], "--as-of"),
    ("negative-limit", ["resolve", "{root}", "--role", "reader", "--limit", "-1"], "--limit"),
    (
        "nan-relevance",
        ["resolve", "{root}", "--role", "reader", "--min-relevance", "nan"],
        "finite number",
    ),
    ("unknown-id", ["history", "nothing.here", "{root}"], "no object with id 'nothing.here'"),
    ("history-unknown-role", ["history", "policies.good", "{root}", "--role", "x"], "unknown role"),
]


@pytest.mark.parametrize(("name", "argv", "problem"), USAGE, ids=[u[0] for u in USAGE])
def test_usage_error_is_one_line_exit_2(
    name: str, argv: list[str], problem: str, tmp_path: Path
) -> None:
    root = write_repo(tmp_path / "repo", GOOD)
    (tmp_path / "empty").mkdir()
    args = [a.format(root=root, empty=tmp_path / "empty") for a in argv]
    run = cli(args)
    assert run.code == 2 and run.out == ""
    assert run.err.count("\n") == 1 and problem in run.err
    assert "\x1b" not in run.err and "\x07" not in run.err


def test_corpus_covers_every_load_problem_kind() -> None:
    """The corpus is a table, not a sample: keep its size visible (README 'Trust' counts)."""
    for names in ([c.name for c in CASES], [c.name for c in CONFIG_CASES]):
        assert len(names) == len(set(names))
    assert {c.code for c in CASES} >= {
        INV,
        "unknown-field",
        "unknown-authority",
        "duplicate-version",
        "broken-reference",
        "supersession-cycle",
        "source-unavailable",
    }
