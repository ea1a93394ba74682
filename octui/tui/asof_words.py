"""Why a typed ``as_of`` is not an instant, in words (Textual-free).

The field accepts ``now``, ``YYYY-MM-DD`` or an RFC 3339 datetime; a datetime without
an offset is UTC. :func:`as_of_problem` says what is wrong with anything else, so the
explorer can say it next to the field instead of only colouring the text.
"""

from __future__ import annotations

import calendar
import re

from octui.core.timeutil import parse_instant

UTC_NOTE = "a date or a datetime typed without an offset is UTC"

_LOOSE_DATE = re.compile(r"(\d{1,4})-(\d{1,2})-(\d{1,2})(.*)", re.S)
_MONTH_NAMES = [
    *("January", "February", "March", "April", "May", "June"),
    *("July", "August", "September", "October", "November", "December"),
]
"""Fixed English names (``calendar.month_name`` follows the locale)."""
_MONTHS = {name.lower() for name in _MONTH_NAMES} | {name[:3].lower() for name in _MONTH_NAMES}


def as_of_problem(text: str) -> str | None:
    """None when ``text`` is an instant (or ``now``); else why not, in one sentence."""
    t = text.strip()
    if not t or t.lower() == "now":
        return None
    try:
        parse_instant(t)
        return None
    except ValueError:
        pass
    example = "e.g. 2026-03-15, 2026-03-15T09:30:00Z or now"
    if any(word in _MONTHS for word in re.findall(r"[a-z]+", t.lower())):
        return f"month names are not read: write the date as YYYY-MM-DD ({example})"
    m = _LOOSE_DATE.fullmatch(t)
    if m is None:
        return f"not a date: write YYYY-MM-DD or an RFC 3339 datetime ({example})"
    year, month, day, rest = m.groups()
    if len(year) != 4 or len(month) != 2 or len(day) != 2:
        fixed = f"{int(year):04d}-{int(month):02d}-{int(day):02d}"
        return f"write four-digit years and two-digit months and days: {fixed}"
    y, mo, d = int(year), int(month), int(day)
    if y < 1:
        return "years start at 0001"
    if not 1 <= mo <= 12:
        return f"there is no month {mo}: months run from 01 to 12"
    days = calendar.monthrange(y, mo)[1]
    if not 1 <= d <= days:
        return f"there is no day {d} in {_MONTH_NAMES[mo - 1]} {y}: it has {days} days"
    if rest:
        return (
            "the time is not RFC 3339: write T then HH:MM:SS and optionally an offset, "
            "e.g. 2026-03-15T09:30:00Z or 2026-03-15T09:30:00+01:00"
        )
    return f"not a date ({example})"
