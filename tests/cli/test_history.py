"""``opencontext history``: versions oldest first, the lineage across ids, the wording of
windows and edges."""

from __future__ import annotations

import json
from pathlib import Path

from repo_builder import make_repo, obj

from cli.helpers import SAMPLE_REPO, one_error_line, run
from octui.load.loader import load_repository


def test_history_oldest_first(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "c.md": obj("p", version=3, valid_from="2026-09-01", supersedes=["p@2"]),
            "a.md": obj("p", version=1, valid_from="2026-01-01"),
            "b.md": obj("p", version=2, valid_from="2026-04-01", supersedes=["p@1"]),
            "s.md": obj("p", version=4, valid_from="2026-10-01", classification="restricted"),
        },
        {"roles": {"bot": {}}},
    )
    proc = run("history", "p", root, "--as-of", "2026-06-01")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("  p@")]
    assert [line.split()[0] for line in lines] == ["p@1", "p@2", "p@3", "p@4"]
    assert "superseded" in lines[0] and "active" in lines[1] and "not-yet-valid" in lines[2]
    js = json.loads(run("history", "p", root, "--as-of", "2026-06-01", "--format", "json").stdout)
    assert [r["version"] for r in js["lineage"]] == [1, 2, 3, 4]
    # a role that may not read version 4 sees only id and state for it
    bot = json.loads(run("history", "p", root, "--role", "bot", "--format", "json").stdout)
    assert bot["lineage"][-1] == {"id": "p", "state": "classification-denied"}
    assert one_error_line(run("history", "nothing", root))


def test_history_follows_lineage_across_ids(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "old.md": obj("decisions.pg", created="2026-02-01", superseded_by="decisions.pg-ha"),
            "new.md": obj("decisions.pg-ha", created="2026-08-01"),
        },
    )
    proc = run("history", "decisions.pg-ha", root, "--as-of", "2026-09-01")
    keys = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("  decisions")]
    assert keys == ["decisions.pg@1", "decisions.pg-ha@1"]


def test_sample_repo_refunds_v3_is_a_draft() -> None:
    """The wording below depends on this fact of the sample repository."""
    v3 = [o for o in load_repository(SAMPLE_REPO).objects if o.key == "policies.refunds@3"]
    assert [str(o.status) for o in v3] == ["draft"]


def test_history_closes_a_superseded_window_and_says_when_edges_take_effect() -> None:
    proc = run("history", "policies.refunds", SAMPLE_REPO, "--as-of", "2026-11-30")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert (
        lines[0] == "History of policies.refunds at 2026-11-30T00:00:00Z (UTC) (whole repository)"
    )
    v1 = next(i for i, line in enumerate(lines) if line.startswith("  policies.refunds@1 "))
    assert lines[v1] == (
        "  policies.refunds@1  canonical  2025-10-01 → 2026-06-01  superseded  "
        "policies/refunds.v1.md"
    )
    assert lines[v1 + 1] == "      declared: 2025-10-01 → open"
    assert "      superseded by policies.refunds@2 — in effect from 2026-06-01" in lines
    assert "      supersedes policies.refunds@1 — in effect from 2026-06-01" in lines
    never = "never in effect (the replacement is a draft)"
    assert f"      superseded by policies.refunds@3 — {never}" in lines
    assert f"      supersedes policies.refunds@2 — {never}" in lines
    # nothing reads as if a superseded version were still in effect
    assert not any("→ open  superseded" in line for line in lines)
    assert not any(line.strip() == "superseded by policies.refunds@3" for line in lines)


def test_history_json_keeps_declared_window_and_adds_edge_instants() -> None:
    proc = run(
        "history", "policies.refunds", SAMPLE_REPO, "--as-of", "2026-11-30", "--format", "json"
    )
    rows = {r["version"]: r for r in json.loads(proc.stdout)["lineage"]}
    assert rows[1]["valid_until"] is None  # the declared window is unchanged
    assert rows[1]["edges"] == ["superseded by policies.refunds@2"]
    assert rows[1]["superseded_from"] == "2026-06-01T00:00:00Z"
    assert rows[1]["edge_effects"] == [
        {
            "edge": "superseded by policies.refunds@2",
            "takes_effect": True,
            "effective_from": "2026-06-01T00:00:00Z",
            "in_cycle": False,
        }
    ]
    assert rows[2]["superseded_from"] is None  # v3 is a draft: it never supersedes v2
    draft_edge = next(e for e in rows[2]["edge_effects"] if "@3" in e["edge"])
    assert draft_edge["takes_effect"] is False and draft_edge["effective_from"] is None


def test_history_window_ends_at_valid_until_when_that_comes_first(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "a.md": obj("p", version=1, valid_from="2026-01-01", valid_until="2026-03-01"),
            "b.md": obj("p", version=2, valid_from="2026-04-01", supersedes=["p@1"]),
            "c.md": obj("q", version=1, valid_from="2026-01-01", valid_until="2026-12-01"),
            "d.md": obj("q", version=2, valid_from="2026-04-01", supersedes=["q@1"]),
        },
        {"roles": {"bot": {}}},
    )
    p = run("history", "p", root, "--as-of", "2026-06-01").stdout.splitlines()
    assert p[1].startswith("  p@1  canonical  2026-01-01 → 2026-03-01  expired")
    assert not p[2].startswith("      declared:")  # the declared window is the one shown
    q = run("history", "q", root, "--as-of", "2026-06-01").stdout.splitlines()
    assert q[1].startswith("  q@1  canonical  2026-01-01 → 2026-04-01  superseded")
    assert q[2] == "      declared: 2026-01-01 → 2026-12-01"


def test_history_cycle_edges_are_marked_ignored(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "a.md": obj("a", created="2026-01-01", supersedes=["b"]),
            "b.md": obj("b", created="2026-02-01", supersedes=["a"]),
        },
        None,
    )
    out = run("history", "a", root, "--as-of", "2026-06-01").stdout
    assert "      supersedes b@1 (in a cycle; ignored)\n" in out
    assert "in effect from" not in out
