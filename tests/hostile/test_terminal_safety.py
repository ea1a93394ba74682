"""Terminal safety: repository text is shown literally, never interpreted by the terminal.

Titles, summaries, owners, tags, content, unknown authorities, unknown keys, file names
and role names carry Rich markup, ANSI CSI sequences, OSC 8 hyperlinks, OSC 52
clipboard writes, 8-bit C1 controls, bidi overrides, carriage returns and backspaces.
Every CLI output (text and JSON, stdout and stderr) must contain none of those control
characters, must show the markup literally, and JSON must still round-trip to the
exact original strings.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hostile_util import cli, write_repo

from octui.core.textsafe import inert

AS_OF = "2026-06-01"
OSC52 = "\x1b]52;c;Y3VybCBldmlsfHNo\x07"
PAYLOADS = [
    "[red]x[/red]",
    "[link=https://evil.example]click[/link]",
    "\x1b[31mRED\x1b[0m",
    OSC52,
    "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
    "\x9b31mC1\x9d0;title\x9c",
    "\u202eevil\u202c \u2066iso\u2069",
    "over\rwrite\x08\x08",
    "line\u2028sep",
]
HOSTILE = "".join(PAYLOADS)
#: Anything that can steer a terminal. Newline and tab are plain layout.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
ROLE = "r\x1b[2J"  # a role name that would clear the screen


def _q(text: str) -> str:
    return json.dumps(text)  # a YAML double-quoted scalar accepts JSON string escapes


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    config = (
        "spec: 1\nfreshness: {default: 30d}\nroles:\n"
        f"  support: {{clearance: restricted}}\n  {_q(ROLE)}: {{clearance: restricted}}\n"
    ).encode()
    front = (
        f"title: {_q(HOSTILE)}\nsummary: {_q(HOSTILE)}\nowner: {_q(HOSTILE)}\n"
        f"type: {_q(HOSTILE)}\ntags: [{_q(HOSTILE)}]\napplies_to: [{_q(HOSTILE)}]\n"
    )
    files = {
        "policies/a.md": (
            f"---\nid: policies.a\nauthority: {_q(HOSTILE)}\n{front}{_q(OSC52)}: 1\n"
            f"updated: 2020-01-01\nsupersedes: [policies.b]\n---\n{HOSTILE}\n"
        ).encode(),
        "policies/b.md": f"---\nid: policies.b\nauthority: canonical\n{front}---\nb\n".encode(),
        f"policies/{OSC52}\x9b2J.md": b"---\nid: policies.c\nauthority: approved\n---\nc\n",
        f"policies/bad{OSC52}.md": f"---\nid: {_q('p' + OSC52)}\n---\n".encode(),
        "policies/badyaml.md": f"---\nid: policies.d\ntitle: {_q(OSC52)}\n  x: [\n---\n".encode(),
    }
    return write_repo(tmp_path / "repo", files, config)


def _commands() -> list[tuple[str, list[str]]]:
    base = ["--as-of", AS_OF]
    out = []
    for role in ("support", ROLE):
        r = "role" if role == "support" else "hostile-role"
        out += [
            (f"resolve-explain-{r}", ["resolve", "{repo}", "--role", role, *base, "--explain"]),
            (f"resolve-json-{r}", ["resolve", "{repo}", "--role", role, *base, "--format", "json"]),
            (f"resolve-strict-{r}", ["resolve", "{repo}", "--role", role, *base, "--strict"]),
            (f"history-{r}", ["history", "policies.a", "{repo}", "--role", role, *base]),
            (
                f"history-json-{r}",
                ["history", "policies.b", "{repo}", "--role", role, *base, "--format", "json"],
            ),
            (
                f"diff-{r}",
                ["diff", "{repo}", "--role", role, *base, "--against-as-of", "2020-01-01"],
            ),
            (
                f"diff-json-{r}",
                [
                    "diff",
                    "{repo}",
                    "--role",
                    role,
                    *base,
                    "--against-as-of",
                    "2020-01-01",
                    "--format",
                    "json",
                ],
            ),
            (f"changes-{r}", ["changes", "{repo}", "--role", role, "--as-of", "2019-01-01"]),
            (
                f"changes-json-{r}",
                ["changes", "{repo}", "--role", role, "--as-of", "2019-01-01", "--format", "json"],
            ),
        ]
    out += [
        ("validate-text", ["validate", "{repo}", *base]),
        ("validate-json", ["validate", "{repo}", *base, "--format", "json"]),
        ("validate-github", ["validate", "{repo}", *base, "--format", "github"]),
        ("validate-sarif", ["validate", "{repo}", *base, "--format", "sarif"]),
        ("validate-junit", ["validate", "{repo}", *base, "--format", "junit"]),
        *(
            (f"audit-{fmt}", ["audit", "{repo}", *base, "--format", fmt])
            for fmt in ("text", "json", "csv", "markdown")
        ),
        ("history-whole-repo", ["history", "policies.a", "{repo}", *base]),
        ("unknown-id-error", ["history", f"x{OSC52}", "{repo}"]),
        ("unknown-role-error", ["resolve", "{repo}", "--role", OSC52]),
        ("bad-as-of-error", ["resolve", "{repo}", "--role", "support", "--as-of", OSC52]),
    ]
    return out


COMMANDS = _commands()


@pytest.mark.parametrize(("name", "argv"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_cli_output_is_inert(name: str, argv: list[str], repo: Path) -> None:
    run = cli([a.format(repo=repo) for a in argv])
    assert run.code in (0, 1, 2)
    for stream in (run.out, run.err):
        found = UNSAFE.findall(stream)
        assert not found, (name, found)
    assert "Traceback" not in run.err
    if name == "validate-github":  # one workflow command per line, none smuggled in
        assert all(line.startswith(("::error ", "::warning ")) for line in run.out.splitlines())
    if name == "validate-sarif":
        assert json.loads(run.out)["runs"][0]["results"]
    if name == "validate-junit":
        assert len(ElementTree.fromstring(run.out).findall(".//testcase")) >= 4
    if name.startswith("resolve-json"):
        bundle = json.loads(run.out)
        a = next(o for o in bundle["objects"] if o["id"] == "policies.a")
        # Escaped for the terminal, yet equal to the original after parsing.
        assert a["title"] == a["summary"] == a["owner"] == a["type"] == HOSTILE
        assert a["tags"] == [HOSTILE]
        assert a["content"] == HOSTILE.replace("\r", "\n") + "\n"  # line endings normalised
        assert a["authority"] == HOSTILE
        assert "[red]x[/red]" in run.out  # markup is plain text, kept literally
    if name.startswith("resolve-explain"):
        assert inert("✓ policies.a " + HOSTILE, keep_newlines=False) in run.out
        assert "[red]x[/red]" in run.out and "\\x1b]52;c;" in run.out


def test_validate_names_hostile_file_names_visibly(repo: Path) -> None:
    hist = cli(["history", "policies.c", str(repo), "--as-of", AS_OF])
    assert "policies/\\x1b]52;c;Y3VybCBldmlsfHNo\\x07\\x9b2J.md" in hist.out
    run = cli(["validate", str(repo), "--as-of", AS_OF])
    assert "policies/bad\\x1b]52;c;Y3VybCBldmlsfHNo\\x07.md:" in run.out
    doc = json.loads(cli(["validate", str(repo), "--as-of", AS_OF, "--format", "json"]).out)
    paths = {p for f in doc["findings"] for p in f["paths"]}
    assert f"policies/bad{OSC52}.md" in paths  # JSON keeps the true name


def test_inert_escapes_every_steering_character() -> None:
    for code in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]:
        assert not UNSAFE.search(inert(chr(code)))
    for ch in "\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert inert(ch) == f"\\u{ord(ch):04x}"
    assert inert("[red]x[/red] ünï 世界") == "[red]x[/red] ünï 世界"
    assert inert("a\nb\tc", keep_newlines=False) == "a\\nb c"


def test_undecodable_file_names_under_a_strict_utf8_terminal(repo: Path) -> None:
    """A real process whose stdout refuses anything but UTF-8 (as on most desktops)."""
    for name in (b"bad\xff.md", b"\x9b2J.md", b"dir\xfe"):
        path = os.fsencode(repo / "policies") + b"/" + name
        if name.startswith(b"dir"):
            os.mkdir(path)
            path += b"/x.md"
        with open(path, "wb") as handle:
            handle.write(b"---\nid: policies.undecodable\n---\n")
    env = dict(os.environ, PYTHONIOENCODING="utf-8", LC_ALL="C.UTF-8")
    for argv in (
        ["validate", str(repo)],
        ["validate", str(repo), "--format", "json"],
        ["resolve", str(repo), "--role", "support", "--format", "json"],
        ["history", "policies.a", str(repo)],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "octui.cli.main", *argv],
            capture_output=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert b"Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode in (0, 1)
        out = proc.stdout.decode("utf-8")  # valid UTF-8, every byte of it
        assert not UNSAFE.findall(out)
        if argv[0] == "validate" and "json" not in argv:
            assert "policies/bad\\xff.md: file name is not valid UTF-8" in out
            assert "policies/\\x9b2J.md" in out


def test_markup_escape_keeps_any_text_literal() -> None:
    from rich.markup import render
    from textual.markup import to_content

    from octui.core.textsafe import markup_escape

    samples = [
        inert(HOSTILE, keep_newlines=False),
        inert(repr(HOSTILE)),
        "\\x1b[31mRED",
        "[[[",
        "]]][/",
        "[@click=app.quit()]x[/]",
    ]
    for text in samples:
        shown = to_content(f"[b]x[/] {markup_escape(text)} [b]y[/]").plain
        assert shown == f"x {text} y"
        assert render(f"[b]x[/] {markup_escape(text)} [b]y[/]").plain == f"x {text} y"


def test_undecodable_names_in_a_git_revision(tmp_path: Path) -> None:
    """``--rev`` reads names from git objects, not the disk: JSON must still be valid UTF-8."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "opencontext.yaml").write_bytes(b"spec: 1\nroles: {r: {}}\n")
    with open(os.fsencode(root) + b"/bad\xff.md", "wb") as handle:
        handle.write(b"---\nid: a\nauthority: canonical\n---\nx\n")
    (root / "ok.md").write_bytes(b"---\nid: ok\nauthority: canonical\n---\nx\n")
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@e",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@e",
    )
    for git in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(["git", *git], cwd=root, env=env, check=True, capture_output=True)
    os.unlink(os.fsencode(root) + b"/bad\xff.md")
    strict = dict(os.environ, PYTHONIOENCODING="utf-8", LC_ALL="C.UTF-8")
    for fmt in ("text", "json"):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "octui.cli.main",
                "diff",
                str(root),
                "--role",
                "r",
                "--against-rev",
                "HEAD",
                "--format",
                fmt,
            ],
            capture_output=True,
            env=strict,
            timeout=120,
            check=False,
        )
        assert b"Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode in (0, 1)
        out = proc.stdout.decode("utf-8")
        assert not UNSAFE.findall(out)
        if fmt == "json":
            assert "bad\udcff.md" in json.dumps(json.loads(out), ensure_ascii=False)
