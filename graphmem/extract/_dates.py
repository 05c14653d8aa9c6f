"""When a statement says it started: "since 2019", "last year", "两周前", resolved to a date.

Small and deterministic on purpose. Resolution rules (all at midnight, in the anchor's zone):

* absolute: ISO dates; "March 2021" / "2021年3月"; a year after since/in/from/back in, or
  "2020年" -> 1 January; "in March" (no year) -> the latest March not after the anchor;
* relative to the anchor (``occurred_at``): yesterday / 昨天 / 前天; "last|this week" -> that
  week's Monday; "last|this month" -> the 1st; "last|this year" / 去年 / 前年 / 今年 ->
  1 January; "N days/weeks/months/years ago" / N天前 / N年前 and "for N years" (a duration up to
  now) -> the anchor minus N units.

A result after the anchor is dropped: a statement's valid time never starts in the future.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo

from graphmem.model import aware

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))

_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "couple of": 2,
}
_EN_NUM_RE = r"\d+|a couple of|couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|" \
    r"eleven|twelve"
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9}
_ZH_NUM_RE = r"\d+|[一二两三四五六七八九十]+"

_UNIT_EN = {"day": "day", "week": "week", "month": "month", "year": "year"}
_UNIT_ZH = {"天": "day", "日": "day", "周": "week", "星期": "week", "个星期": "week",
            "个月": "month", "月": "month", "年": "year"}

# Each pattern: (regex, kind). Tried in order; the earliest match in the text wins.
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), "iso"),
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?"), "zh_ym"),
    (re.compile(rf"\b({_MONTH_RE})\.?\s+(?:(\d{{1,2}})(?:st|nd|rd|th)?,?\s+)?(\d{{4}})\b", re.I),
     "en_my"),
    (re.compile(r"(?<!\d)(\d{4})\s*年(?!\s*[前后代级])"), "zh_y"),
    (re.compile(r"\b(?:since|in|from|back in|during|as of)\s+(?:early\s+|late\s+|mid-?\s*)?"
                r"((?:19|20)\d{2})\b", re.I), "en_y"),
    (re.compile(rf"\b(?:since|in|from|back in|during)\s+({_MONTH_RE})\b(?!\s*\d)", re.I),
     "en_m"),
    (re.compile(r"\byesterday\b|昨天|昨日", re.I), "yesterday"),
    (re.compile(r"前天"), "day_before"),
    (re.compile(r"\b(last|this|past)\s+(week|month|year)\b", re.I), "en_rel"),
    (re.compile(r"去年|前年|今年|上个?月|这个月|本月|上个?星期|上周|这周|本周|这个星期"), "zh_rel"),
    (re.compile(rf"\b({_EN_NUM_RE})\s+(day|week|month|year)s?\s+ago\b", re.I), "en_ago"),
    (re.compile(rf"({_ZH_NUM_RE})\s*(个星期|星期|个月|天|周|年)(?:多)?(?:之|以)?前"), "zh_ago"),
    (re.compile(rf"\bfor\s+(?:the\s+(?:past|last)\s+)?({_EN_NUM_RE})\s+(day|week|month|year)s?\b",
                re.I), "en_for"),
    (re.compile(rf"(?:了|已经|有)\s*({_ZH_NUM_RE})\s*(个星期|星期|个月|天|周|年)(?:多)?了?"),
     "zh_for"),
]


def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text == "十":
        return 10
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0))
    if len(text) == 1:
        return _ZH_DIGITS.get(text)
    return None


def _en_number(text: str) -> int | None:
    text = text.lower()
    return int(text) if text.isdigit() else _EN_NUMBERS.get(text)


def _months_back(day: datetime, months: int) -> datetime:
    index = day.year * 12 + (day.month - 1) - months
    year, month = divmod(index, 12)
    month += 1
    # Clamp the day: 31 March minus one month is 28/29 February.
    for d in (day.day, 30, 29, 28):
        try:
            return day.replace(year=year, month=month, day=d)
        except ValueError:
            continue
    return day.replace(year=year, month=month, day=28)


def _minus(day: datetime, n: int, unit: str) -> datetime:
    if unit == "day":
        return day - timedelta(days=n)
    if unit == "week":
        return day - timedelta(weeks=n)
    if unit == "month":
        return _months_back(day, n)
    return _months_back(day, 12 * n)


def _relative(day: datetime, which: str, unit: str) -> datetime:
    """``which`` is "last" or "this"; ``unit`` week / month / year."""
    back = 1 if which == "last" else 0
    if unit == "week":
        return day - timedelta(days=day.weekday() + 7 * back)
    if unit == "month":
        return _months_back(day.replace(day=1), back)
    return day.replace(year=day.year - back, month=1, day=1)


def _resolve(
    match: re.Match[str], kind: str, day: datetime | None, tz: tzinfo | None
) -> datetime | None:
    g = match.groups()

    def at(year: int, month: int = 1, dom: int = 1) -> datetime | None:
        try:
            return datetime(year, month, dom, tzinfo=tz)
        except ValueError:
            return None

    if kind == "iso":
        return at(int(g[0]), int(g[1]), int(g[2]))
    if kind == "zh_ym":
        return at(int(g[0]), int(g[1]), int(g[2]) if g[2] else 1)
    if kind == "en_my":
        return at(int(g[2]), _MONTHS[g[0].lower()], int(g[1]) if g[1] else 1)
    if kind in ("zh_y", "en_y"):
        return at(int(g[0]))
    if day is None:
        return None  # everything below is relative to the message time
    if kind == "en_m":
        month = _MONTHS[g[0].lower()]
        return at(day.year if month <= day.month else day.year - 1, month)
    if kind == "yesterday":
        return day - timedelta(days=1)
    if kind == "day_before":
        return day - timedelta(days=2)
    if kind == "en_rel":
        which = "this" if g[0].lower() == "this" else "last"
        return _relative(day, which, g[1].lower())
    if kind == "zh_rel":
        word = match.group(0)
        if word in ("去年", "前年", "今年"):
            return day.replace(year=day.year - {"去年": 1, "前年": 2, "今年": 0}[word], month=1,
                               day=1)
        unit = "month" if "月" in word else "week"
        return _relative(day, "last" if "上" in word else "this", unit)
    if kind in ("en_ago", "en_for"):
        n = _en_number(g[0])
        return None if n is None else _minus(day, n, _UNIT_EN[g[1].lower()])
    if kind in ("zh_ago", "zh_for"):
        n = _zh_number(g[0])
        return None if n is None else _minus(day, n, _UNIT_ZH[g[1]])
    return None


def resolve_time(text: str, anchor: datetime | None) -> datetime | None:
    """The start time ``text`` states, resolved against ``anchor``; None when it states none.

    Absolute dates resolve without an anchor (in UTC); relative ones need it.
    """
    tz = aware(anchor).tzinfo if anchor is not None else UTC
    day = None
    if anchor is not None:
        a = aware(anchor)
        day = datetime(a.year, a.month, a.day, tzinfo=a.tzinfo)
    found: list[tuple[int, int, re.Match[str], str]] = []
    for order, (regex, kind) in enumerate(_PATTERNS):
        m = regex.search(text)
        if m:
            found.append((m.start(), order, m, kind))
    for _, _, m, kind in sorted(found, key=lambda f: (f[0], f[1])):
        try:
            when = _resolve(m, kind, day, tz)
        except (OverflowError, ValueError):  # "3 years ago" in year 1: no such time
            continue
        if when is None:
            continue
        if anchor is not None and when > aware(anchor):
            return None
        return when
    return None


# Time phrases an object must not swallow: "moved to Berlin last year" -> "Berlin".
TIME_PHRASE_EN = re.compile(
    rf"\s*(?:,\s*)?\b(?:since|back in|as of|starting)\b.*$"
    rf"|\s+\b(?:in|from|during)\s+(?:early\s+|late\s+)?(?:(?:19|20)\d{{2}}|{_MONTH_RE})\b.*$"
    rf"|\s+\b(?:last|this|next|past)\s+(?:week|month|year|summer|winter|spring|fall|autumn|"
    rf"weekend|semester|quarter)\b.*$"
    rf"|\s+\b(?:(?:{_EN_NUM_RE}|a\s+few|a\s+couple\s+of|several|many|some)\s+)?"
    rf"(?:day|week|month|year|decade)s?\s+ago\b.*$"
    rf"|\s+\b(?:ages|a\s+while|a\s+long\s+time|long)\s+(?:ago|back)\b.*$"
    rf"|\s+\bfor\s+(?:the\s+(?:past|last)\s+)?(?:{_EN_NUM_RE}|several|many|a few)\s+"
    rf"(?:day|week|month|year)s?\b.*$"
    rf"|\s+\b(?:yesterday|today|tomorrow|recently|lately|nowadays|these days|right now|"
    rf"just now|now|soon|"
    rf"someday|eventually|at some point)\b.*$"
    rf"|\s+\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b.*$",
    re.IGNORECASE,
)

TIME_WORD_ZH = (
    r"(?:(?:从|自从|自)?\s*(?:去年|前年|今年|明年|后年|上个?月|下个?月|这个月|本月|上个?星期|下个?星期|"
    r"上周|下周|这周|本周|(?:上个?|这个?|每个?)?周末|昨天|前天|今天|明天|最近|近期|前段时间|前阵子|前几天|前两天|前些天|前一阵子?|"
    r"以后|将来|未来|年底|年初|月底|之后|马上|早就|"
    r"\d{4}\s*年(?:\s*\d{1,2}\s*月)?(?:\s*\d{1,2}\s*[日号])?|"
    rf"(?:{_ZH_NUM_RE})\s*(?:个星期|星期|个月|天|周|年)(?:多)?(?:之|以)?前)(?:开始|起|以来)?|"
    rf"(?:了|已经)?\s*(?:{_ZH_NUM_RE})\s*(?:个星期|星期|个月|天|周|年)(?:多)?了?)"
)
