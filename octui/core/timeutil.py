"""Instants and durations: parsing the repository's spellings, writing one canonical form.

Every instant is an aware ``datetime`` in UTC. A bare date is midnight UTC; a
datetime without an offset is UTC. Nothing here consults the machine's time
zone or locale.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

BEGINNING_OF_TIME = datetime.min.replace(tzinfo=UTC)
END_OF_TIME = datetime.max.replace(tzinfo=UTC)
"""The last representable instant, 9999-12-31T23:59:59.999999Z."""

_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_DATETIME_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?", re.ASCII
)
_DURATION_RE = re.compile(r"([1-9]\d{0,5}|0)([dwmy])", re.ASCII)
_DURATION_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}


def to_utc(value: date | datetime) -> datetime:
    """A YAML date or datetime as an aware UTC datetime."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        try:
            return value.astimezone(UTC)
        except OverflowError:  # 9999-12-31T23:00:00-05:00 is past datetime.max in UTC
            raise ValueError(f"{value.isoformat()} is out of range once converted to UTC") from None
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def parse_instant(value: object) -> datetime:
    """Parse ``YYYY-MM-DD`` or an RFC 3339 datetime (or a YAML date/datetime).

    Raises ``ValueError`` with a message fit for a one-line error.
    """
    if isinstance(value, (date, datetime)):
        return to_utc(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a date (YYYY-MM-DD) or RFC 3339 datetime, got {value!r}")
    text = value.strip()
    try:
        if _DATE_RE.fullmatch(text):
            return to_utc(date.fromisoformat(text))
        if _DATETIME_RE.fullmatch(text):
            return to_utc(datetime.fromisoformat(text.replace("z", "Z")))
    except ValueError:
        pass
    raise ValueError(f"expected a date (YYYY-MM-DD) or RFC 3339 datetime, got {value!r}")


def _ymd(utc: datetime) -> str:
    # Not strftime("%Y"): the C library writes year 99 as "99", not "0099".
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"


def format_instant(value: datetime) -> str:
    """RFC 3339 in UTC with a ``Z`` and a four-digit year: ``2026-03-01T00:00:00Z``,
    ``0099-03-01T00:00:00Z``, microseconds only when there are any. Written by
    ``isoformat``, which pads the year to four digits and ends a UTC instant in ``+00:00``:
    the same text as writing each part, several times faster (the digest formats every
    instant of every object it encodes)."""
    return value.astimezone(UTC).isoformat()[:-6] + "Z"


def format_day(value: datetime) -> str:
    """A compact label: the date (four-digit year), plus the time when it is not midnight."""
    utc = value.astimezone(UTC)
    if utc.hour or utc.minute or utc.second or utc.microsecond:
        return f"{_ymd(utc)} {utc.hour:02d}:{utc.minute:02d}"
    return _ymd(utc)


def parse_duration(value: object) -> int:
    """``Nd``, ``Nw``, ``Nm`` (30 days) or ``Ny`` (365 days) as a number of days."""
    if isinstance(value, str):
        match = _DURATION_RE.fullmatch(value.strip())
        if match:
            return int(match.group(1)) * _DURATION_DAYS[match.group(2)]
    raise ValueError(f"expected a duration such as 90d, 12w, 6m or 1y, got {value!r}")


def format_duration(days: int) -> str:
    return f"{days}d"


def add_days(instant: datetime, days: int) -> datetime:
    """``instant`` plus ``days``, saturating at the ends of representable time."""
    try:
        return instant + timedelta(days=days)
    except OverflowError:
        return END_OF_TIME if days > 0 else BEGINNING_OF_TIME


def month_index(instant: datetime) -> int:
    """Months since January of year 0: consecutive months are consecutive numbers."""
    return instant.year * 12 + instant.month - 1


def shift(instant: datetime, *, months: int = 0, days: int = 0) -> datetime | None:
    """``instant`` moved by calendar ``months``, then by ``days``; None when the result
    would leave the representable range (0001-01-01 to 9999-12-31). Never raises.

    A month step keeps the day of the month, clamped to the month's length
    (31 March minus one month is 28 or 29 February).
    """
    import calendar  # (with locale, about 1 ms of every start-up that never steps a month)

    year, month0 = divmod(month_index(instant) + months, 12)
    if not 1 <= year <= 9999:
        return None
    day = min(instant.day, calendar.monthrange(year, month0 + 1)[1])
    moved = instant.replace(year=year, month=month0 + 1, day=day)
    try:
        return moved + timedelta(days=days)
    except OverflowError:
        return None


def now_utc() -> datetime:
    return datetime.now(UTC)
