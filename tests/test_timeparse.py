"""Timestamps and time windows: formats, phrases, boundaries, Chinese."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from graphmem.errors import InvalidInputError
from graphmem.timeparse import (
    FAR_PAST,
    TimeWindow,
    is_when_question,
    parse_timestamp,
    resolve_relative_mention,
    resolve_window,
    strip_window,
)

# Wednesday 18 June 2025, 15:30 UTC
REF = datetime(2025, 6, 18, 15, 30, tzinfo=UTC)
CST = timezone(timedelta(hours=8))


def d(*parts: int, tz: timezone = UTC) -> datetime:
    return datetime(*parts, tzinfo=tz)  # type: ignore[misc]


# --------------------------------------------------------------------------- parse_timestamp


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2023-05-08T13:56:00Z", d(2023, 5, 8, 13, 56)),
        ("2023-05-08T13:56:00+08:00", d(2023, 5, 8, 13, 56, tz=CST)),
        ("2023-05-08T13:56:00.250000", d(2023, 5, 8, 13, 56, 0, 250000)),
        ("2023-05-08", d(2023, 5, 8)),
        ("20230508", d(2023, 5, 8)),
        ("1:56 pm on 8 May, 2023", d(2023, 5, 8, 13, 56)),
        ("10:37 am on 27 June, 2023", d(2023, 6, 27, 10, 37)),
        ("12:05 am on 1 January, 2024", d(2024, 1, 1, 0, 5)),
        ("12:30 pm on 1 January, 2024", d(2024, 1, 1, 12, 30)),
        ("2023/05/20 (Sat) 00:44", d(2023, 5, 20, 0, 44)),
        ("2023/05/20 00:44", d(2023, 5, 20, 0, 44)),
        ("2023-05-20 00:44", d(2023, 5, 20, 0, 44)),
        ("May 8, 2023", d(2023, 5, 8)),
        ("May 8th, 2023 at 3pm", d(2023, 5, 8, 15)),
        ("8 May 2023", d(2023, 5, 8)),
        ("Monday, May 8, 2023 9:15 PM", d(2023, 5, 8, 21, 15)),
        ("Sat, 20 May 2023 00:44:00 +0000", d(2023, 5, 20, 0, 44)),
        ("8 May 2023 14:00 GMT+8", d(2023, 5, 8, 14, tz=CST)),
        ("2023/05/20 00:44 UTC", d(2023, 5, 20, 0, 44)),
        ("2023年5月8日 14:30", d(2023, 5, 8, 14, 30)),
        ("2023年5月8日", d(2023, 5, 8)),
        ("2023年5月8日 下午2点30分", d(2023, 5, 8, 14, 30)),
        ("2023年5月8日 星期一 上午9:05", d(2023, 5, 8, 9, 5)),
        ("25/12/2023", d(2023, 12, 25)),
        (1684539840, d(2023, 5, 19, 23, 44)),
        (1684539840.5, d(2023, 5, 19, 23, 44, 0, 500000)),
        (1684539840000, d(2023, 5, 19, 23, 44)),
        (1684539840000000, d(2023, 5, 19, 23, 44)),
        ("1684539840", d(2023, 5, 19, 23, 44)),
        ("1684539840000", d(2023, 5, 19, 23, 44)),
        (date(2023, 5, 8), d(2023, 5, 8)),
        (d(2023, 5, 8, 1, tz=CST), d(2023, 5, 8, 1, tz=CST)),
    ],
)
def test_parse_timestamp_formats(value: object, expected: datetime) -> None:
    got = parse_timestamp(value)  # type: ignore[arg-type]
    assert got.tzinfo is not None
    assert got == expected
    assert got.utcoffset() == expected.utcoffset()


def test_naive_values_get_the_default_zone() -> None:
    assert parse_timestamp("2023-05-08 10:00", default_tz=CST) == d(2023, 5, 8, 10, tz=CST)
    assert parse_timestamp(datetime(2023, 5, 8), default_tz=CST).utcoffset() == timedelta(hours=8)
    assert parse_timestamp("1:56 pm on 8 May, 2023", default_tz=CST).utcoffset() == timedelta(
        hours=8
    )
    # an explicit offset wins over the default
    assert parse_timestamp("2023-05-08T10:00Z", default_tz=CST).utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "next tuesday maybe",
        "hello 2023-05-08",
        "2023-02-30",
        "13:00 pm on 8 May, 2023",
        "05/06/2023",  # d/m or m/d: refused rather than guessed
        "May 8",  # no year
        float("nan"),
        float("inf"),
        True,
        10**30,
        [2023, 5, 8],
    ],
)
def test_parse_timestamp_errors_name_the_field(value: object) -> None:
    with pytest.raises(InvalidInputError) as info:
        parse_timestamp(value)  # type: ignore[arg-type]
    assert info.value.field == "occurredAt"
    with pytest.raises(InvalidInputError) as info:
        parse_timestamp(value, field="messages[3].occurredAt")  # type: ignore[arg-type]
    assert info.value.field == "messages[3].occurredAt"


# --------------------------------------------------------------------------- resolve_window


@pytest.mark.parametrize(
    ("query", "start", "end", "kind", "phrase"),
    [
        ("What did I do last year?", d(2024, 1, 1), d(2025, 1, 1), "year", "last year"),
        ("What happened this year?", d(2025, 1, 1), d(2026, 1, 1), "year", "this year"),
        ("What did I read in 2024?", d(2024, 1, 1), d(2025, 1, 1), "year", "in 2024"),
        ("things from the year 2020", d(2020, 1, 1), d(2021, 1, 1), "year", "the year 2020"),
        ("Where was I in March 2025?", d(2025, 3, 1), d(2025, 4, 1), "month", "in March 2025"),
        ("What did I buy in March?", d(2025, 3, 1), d(2025, 4, 1), "month", "in March"),
        ("What did I buy in June?", d(2025, 6, 1), d(2025, 7, 1), "month", "in June"),
        ("What did I buy in July?", d(2024, 7, 1), d(2024, 8, 1), "month", "in July"),
        ("trips in Sept. 2019", d(2019, 9, 1), d(2019, 10, 1), "month", "in Sept. 2019"),
        ("What did I cook last month?", d(2025, 5, 1), d(2025, 6, 1), "month", "last month"),
        ("this month", d(2025, 6, 1), d(2025, 7, 1), "month", "this month"),
        ("last week", d(2025, 6, 9), d(2025, 6, 16), "week", "last week"),
        ("this week", d(2025, 6, 16), d(2025, 6, 23), "week", "this week"),
        ("next week", d(2025, 6, 23), d(2025, 6, 30), "week", "next week"),
        ("What did I eat yesterday?", d(2025, 6, 17), d(2025, 6, 18), "day", "yesterday"),
        ("today", d(2025, 6, 18), d(2025, 6, 19), "day", "today"),
        ("the day before yesterday", d(2025, 6, 16), d(2025, 6, 17), "day",
         "the day before yesterday"),
        ("two weeks ago", d(2025, 6, 2), d(2025, 6, 9), "week", "two weeks ago"),
        ("3 days ago", d(2025, 6, 15), d(2025, 6, 16), "day", "3 days ago"),
        ("eleven days ago", d(2025, 6, 7), d(2025, 6, 8), "day", "eleven days ago"),
        ("a month ago", d(2025, 5, 1), d(2025, 6, 1), "month", "a month ago"),
        ("twelve months ago", d(2024, 6, 1), d(2024, 7, 1), "month", "twelve months ago"),
        ("two years ago", d(2023, 1, 1), d(2024, 1, 1), "year", "two years ago"),
        ("a couple of weeks ago", d(2025, 6, 2), d(2025, 6, 9), "week", "a couple of weeks ago"),
        ("a few weeks ago", d(2025, 5, 12), d(2025, 6, 9), "range", "a few weeks ago"),
        ("since 2023", d(2023, 1, 1), REF, "after", "since 2023"),
        ("since last year", d(2024, 1, 1), REF, "after", "since last year"),
        ("after 2022", d(2023, 1, 1), REF, "after", "after 2022"),
        ("before 2022", FAR_PAST, d(2022, 1, 1), "before", "before 2022"),
        ("until last month", FAR_PAST, d(2025, 6, 1), "before", "until last month"),
        ("between 2019 and 2021", d(2019, 1, 1), d(2022, 1, 1), "range", "between 2019 and 2021"),
        ("from March 2023 to May 2023", d(2023, 3, 1), d(2023, 6, 1), "range",
         "from March 2023 to May 2023"),
        ("jobs 2019-2021", d(2019, 1, 1), d(2022, 1, 1), "range", "2019-2021"),
        ("in the summer of 2022", d(2022, 6, 1), d(2022, 9, 1), "season", "in the summer of 2022"),
        ("winter 2022", d(2022, 12, 1), d(2023, 3, 1), "season", "winter 2022"),
        ("last summer", d(2024, 6, 1), d(2024, 9, 1), "season", "last summer"),
        ("early 2023", d(2023, 1, 1), d(2023, 7, 1), "part", "early 2023"),
        ("late 2023", d(2023, 7, 1), d(2024, 1, 1), "part", "late 2023"),
        ("mid-2023", d(2023, 4, 1), d(2023, 10, 1), "part", "mid-2023"),
        ("early March 2024", d(2024, 3, 1), d(2024, 3, 11), "part", "early March 2024"),
        ("recently", REF - timedelta(days=30), REF, "recent", "recently"),
        ("in the past 3 months", d(2025, 3, 18, 15, 30), REF, "rolling", "in the past 3 months"),
        ("over the past week", d(2025, 6, 11, 15, 30), REF, "rolling", "over the past week"),
        ("the last year", d(2024, 6, 18, 15, 30), REF, "rolling", "the last year"),
        ("earlier this year", d(2025, 1, 1), REF, "range", "earlier this year"),
        ("last Saturday", d(2025, 6, 14), d(2025, 6, 15), "day", "last Saturday"),
        ("last Wednesday", d(2025, 6, 11), d(2025, 6, 12), "day", "last Wednesday"),
        ("on Monday", d(2025, 6, 16), d(2025, 6, 17), "day", "on Monday"),
        ("last weekend", d(2025, 6, 14), d(2025, 6, 16), "weekend", "last weekend"),
        ("on May 8, 2023", d(2023, 5, 8), d(2023, 5, 9), "day", "on May 8, 2023"),
        ("on 8 May 2023", d(2023, 5, 8), d(2023, 5, 9), "day", "on 8 May 2023"),
        ("on May 8", d(2025, 5, 8), d(2025, 5, 9), "day", "on May 8"),
        ("on December 25", d(2024, 12, 25), d(2024, 12, 26), "day", "on December 25"),
        ("on 2023-05-08", d(2023, 5, 8), d(2023, 5, 9), "day", "on 2023-05-08"),
    ],
)
def test_english_windows(
    query: str, start: datetime, end: datetime, kind: str, phrase: str
) -> None:
    w = resolve_window(query, REF)
    assert w is not None, query
    assert (w.start, w.end, w.kind, w.phrase) == (start, end, kind, phrase)
    assert w.start.tzinfo is not None and w.end.tzinfo is not None


@pytest.mark.parametrize(
    ("query", "start", "end", "kind"),
    [
        ("去年我去了哪里？", d(2024, 1, 1), d(2025, 1, 1), "year"),
        ("今年读了什么书", d(2025, 1, 1), d(2026, 1, 1), "year"),
        ("前年", d(2023, 1, 1), d(2024, 1, 1), "year"),
        ("上个月吃了什么", d(2025, 5, 1), d(2025, 6, 1), "month"),
        ("这个月", d(2025, 6, 1), d(2025, 7, 1), "month"),
        ("上周", d(2025, 6, 9), d(2025, 6, 16), "week"),
        ("昨天", d(2025, 6, 17), d(2025, 6, 18), "day"),
        ("今天", d(2025, 6, 18), d(2025, 6, 19), "day"),
        ("前天", d(2025, 6, 16), d(2025, 6, 17), "day"),
        ("三天前", d(2025, 6, 15), d(2025, 6, 16), "day"),
        ("两周前", d(2025, 6, 2), d(2025, 6, 9), "week"),
        ("三个月前", d(2025, 3, 1), d(2025, 4, 1), "month"),
        ("十二天前", d(2025, 6, 6), d(2025, 6, 7), "day"),
        ("半年前", d(2024, 12, 1), d(2025, 1, 1), "month"),
        ("2024年发生了什么", d(2024, 1, 1), d(2025, 1, 1), "year"),
        ("2025年3月", d(2025, 3, 1), d(2025, 4, 1), "month"),
        ("2023年5月8日", d(2023, 5, 8), d(2023, 5, 9), "day"),
        ("3月份", d(2025, 3, 1), d(2025, 4, 1), "month"),
        ("十二月", d(2024, 12, 1), d(2025, 1, 1), "month"),
        ("2023年以来", d(2023, 1, 1), REF, "after"),
        ("2022年以前", FAR_PAST, d(2022, 1, 1), "before"),
        ("2019年到2021年", d(2019, 1, 1), d(2022, 1, 1), "range"),
        ("2022年夏天", d(2022, 6, 1), d(2022, 9, 1), "season"),
        ("2023年下半年", d(2023, 7, 1), d(2024, 1, 1), "part"),
        ("最近", REF - timedelta(days=30), REF, "recent"),
        ("过去三个月", d(2025, 3, 18, 15, 30), REF, "rolling"),
        ("近三天", d(2025, 6, 15, 15, 30), REF, "rolling"),
        ("几天前", d(2025, 6, 13), d(2025, 6, 17), "range"),
        ("上周六", d(2025, 6, 14), d(2025, 6, 15), "day"),
        ("上周末", d(2025, 6, 14), d(2025, 6, 16), "weekend"),
    ],
)
def test_chinese_windows(query: str, start: datetime, end: datetime, kind: str) -> None:
    w = resolve_window(query, REF)
    assert w is not None, query
    assert (w.start, w.end, w.kind) == (start, end, kind)


@pytest.mark.parametrize(
    "query",
    [
        "What is my favourite colour?",
        "When did I start learning Rust?",
        "May I ask what I usually eat for breakfast?",
        "I ran 2024 meters and drank 500 ml",
        "What's the status of ticket 2023?",
        "Who is my manager at Acme?",
        "我喜欢什么颜色？",
        "一个月有多少天",
        "接近月底了",
        "每周三我去游泳",
        "I'm reading a book on the fall of Rome",
        "I bought 3 shirts for 2020 dollars",
        "Let's meet in a week",
        "I've been vegan for two years",
        "",
    ],
)
def test_no_window(query: str) -> None:
    assert resolve_window(query, REF) is None


def test_month_and_year_boundaries() -> None:
    jan = d(2024, 1, 15, 9)
    assert _span("last month", jan) == (d(2023, 12, 1), d(2024, 1, 1))
    assert _span("this month", jan) == (d(2024, 1, 1), d(2024, 2, 1))
    assert _span("last year", jan) == (d(2023, 1, 1), d(2024, 1, 1))
    assert _span("in December", jan) == (d(2023, 12, 1), d(2024, 1, 1))
    assert _span("last week", d(2024, 1, 3)) == (d(2023, 12, 25), d(2024, 1, 1))
    assert _span("next month", d(2024, 12, 31, 23)) == (d(2025, 1, 1), d(2025, 2, 1))
    assert _span("this winter", jan) == (d(2023, 12, 1), d(2024, 3, 1))
    assert _span("上个月", d(2024, 1, 1)) == (d(2023, 12, 1), d(2024, 1, 1))


def test_leap_years() -> None:
    leap_day = d(2024, 2, 29, 12)
    assert _span("last year", leap_day) == (d(2023, 1, 1), d(2024, 1, 1))
    assert _span("a month ago", d(2024, 3, 31)) == (d(2024, 2, 1), d(2024, 3, 1))
    assert _span("in February 2024", leap_day) == (d(2024, 2, 1), d(2024, 3, 1))
    assert _span("in February 2023", leap_day) == (d(2023, 2, 1), d(2023, 3, 1))
    # "on Feb 29" resolves to the latest leap day, even from a non-leap year
    assert _span("on Feb 29", d(2026, 3, 1)) == (d(2024, 2, 29), d(2024, 3, 1))
    assert resolve_relative_mention("a year ago", leap_day) == d(2023, 2, 28, 12)
    assert resolve_relative_mention("in 4 years", leap_day) is None  # future offsets: no rule


def test_reference_zone_is_kept_and_naive_reference_is_utc() -> None:
    ref = datetime(2025, 6, 18, 1, 0, tzinfo=CST)  # still 17 June in UTC
    w = resolve_window("yesterday", ref)
    assert w is not None and w.start == d(2025, 6, 17, tz=CST)
    w = resolve_window("yesterday", datetime(2025, 6, 18, 1, 0))
    assert w is not None and w.start == d(2025, 6, 17)


def test_longest_expression_wins() -> None:
    w = resolve_window("what did I do since last year?", REF)
    assert w is not None and w.kind == "after" and w.phrase == "since last year"
    w = resolve_window("in March 2023", REF)
    assert w is not None and w.kind == "month" and w.start == d(2023, 3, 1)


@pytest.mark.parametrize(("query", "start", "end"), [
    # a span next to an anchor, on the side named
    ("Where was Tim in the week before 16 November 2023?", d(2023, 11, 9), d(2023, 11, 16)),
    ("what did I do the day after May 3, 2023", d(2023, 5, 4), d(2023, 5, 5)),
    ("the month before March 2023", d(2023, 2, 1), d(2023, 3, 1)),
    # Tuesday 25 October 2022: the Sunday before is the 23rd; a Sunday edge is no Sunday
    # before itself
    ("shown on the Sunday before October 25, 2022?", d(2022, 10, 23), d(2022, 10, 24)),
    ("the Sunday before October 23, 2022", d(2022, 10, 16), d(2022, 10, 17)),
    # Monday 10 April 2023: the weekend before is the 8th and 9th; after Wednesday 3 May
    # 2023 it is the 6th and 7th
    ("What did Maria do last weekend before April 10, 2023?", d(2023, 4, 8), d(2023, 4, 10)),
    ("the weekend after May 3, 2023", d(2023, 5, 6), d(2023, 5, 8)),
    # a part of an anchor
    ("Which country was Tim visiting in the second week of November 2023?",
     d(2023, 11, 8), d(2023, 11, 15)),
    ("the last week of May 2023", d(2023, 5, 25), d(2023, 6, 1)),
    ("the first half of September 2022", d(2022, 9, 1), d(2022, 9, 16)),
    ("the second half of 2022", d(2022, 7, 2), d(2023, 1, 1)),
])
def test_spans_next_to_and_parts_of_an_anchor(query: str, start: datetime,
                                              end: datetime) -> None:
    w = resolve_window(query, REF)
    assert w is not None and (w.start, w.end, w.kind) == (start, end, "range"), w


def test_a_phrase_that_is_an_anchor_keeps_its_kind() -> None:
    w = resolve_window("the day before yesterday", REF)
    assert w is not None and (w.start, w.end, w.kind) == (d(2025, 6, 16), d(2025, 6, 17), "day")
    # "the second week of 2023" is no week of a month (and a bare year is no anchor);
    # the weekend before a bare "Sunday" is not made up
    assert resolve_window("the second week of 2023", REF) is None
    w = resolve_window("the weekend before Sunday, April 9, 2023", REF)
    assert w is not None and w.kind != "range"


def test_time_window_contains_is_half_open() -> None:
    w = TimeWindow(start=d(2024, 1, 1), end=d(2025, 1, 1), phrase="in 2024", kind="year")
    assert w.contains(d(2024, 1, 1)) and w.contains(d(2024, 12, 31, 23, 59))
    assert not w.contains(d(2025, 1, 1))


def _span(query: str, ref: datetime) -> tuple[datetime, datetime]:
    w = resolve_window(query, ref)
    assert w is not None, query
    return w.start, w.end


# --------------------------------------------------------------------------- strip_window


@pytest.mark.parametrize(
    ("query", "stripped"),
    [
        ("What did I buy last week?", "What did I buy?"),
        ("What did I read in 2024?", "What did I read?"),
        ("Where did I travel in the summer of 2022 with Anna?", "Where did I travel with Anna?"),
        ("Two weeks ago, what did I cook?", ", what did I cook?"),
        ("去年我去了哪里？", "我去了哪里？"),
    ],
)
def test_strip_window(query: str, stripped: str) -> None:
    w = resolve_window(query, REF)
    assert w is not None
    assert strip_window(query, w) == stripped


def test_strip_window_without_phrase_is_identity() -> None:
    w = TimeWindow(start=d(2024, 1, 1), end=d(2025, 1, 1))
    assert strip_window("what happened?", w) == "what happened?"


# --------------------------------------------------------------------------- questions & mentions


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("When did I start learning Rust?", True),
        ("when was the wedding", True),
        ("What year did I move to Berlin?", True),
        ("What date is the dentist appointment?", True),
        ("How long ago did I adopt the pup?", True),
        ("Do you remember when I bought the car?", True),
        ("我什么时候开始学Rust的？", True),
        ("我哪年搬家的", True),
        ("何时开始", True),
        ("What is my favourite colour?", False),
        ("What did I say when I was in Paris?", False),
        ("我喜欢什么颜色？", False),
    ],
)
def test_is_when_question(query: str, expected: bool) -> None:
    assert is_when_question(query) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I adopted a pup last week", d(2025, 6, 11, 15, 30)),
        ("yesterday I went to the gym", d(2025, 6, 17, 15, 30)),
        ("two years ago I moved to Berlin", d(2023, 6, 18, 15, 30)),
        ("Three days ago I broke my phone", d(2025, 6, 15, 15, 30)),
        ("last Saturday we hiked", d(2025, 6, 14)),
        ("I started at Acme in March 2023", d(2023, 3, 1)),
        ("I have lived here since 2019", d(2019, 1, 1)),
        ("next week I fly to Tokyo", d(2025, 6, 25, 15, 30)),
        ("我上周六去爬山了", d(2025, 6, 14)),
        ("半年前我换了工作", d(2024, 12, 18, 15, 30)),
        ("昨天我去了超市", d(2025, 6, 17, 15, 30)),
        ("before 2020 I lived in Paris", None),
        ("recently I started running", None),
        ("I like green tea", None),
    ],
)
def test_resolve_relative_mention(text: str, expected: datetime | None) -> None:
    assert resolve_relative_mention(text, REF) == expected


def test_far_past_is_storable() -> None:
    # the stores keep epoch milliseconds; the open start must survive the conversion
    assert int(FAR_PAST.timestamp() * 1000) < 0
