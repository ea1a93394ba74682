"""Dates at the ends of representable time (0001-01-01 and 9999-12-31): every computation
is total there, and every year is written with four digits (RFC 3339, and the digest)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from repo_builder import make_repo, obj, resolve_at

from octui.bundle.bundle import digest, digest_from_bundle
from octui.core.timeutil import (
    BEGINNING_OF_TIME,
    END_OF_TIME,
    add_days,
    format_day,
    format_instant,
    parse_instant,
    shift,
)
from octui.render.timeline import layout

_SCRIPT = Path(sys.executable).parent / "opencontext"
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "octui.cli.main"]
JSON = ("--format", "json", "--include-historical")


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    """``fn()``, failing (instead of hanging the suite) when it takes longer than ``seconds``."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised below, in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def at(text: str) -> datetime:
    return parse_instant(text)


# -- month and day arithmetic ----------------------------------------------------------------


def test_shift_steps_by_calendar_months_and_days() -> None:
    assert shift(at("2024-01-31"), months=1) == at("2024-02-29")
    assert shift(at("2026-03-31"), months=-1) == at("2026-02-28")
    assert shift(at("2026-03-31"), days=1) == at("2026-04-01")
    assert shift(at("9999-11-30"), months=1) == at("9999-12-30")
    assert shift(at("0001-02-01"), months=-1) == at("0001-01-01")
    assert shift(at("2026-03-31T12:30:00Z"), months=0) == at("2026-03-31T12:30:00Z")


@pytest.mark.parametrize(
    ("start", "months", "days"),
    [
        ("9999-12-31", 1, 0),  # the old arithmetic clamped the year only: 9999-01-31
        ("9999-12-01", 1, 0),
        ("9999-12-31", 0, 1),
        ("9999-06-15", 7, 0),
        ("0001-01-01", 0, -1),
        ("0001-01-31", -1, 0),
        ("0001-06-15", -6, 0),
        ("2026-01-01", 0, 10**12),  # more days than a timedelta holds
        ("2026-01-01", -(10**9), 0),
    ],
)
def test_shift_past_either_end_of_time_is_none(start: str, months: int, days: int) -> None:
    assert shift(at(start), months=months, days=days) is None


def test_monthly_steps_never_go_backwards_at_the_end_of_time() -> None:
    """The timeline's tick loop steps a month at a time until it passes the axis end."""
    tick: datetime | None = at("9998-01-01")
    seen = []
    while tick is not None:
        seen.append(tick)
        assert len(seen) < 100, "the month steps never ended"
        tick = shift(tick, months=1)
    assert seen == sorted(seen)
    assert seen[-1] == at("9999-12-01")


def test_add_days_saturates_at_its_own_end() -> None:
    assert add_days(END_OF_TIME, 1) == END_OF_TIME
    assert add_days(BEGINNING_OF_TIME, -1) == BEGINNING_OF_TIME  # was the END of time
    assert add_days(at("2026-01-01"), -(10**9)) == BEGINNING_OF_TIME


# -- the timeline at the ends of time -----------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "as_of"),
    [
        ({"valid_until": "9999-12-31"}, "2026-06-01"),
        ({"valid_until": "9999-12-31"}, "9999-12-15"),
        ({}, "9999-12-31T23:59:59Z"),
        ({"valid_from": "9999-12-01"}, "9999-12-20"),
        ({"created": "0001-01-01", "valid_until": "0001-02-01"}, "0001-01-01"),
        ({"valid_from": "0001-01-01", "valid_until": "9999-12-31"}, "5000-01-01"),
    ],
)
def test_timeline_is_drawn_at_the_ends_of_time(
    tmp_path: Path, fields: dict[str, str], as_of: str
) -> None:
    root = make_repo(tmp_path / "repo", {"a.md": obj("a", **fields)})
    resolution = resolve_at(root, as_of=as_of, include_historical=True)
    drawn = within(10, lambda: layout(resolution, "a", 100))
    assert BEGINNING_OF_TIME <= drawn.axis_start < drawn.axis_end <= END_OF_TIME
    assert drawn.marker_column is not None
    assert drawn.lines and "a" in drawn.lines[2].text


# -- four-digit years --------------------------------------------------------------------------


def test_years_before_1000_are_written_with_four_digits() -> None:
    assert format_instant(datetime(99, 3, 1, tzinfo=UTC)) == "0099-03-01T00:00:00Z"
    assert format_instant(datetime(1, 1, 1, 0, 0, 0, 5, tzinfo=UTC)) == (
        "0001-01-01T00:00:00.000005Z"
    )
    assert format_instant(END_OF_TIME) == "9999-12-31T23:59:59.999999Z"
    assert format_day(datetime(99, 3, 1, tzinfo=UTC)) == "0099-03-01"
    assert format_day(datetime(5, 7, 8, 9, 10, tzinfo=UTC)) == "0005-07-08 09:10"
    for text in ("0099-03-01T00:00:00Z", "0001-01-01T00:00:00Z", "2026-03-01T12:34:56.5Z"):
        assert format_instant(parse_instant(text)) == text.replace(".5Z", ".500000Z")


def test_early_years_in_resolve_json_and_the_digest(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            "old.md": obj("old", created=date(1, 1, 1), valid_from="0099-03-01"),
            "older.yaml": obj("older", valid_from=date(1, 1, 1), valid_until="0999-12-31"),
        },
    )
    done = subprocess.run(
        [*COMMAND, "resolve", str(root), "--role", "reader", "--as-of", "0500-01-01", *JSON],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    bundle = json.loads(done.stdout)
    text = json.dumps(bundle)
    assert bundle["as_of"] == "0500-01-01T00:00:00Z"
    for expected in ("0099-03-01T00:00:00Z", "0001-01-01T00:00:00Z", "0999-12-31T00:00:00Z"):
        assert expected in text
    # Every instant in the output is RFC 3339 with a four-digit year.
    instants = re.findall(r'"(-?\d+-\d\d-\d\dT[^"]*)"', text)
    assert instants and all(
        re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", i) for i in instants
    )
    # The digest covers those four-digit spellings: it is the one recomputed from the bundle,
    # and the unpadded spelling would give another.
    assert (
        bundle["digest"]
        == digest_from_bundle(bundle)
        == digest(resolve_at(root, as_of="0500-01-01", include_historical=True))
    )
    unpadded = json.loads(text.replace('"0099-03-01T', '"99-03-01T'))
    assert digest_from_bundle(unpadded) != bundle["digest"]
