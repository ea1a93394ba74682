"""Instants and durations: parsing the repository's spellings, writing one canonical form.

Every instant is an aware ``datetime`` in UTC. A bare date is midnight UTC; a
datetime without an offset is UTC. Nothing here consults the machine's time
zone or locale.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

BEGINNING_OF_TIME = datetime.min.replace(tzinfo=UTC)

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


def format_instant(value: datetime) -> str:
    """RFC 3339 in UTC with a ``Z``: ``2026-03-01T00:00:00Z``."""
    utc = value.astimezone(UTC)
    if utc.microsecond:
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def format_day(value: datetime) -> str:
    """A compact label: the date, plus the time when it is not midnight."""
    utc = value.astimezone(UTC)
    if utc.hour or utc.minute or utc.second or utc.microsecond:
        return utc.strftime("%Y-%m-%d %H:%M")
    return utc.strftime("%Y-%m-%d")


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
    try:
        return instant + timedelta(days=days)
    except OverflowError:
        return datetime.max.replace(tzinfo=UTC)


def now_utc() -> datetime:
    return datetime.now(UTC)
