"""Timestamps in, and time windows out of natural language (English and Chinese).

``parse_timestamp`` normalises what callers send as ``occurredAt`` (ISO-8601, epoch numbers,
and the conversational formats of chat logs: ``1:56 pm on 8 May, 2023``,
``2023/05/20 (Sat) 00:44``, ``2023年5月8日 14:30``...).

``resolve_window`` finds the one time expression in a question ("last year", "in March",
"two weeks ago", 上个月...) and turns it into a half-open window ``[start, end)`` relative
to a reference time; ``resolve_relative_mention`` gives the single best instant for a
statement ("I adopted a pup last week") so an event can be dated at ingestion.

Conventions (documented because they are choices, not facts):

* all windows are computed in the reference's time zone (UTC when it is naive);
* weeks start on Monday (ISO); seasons are meteorological, northern hemisphere, and
  "winter of 2022" is Dec 2022 - Feb 2023;
* "last year/month/week" is the previous *calendar* period; "the last year", "the past
  year", "the last 3 months" are rolling periods ending at the reference;
* "in March" is the most recent March that started on or before the reference;
* "early/late 2023" are the two halves of the year, "mid 2023" April - September; "early/mid/
  late March" are the thirds of the month;
* "since X" and "after X" end at the reference; "before X" starts at ``FAR_PAST``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo

from graphmem._timestamps import CN_WEEKDAY_CHARS as _CN_WD
from graphmem._timestamps import MONTH_RX as _MON
from graphmem._timestamps import ORDINAL_RX as _ORD
from graphmem._timestamps import WEEKDAY_RX as _WD
from graphmem._timestamps import WEEKDAYS as _WEEKDAYS
from graphmem._timestamps import month_num as _month_num
from graphmem._timestamps import parse_timestamp
from graphmem.model import MAX_INSTANT, MIN_INSTANT

__all__ = [
    "FAR_PAST",
    "TimeWindow",
    "is_when_question",
    "mentioned_periods",
    "parse_timestamp",
    "read_told_of",
    "resolve_relative_mention",
    "resolve_window",
    "strip_window",
    "told_of",
]

FAR_PAST = datetime(1, 1, 1, tzinfo=UTC)
"""Open start of a "before X" window."""

# --------------------------------------------------------------------------- windows


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """A half-open interval ``[start, end)`` and the words of the query that named it."""

    start: datetime
    end: datetime
    phrase: str = ""
    kind: str = "range"  # year|month|week|day|hour|season|part|range|after|before|rolling|recent

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


@dataclass(frozen=True, slots=True)
class _Hit:
    start: datetime
    end: datetime
    kind: str
    point: datetime | None = None  # best single instant, when the phrase names an offset


_Handler = Callable[[dict[str, str | None], datetime], _Hit | None]

_UNITS = {"hour": "hour", "day": "day", "week": "week", "month": "month",
          "year": "year", "小时": "hour", "天": "day", "日": "day", "周": "week", "星期": "week",
          "礼拜": "week", "月": "month", "年": "year"}
_EN_NUM = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
           "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30, "a": 1, "an": 1,
           "a couple of": 2, "couple of": 2, "a couple": 2}
_FUZZY = {"few", "a few", "several", "几", "好几"}
_NUM = r"(?:\d{1,3}|" + "|".join(sorted(_EN_NUM, key=len, reverse=True)).replace(" ", r"\s+") + \
       r"|a\s+few|few|several)"
_CN_NUM = r"(?:\d{1,3}|[一二两三四五六七八九十]{1,3}|半|好几|几)"
_CN_DIGIT = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
             "九": 9}


def _count(token: str) -> float | None:
    """A number of units; ``None`` for fuzzy amounts ("a few", 几)."""
    t = " ".join(token.lower().split())
    if t in _FUZZY:
        return None
    if t.isdigit():
        return int(t)
    if t in _EN_NUM:
        return _EN_NUM[t]
    if t == "半":
        return 0.5
    tens, sep, ones = t.partition("十")
    if sep:
        return _CN_DIGIT.get(tens, 1) * 10 + _CN_DIGIT.get(ones, 0)
    return _CN_DIGIT.get(t)


def _floor(dt: datetime, unit: str) -> datetime:
    if unit == "hour":
        return dt.replace(minute=0, second=0, microsecond=0)
    day = dt.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "week":
        return day - timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    if unit == "year":
        return day.replace(month=1, day=1)
    return day


def _add_months(dt: datetime, n: int) -> datetime:
    y, m = divmod(dt.month - 1 + n, 12)
    year, month = dt.year + y, m + 1
    last = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
    return dt.replace(year=year, month=month, day=min(dt.day, last))


def _shift(dt: datetime, n: float, unit: str) -> datetime:
    if unit in ("month", "year"):
        if unit == "month" and n != int(n):  # 半个月: half a month is 15 days
            return dt + timedelta(days=30 * n)
        return _add_months(dt, round(n * (12 if unit == "year" else 1)))
    days = {"hour": 1 / 24, "day": 1, "week": 7}[unit]
    return dt + timedelta(days=days * n)


def _period(dt: datetime, unit: str) -> tuple[datetime, datetime]:
    start = _floor(dt, unit)
    return start, _shift(start, 1, unit)


def _hit_for(dt: datetime, unit: str, point: datetime | None = None) -> _Hit:
    start, end = _period(dt, unit)
    return _Hit(start, end, unit, point)


def _tz(ref: datetime) -> tzinfo:
    return ref.tzinfo or UTC


def _recent_month(month: int, ref: datetime, *, strict: bool = False) -> int:
    """Year of the latest ``month`` that started on (or, strict, before) the reference's month."""
    return ref.year if (month < ref.month or (month == ref.month and not strict)) else ref.year - 1


