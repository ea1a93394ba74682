"""Calendar arithmetic, written once."""

from __future__ import annotations

from octui.core.timeutil import month_index, parse_instant, shift


def test_month_index_numbers_consecutive_months_consecutively() -> None:
    dec, jan = parse_instant("2025-12-31T23:59:59Z"), parse_instant("2026-01-01")
    assert month_index(jan) - month_index(dec) == 1
    assert month_index(parse_instant("0001-01-01")) == 12


def test_shift_by_months_clamps_the_day_and_ends_at_the_end_of_time() -> None:
    assert shift(parse_instant("2026-03-31"), months=-1) == parse_instant("2026-02-28")
    assert shift(parse_instant("2024-03-31"), months=-1) == parse_instant("2024-02-29")
    assert shift(parse_instant("2026-11-30"), months=14) == parse_instant("2028-01-30")
    assert shift(parse_instant("9999-12-01"), months=1) is None
