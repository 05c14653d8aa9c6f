"""Reading one timestamp: ISO-8601, epoch numbers and the formats of chat logs.

Also the month and weekday vocabulary that the window parser in ``graphmem.timeparse``
shares. ``parse_timestamp`` is exported from there.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo

from graphmem.errors import InvalidInputError
from graphmem.inputs import check_instant

MONTH_RX = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
MONTH_ABBR = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAY_RX = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
CN_WEEKDAY_CHARS = "一二三四五六日天"  # 周一..周日/周天
ORDINAL_RX = r"(?:st|nd|rd|th)?"


def month_num(token: str) -> int:
    return MONTH_ABBR.index(token.strip(". ").lower()[:3]) + 1


_TZ_SUFFIX = re.compile(
    r"\s*(?:(?P<z>Z|UTC|GMT)?(?P<sign>[+-])(?P<hh>\d{1,2}):?(?P<mm>\d{2})?|(?P<utc>Z|UTC|GMT))$",
    re.IGNORECASE,
)
_DATE_FORMS = (
    re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]?"),
    re.compile(r"(?<!\d)(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)"),
    re.compile(
        rf"(?<!\d)(?P<d>\d{{1,2}}){ORDINAL_RX}\s+(?:of\s+)?(?P<mon>{MONTH_RX}),?\s+(?P<y>\d{{4}})",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?P<mon>{MONTH_RX})\s+(?P<d>\d{{1,2}}){ORDINAL_RX},?\s+(?P<y>\d{{4}})", re.IGNORECASE
    ),
    re.compile(r"(?<!\d)(?P<a>\d{1,2})[/.](?P<b>\d{1,2})[/.](?P<y>\d{4})(?!\d)"),
)
_TIME_FORMS = (
    re.compile(
        r"(?P<cn>上午|早上|凌晨|中午|下午|晚上)?\s*(?<!\d)(?P<h>\d{1,2})\s*(?:[:：](?P<mi>\d{2})"
        r"(?:[:：](?P<s>\d{2})(?:\.(?P<f>\d{1,6}))?)?|点\s*(?:(?P<mi2>\d{1,2})\s*分?|(?P<half>半))?)"
        r"\s*(?P<ap>[ap]\.?m\.?)?(?![A-Za-z0-9])",
        re.IGNORECASE,
    ),
    re.compile(r"(?<!\d)(?P<h>\d{1,2})\s*(?P<ap>[ap]\.?m\.?)(?![A-Za-z])", re.IGNORECASE),
)
# What may remain once the date, time and zone are taken out: glue words and weekdays.
_FILLER = re.compile(
    r"(?:[\s,()\[\]@T]|\b(?:on|at|the|of)\b|(?:星期|周|礼拜)[一二三四五六日天]|"
    r"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?\b\.?)*",
    re.IGNORECASE,
)


def parse_timestamp(
    value: str | datetime | date | int | float,
    *,
    default_tz: tzinfo = UTC,
    field: str = "occurredAt",
) -> datetime:
    """Parse one timestamp into an aware ``datetime``; naive inputs get ``default_tz``.

    Accepts datetimes, dates, epoch seconds/milliseconds/microseconds (numbers or numeric
    strings; the magnitude decides the unit), ISO-8601 (``Z``, offsets, date only), and the
    chat-log styles listed in the module docstring. A bare 8-digit string is read as a
    compact date (``20230508``), not as epoch seconds. Raises ``InvalidInputError(field,
    ...)`` when the value cannot be read or lies outside the instants graphmem stores
    (``graphmem.model.INSTANT_RANGE``).
    """
    parsed = _parse(value, default_tz, field)
    return check_instant(parsed, field) or parsed


def _parse(value: str | datetime | date | int | float, default_tz: tzinfo,
           field: str) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=default_tz)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=default_tz)
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InvalidInputError(field, f"expected a timestamp, got {type(value).__name__}")
    if isinstance(value, int | float):
        return _from_epoch(value, field)
    text = " ".join(value.split())
    if not text:
        raise InvalidInputError(field, "is empty")
    if re.fullmatch(r"[+-]?\d+(?:\.\d+)?", text) and not re.fullmatch(r"(?:19|20)\d{6}", text):
        return _from_epoch(float(text) if "." in text else int(text), field)
    try:
        parsed: datetime | None = datetime.fromisoformat(text)
    except ValueError:
        parsed = _parse_text(text)
    if parsed is None:
        raise InvalidInputError(
            field, f"cannot read {text[:40]!r} as a time; use ISO-8601 (2023-05-08T13:56:00Z)"
        )
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=default_tz)


def _from_epoch(value: float, field: str) -> datetime:
    if not math.isfinite(value):
        raise InvalidInputError(field, "is not a finite number")
    # Seconds until year 5138, then milliseconds, then microseconds: ambiguous only for
    # millisecond values before March 1973, which chat logs do not contain.
    scale = 1_000_000 if abs(value) >= 1e14 else 1000 if abs(value) >= 1e11 else 1
    seconds = value / scale
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise InvalidInputError(field, "epoch value out of range") from None


def _parse_text(text: str) -> datetime | None:
    tz: tzinfo | None = None
    z = _TZ_SUFFIX.search(text)
    if z and (z.group("utc") or z.group("z") or re.search(r"\d\s*[+-]\d{2}:?\d{2}$", text)):
        if z.group("sign"):
            minutes = int(z.group("hh")) * 60 + int(z.group("mm") or 0)
            if minutes >= 24 * 60:
                return None
            tz = timezone(timedelta(minutes=minutes if z.group("sign") == "+" else -minutes))
        else:
            tz = UTC
        text = text[: z.start()]
    ymd: tuple[int, int, int] | None = None
    for rx in _DATE_FORMS:
        m = rx.search(text)
        if not m:
            continue
        g = m.groupdict()
        if g.get("a"):  # d/m/y or m/d/y: accept only when the reading is unambiguous
            a, b = int(g["a"]), int(g["b"])
            if a <= 12 and b <= 12 and a != b:
                return None
            month, day = (a, b) if b > 12 or a == b else (b, a)
        else:
            month = month_num(g["mon"]) if g.get("mon") else int(g["m"])
            day = int(g["d"])
        ymd = (int(g["y"]), month, day)
        text = text[: m.start()] + " " + text[m.end() :]
        break
    if ymd is None:
        return None
    hms = (0, 0, 0, 0)
    for rx in _TIME_FORMS:
        m = rx.search(text)
        if not m:
            continue
        g = m.groupdict()
        hour = int(g["h"])
        minute = int(g.get("mi") or g.get("mi2") or (30 if g.get("half") else 0))
        ap = (g.get("ap") or "").replace(".", "").lower()
        pm = ap == "pm" or (not ap and g.get("cn") in ("下午", "晚上"))
        am = ap == "am" or (not ap and g.get("cn") in ("上午", "早上", "凌晨"))
        if ap and hour > 12:
            return None  # "13:00 pm"
        if pm and hour < 12:
            hour += 12
        elif am and hour == 12:
            hour = 0
        frac = int((g.get("f") or "0").ljust(6, "0"))
        hms = (hour, minute, int(g.get("s") or 0), frac)
        text = text[: m.start()] + " " + text[m.end() :]
        break
    if _FILLER.fullmatch(text) is None:
        return None
    try:
        return datetime(*ymd, *hms, tzinfo=tz)
    except ValueError:
        return None