# --- anchors: expressions that name one period and may also sit inside "between X and Y"


def _day(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    month = _month_num(g["mon"] or "") if g.get("mon") else int(g["m"] or 0)
    day = int(g["d"] or 0)
    if g.get("y"):
        year = int(g["y"] or 0)
    else:
        if g.get("mon") == "may":  # lower-case "may 2" is the verb far more often
            return None
        year = ref.year if (month, day) <= (ref.month, ref.day) else ref.year - 1
        if (month, day) == (2, 29):  # the latest leap day
            while not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
                year -= 1
    try:
        return _hit_for(datetime(year, month, day, tzinfo=_tz(ref)), "day")
    except ValueError:
        return None


def _month(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    month = _month_num(g["mon"] or "") if g.get("mon") else int(_count(g["m"] or "") or 0)
    if not 1 <= month <= 12:
        return None
    rel = (g.get("rel") or "").lower()
    if g.get("y"):
        year = int(g["y"] or 0)
    elif rel == "this":
        year = ref.year
    elif rel == "next":
        year = ref.year if month > ref.month else ref.year + 1
    else:
        year = _recent_month(month, ref, strict=rel == "last")
    return _hit_for(datetime(year, month, 1, tzinfo=_tz(ref)), "month")


def _year(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    return _hit_for(datetime(int(g["y"] or 0), 1, 1, tzinfo=_tz(ref)), "year")


_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12,
            "春": 3, "夏": 6, "秋": 9, "冬": 12}


def _season(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    first = _SEASONS[(g["season"] or "").lower()[:6].rstrip("天季")]
    tz, rel = _tz(ref), (g.get("rel") or "").lower()
    if g.get("y"):
        start = datetime(int(g["y"] or 0), first, 1, tzinfo=tz)
    else:  # latest season that started (in, this) or ended (last) by the reference
        start = datetime(ref.year, first, 1, tzinfo=tz)
        if rel == "this":
            start = start if first != 12 or ref.month >= 3 else start.replace(year=ref.year - 1)
        elif rel == "next":
            start = start if start > ref else start.replace(year=ref.year + 1)
        else:
            while (_add_months(start, 3) if rel == "last" else start) > ref:
                start = start.replace(year=start.year - 1)
    return _Hit(start, _add_months(start, 3), "season")


def _part(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    part = (g["part"] or "").lower()
    early = part in ("early", "初", "年初", "上半年") or "beginning" in part or "start" in part
    late = part in ("late", "底", "末", "年底", "下半年") or "end" in part
    tz = _tz(ref)
    if g.get("mon"):  # thirds of a month
        month = _month_num(g["mon"] or "")
        year = int(g["y"] or 0) if g.get("y") else _recent_month(month, ref)
        start, end = _period(datetime(year, month, 1, tzinfo=tz), "month")
        a, b = (start, start + timedelta(days=10)) if early else \
            (start + timedelta(days=20), end) if late else \
            (start + timedelta(days=10), start + timedelta(days=20))
        return _Hit(a, b, "part")
    start = datetime(int(g["y"] or 0), 1, 1, tzinfo=tz)
    first = 1 if early else 7 if late else 4
    return _Hit(start.replace(month=first), _add_months(start.replace(month=first), 6), "part")


_REL_EN = {"last": -1, "previous": -1, "this": 0, "current": 0, "next": 1, "coming": 1}
_REL_CN = {"去年": ("year", -1), "前年": ("year", -2), "大前年": ("year", -3),
           "今年": ("year", 0), "明年": ("year", 1), "上个月": ("month", -1),
           "上月": ("month", -1), "这个月": ("month", 0), "本月": ("month", 0),
           "下个月": ("month", 1), "下月": ("month", 1), "上周": ("week", -1),
           "上个星期": ("week", -1), "上星期": ("week", -1), "上礼拜": ("week", -1),
           "本周": ("week", 0), "这周": ("week", 0), "这个星期": ("week", 0), "这星期": ("week", 0),
           "下周": ("week", 1), "下个星期": ("week", 1), "昨天": ("day", -1), "昨日": ("day", -1),
           "今天": ("day", 0), "今日": ("day", 0), "前天": ("day", -2), "大前天": ("day", -3),
           "明天": ("day", 1), "后天": ("day", 2), "yesterday": ("day", -1), "today": ("day", 0),
           "tonight": ("day", 0), "this morning": ("day", 0), "this afternoon": ("day", 0),
           "this evening": ("day", 0), "the day before yesterday": ("day", -2),
           "tomorrow": ("day", 1)}


def _relative(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    if g.get("cn"):
        unit, n = _REL_CN[" ".join((g["cn"] or "").lower().split())]
    else:
        unit, n = (g["unit"] or "").lower(), _REL_EN[(g["rel"] or "").lower()]
    point = _shift(ref, n, unit)
    return _hit_for(point, unit, point)


def _weekday(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    rel = (g.get("rel") or g.get("cnrel") or "").lower()
    if g.get("wd"):
        wd = _WEEKDAYS.index((g["wd"] or "").lower())
    else:
        wd = _CN_WD.index(g["cnwd"] or "") if g["cnwd"] != "天" else 6
    today = _floor(ref, "day")
    monday = today - timedelta(days=today.weekday())
    if rel in ("this", "这", "本"):
        day = monday + timedelta(days=wd)
    elif rel in ("上", "上个"):
        day = monday - timedelta(days=7 - wd)
    elif rel in ("下", "下个"):
        day = monday + timedelta(days=7 + wd)
    elif rel == "next":
        day = today + timedelta(days=(wd - today.weekday() - 1) % 7 + 1)
    else:  # "last X" strictly before today; "on X" / bare 周X on or before today
        back = (today.weekday() - wd) % 7
        day = today - timedelta(days=back or (7 if rel == "last" else 0))
    return _hit_for(day, "day", day)


def _weekend(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    rel = (g.get("rel") or "").lower()
    monday = _floor(ref, "week")
    sat = monday + timedelta(days=5 + (-7 if rel in ("last", "上") else 7 if rel in ("next", "下")
                                       else 0))
    return _Hit(sat, sat + timedelta(days=2), "weekend", sat)


# Bare years, month names and seasons are too often something else ("2020 dollars", "the fall
# of Rome", "May I...") to stand alone; they need one of these in front.
_NEED = r"(?:(?:in|during|throughout)\s+|[在于]\s*)"
# (pattern, handler, the preposition it needs when standing alone, or None)
_ANCHORS: list[tuple[str, _Handler, str | None]] = [
    (rf"(?P<mon>{_MON})\s+(?P<d>\d{{1,2}}){_ORD},?\s+(?P<y>\d{{4}})", _day, None),
    (rf"(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mon>{_MON}),?\s+(?P<y>\d{{4}})", _day,
     None),
    (r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})", _day, None),
    (r"(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})", _day, None),
    (r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]", _day, None),
    (rf"(?P<mon>{_MON})\s+(?P<d>\d{{1,2}}){_ORD}(?!\s*,?\s*\d)", _day, None),
    (rf"the\s+(?P<d>\d{{1,2}}){_ORD}\s+of\s+(?P<mon>{_MON})", _day, None),
    (r"(?<![\d年])(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]", _day, None),
    (rf"(?P<mon>{_MON}),?\s+(?:of\s+)?(?P<y>\d{{4}})", _month, None),
    (r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月份?", _month, None),
    (rf"(?P<rel>last|this|next)\s+(?P<mon>{_MON})", _month, None),
    (rf"(?P<mon>{_MON})", _month, _NEED),
    (r"(?<![\d年个])(?P<m>\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月份?", _month, None),
    (r"(?:the\s+)?year\s+(?P<y>\d{4})", _year, None),
    (r"(?P<y>(?:19|20|21)\d{2})(?![\d,.]\d|\s*年)", _year, _NEED),
    (r"(?P<y>\d{4})\s*年(?:度)?", _year, None),
    (r"(?:the\s+)?(?P<season>spring|summer|fall|autumn|winter)\s+(?:of\s+)?(?P<y>\d{4})",
     _season, None),
    (r"(?P<y>\d{4})\s*年\s*(?:的)?(?P<season>[春夏秋冬](?:天|季))", _season, None),
    (r"(?P<rel>last|this|next)\s+(?P<season>spring|summer|fall|autumn|winter)", _season, None),
    (r"(?:the\s+)?(?P<season>spring|summer|fall|autumn|winter)(?!\s+of\s+(?!\d{4}))", _season,
     _NEED),
    (r"(?P<part>early|mid|late|(?:the\s+)?(?:beginning|start|middle|end)\s+of)[\s-]*"
     r"(?P<y>\d{4})", _part, None),
    (rf"(?P<part>early|mid|late)[\s-]*(?P<mon>{_MON})(?:,?\s+(?:of\s+)?(?P<y>\d{{4}}))?",
     _part, None),
    (r"(?P<y>\d{4})\s*年\s*(?P<part>初|底|末|上半年|下半年|年初|年底|年中|中)", _part, None),
    (r"(?P<rel>last|previous|this|current|next|coming)\s+(?P<unit>year|month|week)", _relative,
     None),
    (r"(?P<cn>" + "|".join(sorted(_REL_CN, key=len, reverse=True)).replace(" ", r"\s+") + ")",
     _relative, None),
    (rf"(?P<rel>last|this|next|on)\s+(?P<wd>{_WD})", _weekday, None),
    (rf"(?P<wd>{_WD})", _weekday, r"on\s+"),
    (r"(?<!每)(?P<cnrel>上个|上|这|本|下个|下)?(?:周|星期|礼拜)(?P<cnwd>[一二三四五六日天])",
     _weekday, None),
    (r"(?P<rel>last|this|next)\s+weekend|(?P<rel2>上|这|本|下)周末", _weekend, None),
]

_B, _E = r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"
_PREP = r"(?:(?:in|during|throughout|over|within|for|on|at)\s+|[在于]\s*)"
_NAMES = re.compile(r"\(\?P<\w+>")
_ANCHOR_RX = [(re.compile(_B + p + _E, re.IGNORECASE), fn) for p, fn, _ in _ANCHORS]
_ANY = "(?:" + "|".join(_NAMES.sub("(?:", p) for p, _, _ in _ANCHORS) + ")"


def _anchor(text: str, ref: datetime) -> _Hit | None:
    for rx, fn in _ANCHOR_RX:
        m = rx.fullmatch(text.strip())
        if m:
            return fn(_groups(m), ref)
    return None


def _groups(m: re.Match[str]) -> dict[str, str | None]:
    g = m.groupdict()
    if g.get("rel2"):  # the Chinese weekend alternative
        g["rel"] = g["rel2"]
    return g


# --- composite and free-standing rules


def _between(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    a, b = _anchor(g["a"] or "", ref), _anchor(g["b"] or "", ref)
    if a is None or b is None:
        return None
    a, b = (a, b) if a.start <= b.start else (b, a)
    return _Hit(a.start, max(a.end, b.end), "range", a.start)


def _since(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    a = _anchor(g["a"] or "", ref)
    if a is None:
        return None
    op = (g["op"] or "").lower()
    start = a.end if op.startswith("after") or op in ("之后", "以后", "后") else a.start
    return _Hit(start, max(ref, start), "after", start)


def _before(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    a = _anchor(g["a"] or "", ref)
    if a is None:
        return None
    inclusive = (g["op"] or "").lower() in ("until", "till", "up to", "through")
    return _Hit(FAR_PAST, a.end if inclusive else a.start, "before")


def _next_to(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    """"the week before 16 November 2023", "the Sunday before October 25", "the weekend
    after May 3": the span of that kind next to the anchor, on the side named."""
    if re.fullmatch(_WD, (g["a"] or "").strip(), re.IGNORECASE):
        return None  # "the weekend before Sunday, April 9": the date says which Sunday
    a = _anchor(g["a"] or "", ref)
    if a is None or a.start == FAR_PAST:
        return None
    span = (g["span"] or "").lower()
    before = (g["op"] or "").lower() not in ("after", "following")
    edge = a.start if before else a.end
    if span in ("day", "week"):
        days = 1 if span == "day" else 7
        start = edge - timedelta(days=days) if before else edge
        return _Hit(start, start + timedelta(days=days), "range", start)
    if span == "month":
        start = _add_months(edge, -1) if before else edge
        return _Hit(start, _add_months(start, 1), "range", start)
    # a weekend (from its Saturday, two days) or one weekday, wholly on the side named
    wd, length = (5, 2) if span == "weekend" else (_WEEKDAYS.index(span), 1)
    if before:
        last = _floor(edge - timedelta(days=length), "day")
        start = last - timedelta(days=(last.weekday() - wd) % 7)
    else:
        first = _floor(edge, "day")
        if first < edge:
            first += timedelta(days=1)
        start = first + timedelta(days=(wd - first.weekday()) % 7)
    return _Hit(start, start + timedelta(days=length), "range", start)


def _nth_week(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    """"the second week of November": seven days from the month's 8th; "the last week of
    May" its last seven days."""
    a = _anchor(g["a"] or "", ref)
    if a is None or a.kind != "month":
        return None
    nth = (g["nth"] or "").lower()
    if nth == "last":
        start = a.end - timedelta(days=7)
    else:
        n = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3}.get(nth, 4)
        start = a.start + timedelta(days=7 * (n - 1))
    return _Hit(start, min(a.end, start + timedelta(days=7)), "range", start)


def _half(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    """"the first half of September 2022": the anchor's first (or second) half, in days."""
    a = _anchor(g["a"] or "", ref)
    if a is None or a.start == FAR_PAST or a.end - a.start < timedelta(days=2):
        return None
    mid = _floor(a.start + (a.end - a.start) / 2, "day")
    first = (g["half"] or "").lower() == "first"
    return _Hit(a.start, mid, "range", a.start) if first else _Hit(mid, a.end, "range", mid)


def _ago(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    unit = _UNITS[(g["unit"] or "").lower().rstrip("s").removeprefix("个")]
    n = _count(g["n"] or "")
    if n is not None and n != int(n):  # 半年前 -> six months ago, 半个月前 -> fifteen days ago
        n, unit = (n * 12, "month") if unit == "year" else (n * 30, "day") if unit == "month" \
            else (n, unit)
    if n is None:  # "a few weeks ago": somewhere two to five units back
        return _Hit(_floor(_shift(ref, -5, unit), unit), _period(_shift(ref, -2, unit), unit)[1],
                    "range", _shift(ref, -3, unit))
    point = _shift(ref, -n, unit)
    return _hit_for(point, unit, point)


def _rolling(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    unit = _UNITS[(g["unit"] or "").lower().rstrip("s").removeprefix("个")]
    n = _count(g.get("n") or "1")
    start = _shift(ref, -(n if n is not None else 3), unit)  # "the past few days": three
    return _Hit(start, ref, "rolling", start)


def _recent(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    return _Hit(ref - timedelta(days=30), ref, "recent")


def _so_far(g: dict[str, str | None], ref: datetime) -> _Hit | None:
    word = (g.get("unit") or g.get("u2") or g.get("cnu") or "day").lower()
    unit = {"今年": "year", "这个月": "month", "本月": "month", "today": "day"}.get(word, word)
    start = _floor(ref, unit)
    return _Hit(start, ref, "range", start)


_UNIT_EN = r"(?P<unit>hour|day|week|month|year)s?"
_UNIT_CN = r"(?P<unit>小时|天|日|周|星期|礼拜|个月|个星期|月|年)"
_RULES_SRC: list[tuple[str, _Handler]] = [
    (rf"(?:between|from)\s+(?P<a>{_ANY})\s+(?:and|to|until|till|through|thru|-|–)\s+(?P<b>{_ANY})",
     _between),
    (rf"(?:从|在)?(?P<a>{_ANY})\s*(?:到|至|-|~|—)\s*(?P<b>{_ANY})(?:之间|期间)?", _between),
    (rf"(?P<op>since|after|starting(?:\s+(?:from|in))?)\s+(?P<a>{_ANY})", _since),
    (rf"(?:自从|自|从)?(?P<a>{_ANY})\s*(?P<op>以来|起|之后|以后|后)", _since),
    (rf"(?P<op>before|prior\s+to|until|till|up\s+to|through)\s+(?P<a>{_ANY})", _before),
    (rf"(?P<a>{_ANY})\s*(?P<op>以前|之前|前)", _before),
    (rf"(?P<n>{_NUM})\s+{_UNIT_EN}\s+ago", _ago),
    (rf"(?P<n>{_CN_NUM})\s*{_UNIT_CN}\s*(?:以前|之前|前)", _ago),
    (rf"(?:(?:in|over|during|within|for)\s+)?the\s+(?:past|last|previous)\s+(?:(?P<n>{_NUM})\s+)?"
     rf"{_UNIT_EN}", _rolling),
    (rf"(?:(?:in|over|during|within|for)\s+)?(?:past|last|previous)\s+(?P<n>{_NUM})\s+{_UNIT_EN}",
     _rolling),
    (rf"(?:(?:in|over|during|within|for)\s+)?past\s+{_UNIT_EN}", _rolling),
    # a bare 近 needs a number after it: 接近月底 / 附近 are not periods
    (rf"(?:过去|最近|近(?=\s*{_CN_NUM}))\s*(?P<n>{_CN_NUM})?\s*{_UNIT_CN}(?:来|以来|内|里)?",
     _rolling),
    (r"recently|lately|these\s+days|of\s+late|in\s+recent\s+(?:days|weeks|times)|最近|近期|近来"
     r"|这段时间", _recent),
    (r"(?:earlier|so\s+far)\s+this\s+(?P<unit>year|month|week)|(?:earlier|so\s+far)\s+(?P<u2>today)"
     r"|(?P<cnu>今年|这个月|本月)(?:到目前为止|以来)", _so_far),
]
# a span next to, or a part of, an anchor ("the week before 16 November", "the second week
# of November", "the first half of September 2022"); after the anchors, so a phrase that is
# one ("the day before yesterday") keeps its own kind
_SPANS_SRC: list[tuple[str, _Handler]] = [
    (rf"(?:the\s+)?(?P<span>day|week|weekend|month|{_WD})\s+(?P<op>before|after|prior\s+to|"
     rf"following)\s+(?P<a>{_ANY})", _next_to),
    (rf"(?:the\s+)?(?P<nth>first|second|third|fourth|last|1st|2nd|3rd|4th)\s+week\s+(?:of|in)\s+"
     rf"(?P<a>{_ANY})", _nth_week),
    (rf"(?:the\s+)?(?P<half>first|second|latter)\s+half\s+of\s+(?P<a>{_ANY})", _half),
]
_RULES: list[tuple[re.Pattern[str], _Handler]] = [
    (re.compile(_B + p + _E, re.IGNORECASE), fn) for p, fn in _RULES_SRC
] + [
    (re.compile(_B + (need or f"{_PREP}?") + "(?:" + p + ")" + _E, re.IGNORECASE), fn)
    for p, fn, need in _ANCHORS
] + [(re.compile(_B + p + _E, re.IGNORECASE), fn) for p, fn in _SPANS_SRC]


def _hits(text: str, ref: datetime) -> list[tuple[int, int, int, _Hit]]:
    """Every time expression the rules read in ``text``: (start, end, rule index, hit),
    sorted longest first (ties: the earliest, then the first rule)."""
    ref = ref if ref.tzinfo is not None else ref.replace(tzinfo=UTC)
    found: list[tuple[int, int, int, _Hit]] = []
    for idx, (rx, fn) in enumerate(_RULES):
        for m in rx.finditer(text):
            try:
                hit = fn(_groups(m), ref)
            except (OverflowError, ValueError):  # "next year" in 9999: no such time
                hit = None
            if hit is not None:
                found.append((m.start(), m.end(), idx, hit))
    found.sort(key=lambda f: (f[0] - f[1], f[0], f[2]))
    return found


def _find(text: str, ref: datetime) -> tuple[str, _Hit] | None:
    """The longest time expression in ``text`` (ties: the earliest, then the first rule)."""
    found = _hits(text, ref)
    if not found:
        return None
    start, end, _, hit = found[0]
    return text[start:end].strip(), hit


def resolve_window(query: str, reference: datetime) -> TimeWindow | None:
    """The time window a question names, relative to ``reference``; ``None`` if none.

    ``phrase`` is the matched text (with its preposition) so the caller can strip it before
    embedding the rest; ``kind`` says what sort of period it is.
    """
    found = _find(query, reference)
    if found is None:
        return None
    phrase, hit = found
    return TimeWindow(start=hit.start, end=hit.end, phrase=phrase, kind=hit.kind)


def strip_window(query: str, window: TimeWindow) -> str:
    """``query`` without the window's phrase, tidied, for embedding the remainder."""
    if not window.phrase:
        return query
    at = query.lower().find(window.phrase.lower())
    if at < 0:
        return query
    rest = query[:at] + " " + query[at + len(window.phrase) :]
    rest = re.sub(r"\s+([?.!,;:，。？！；：])", r"\1", " ".join(rest.split()))
    return rest.strip()


def resolve_relative_mention(text: str, reference: datetime) -> datetime | None:
    """The best single instant for the time a statement mentions, or ``None``.

    Offsets ("yesterday", "two years ago", "last week") give the reference moved by that
    offset, so the time of day is kept and ordering survives; named periods ("in March
    2023", "last Saturday") give their start. Open or vague phrases ("before 2020",
    "recently") give ``None``: the message's own time is the better guess.
    """
    found = _find(text, reference)
    if found is None or found[1].kind in ("before", "recent"):
        return None
    hit = found[1]
    moment = hit.point if hit.point is not None else hit.start
    # a time graphmem cannot store is no answer (a statement's start is stored)
    return moment if MIN_INSTANT <= moment <= MAX_INSTANT else None


#: periods too open to date what a message speaks of ("before 2020", "since May", "lately")
_OPEN_KINDS = frozenset({"before", "after", "rolling", "recent"})
# sentence ends ("Jan. 5" keeps its dot: a full stop ends a sentence only before a capital
# or the end) and a word every time phrase the rules read holds
_CLAUSE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'“‘(])|[。！？\n]+")
_TIME_WORD = re.compile(
    r"\d|[年月周天日昨星期礼拜春夏秋冬前]|" + _MON + "|" + _WD +
    r"|\b(?:ago|yesterday|today|tonight|tomorrow|weekend|last|this|next|previous|current"
    r"|coming|past|spring|summer|fall|autumn|winter)\b", re.IGNORECASE)


def mentioned_periods(text: str, said_at: datetime) -> tuple[tuple[datetime, datetime], ...]:
    """The bounded periods a message names, read at ``said_at`` (when it was said): "our
    camping trip last year" said in 2023 names 2022, 上个月 said in May names April.
    Overlapping phrases count once, the longest ("March 2023", not also "2023"); open ones
    ("before 2020", "recently") not at all."""
    out: list[tuple[datetime, datetime]] = []
    # each rule reads one sentence at most; only sentences with a word of time are read
    for sentence in _CLAUSE.split(text):
        if not _TIME_WORD.search(sentence):
            continue
        taken: list[tuple[int, int]] = []
        for start, end, _, hit in _hits(sentence, said_at):
            if hit.kind not in _OPEN_KINDS and all(end <= a or start >= b for a, b in taken):
                taken.append((start, end))
                out.append((hit.start, hit.end))
    return tuple(out)


def told_of(text: str, said_at: datetime) -> str:
    """The periods a message names (``mentioned_periods``) as stored on its episode:
    ``"<start ms>:<end ms>"`` joined by ``;``, empty when it names none."""
    return ";".join(f"{int(a.timestamp() * 1000)}:{int(b.timestamp() * 1000)}"
                    for a, b in mentioned_periods(text, said_at))


def read_told_of(value: str) -> list[tuple[int, int]]:
    """The periods of a stored ``told_of`` value, in epoch ms (a malformed part is left out:
    one hand-edited row must not fail a recall)."""
    out = []
    for part in value.split(";"):
        a, sep, b = part.partition(":")
        if sep and a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
            out.append((int(a), int(b)))
    return out


_WHEN = re.compile(
    r"^\W*when\b|\bwhen\s+(?:did|does|do|was|were|is|are|will|would|have|has|had)\b"
    r"|\b(?:remember|recall|know|tell\s+me)\s+when\b|\bsince\s+when\b"
    r"|\b(?:what|which)\s+(?:year|month|date|day|time|week)\b|\bhow\s+long\s+ago\b"
    r"|\bhow\s+many\s+(?:days|weeks|months|years)\s+(?:ago|before|after|since|between|passed)\b"
    r"|什么时候|啥时候|何时|哪年|哪一年|哪个月|哪一天|哪天|几月|几号|几时|多久以前|多久前|几天前",
    re.IGNORECASE,
)


def is_when_question(query: str) -> bool:
    """Does the question ask for a time ("when did...", "what year...", 什么时候...)?"""
    return _WHEN.search(query) is not None
