"""Calendar arithmetic, written once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from campaign import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from octui.core.timeutil import format_instant, month_index, parse_instant, shift


def test_month_index_numbers_consecutive_months_consecutively() -> None:
    dec, jan = parse_instant("2025-12-31T23:59:59Z"), parse_instant("2026-01-01")
    assert month_index(jan) - month_index(dec) == 1
    assert month_index(parse_instant("0001-01-01")) == 12


def test_shift_by_months_clamps_the_day_and_ends_at_the_end_of_time() -> None:
    assert shift(parse_instant("2026-03-31"), months=-1) == parse_instant("2026-02-28")
    assert shift(parse_instant("2024-03-31"), months=-1) == parse_instant("2024-02-29")
    assert shift(parse_instant("2026-11-30"), months=14) == parse_instant("2028-01-30")
    assert shift(parse_instant("9999-12-01"), months=1) is None


def _written_by_parts(value: datetime) -> str:
    """RFC 3339 UTC written part by part: what ``format_instant`` must equal."""
    utc = value.astimezone(UTC)
    clock = f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
    if utc.microsecond:
        clock += f".{utc.microsecond:06d}"
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{clock}Z"


@settings(max_examples=examples(300), deadline=None)
@given(st.datetimes(timezones=st.timezones()))
def test_format_instant_writes_every_part_in_utc(value: datetime) -> None:
    try:
        want = _written_by_parts(value)
    except OverflowError:  # an instant that has no UTC form (year 1 east of Greenwich…)
        with pytest.raises(OverflowError):
            format_instant(value)
        return
    assert format_instant(value) == want


def test_format_instant_pads_the_year_and_shows_microseconds_only_when_present() -> None:
    assert format_instant(datetime(99, 3, 1, tzinfo=UTC)) == "0099-03-01T00:00:00Z"
    assert format_instant(datetime(2026, 3, 1, 1, 2, 3, 4, tzinfo=UTC)) == (
        "2026-03-01T01:02:03.000004Z"
    )
    plus_two = timezone(timedelta(hours=2))
    assert format_instant(datetime(2026, 1, 1, 1, tzinfo=plus_two)) == "2025-12-31T23:00:00Z"
