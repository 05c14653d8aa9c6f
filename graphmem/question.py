"""Reading a recall question: its content words, the people it names, whether it asks
about time, and whether a memory's text states a time.

Cheap string work (regular expressions), run on every question and, for when-questions,
on every candidate.
"""

from __future__ import annotations

import re

from graphmem._speakers import labelled_by
from graphmem.store.base import Row

# Function words of English questions; what remains carries the topic.
_STOPWORDS = frozenset("""
a about above after again all also am an and any are as at be because been before being
below between both but by can could did do does doing done down during each even ever few
for from further get gets got had has have having he her here hers herself him himself his
how i if in into is it its itself just kind like likely many may me might more most much
must my myself no nor not now of off on once one only or other our ours ourselves out over
own really same say said she should since so some such than that the their theirs them
themselves then there these they thing things this those through to too under until up upon
us very was way we were what whats when where which while who whom whose why will with
would you your yours yourself yourselves s t ve ll d re m
""".split())


def content_words(text: str) -> str:
    """``text`` without function words (the full-text query is an OR of its words)."""
    words = re.findall(r"\w+(?:['’]\w+)?", text)
    kept = [w for w in words
            if re.sub(r"['’]\w*$", "", w).casefold() not in _STOPWORDS]
    return " ".join(kept) if kept else text


def name_pattern(name: str) -> re.Pattern[str]:
    """A name as a whole word (possessive allowed); CJK names as a plain substring."""
    if re.search(r"[\u3040-\u30ff\u3400-\u9fff]", name):
        return re.compile(re.escape(name))
    return re.compile(r"(?<![\w])" + re.escape(name) + r"(?:['’]s)?(?![\w])", re.IGNORECASE)


def without_names(text: str, names: list[str]) -> str:
    out = text
    for name in names:
        out = name_pattern(name).sub(" ", out)
    out = re.sub(r"\s+([?.!,;:])", r"\1", " ".join(out.split())).strip()
    return out if re.search(r"\w", out) else text


def is_named(label: str, row: Row, names: list[str]) -> bool:
    """Is this memory said by (episode) or about (relation, entity) a named person?"""
    if not names:
        return False
    if label == "Episode":
        who = row.get("speaker")
        if not who and "\n" in str(row.get("content") or ""):
            # a conversation window sent as lines "Name: text": said by whoever heads one
            return any(labelled_by(str(row["content"]), n) for n in names)
    elif label == "Relation":
        who = row.get("subject")
    elif label == "Entity":
        who = row.get("name")
    else:
        return False
    if not who:
        return False
    folded = str(who).casefold()
    return any(folded == n.casefold() for n in names)


# A statement that places something in time: dates, weekdays, relative days and periods,
# durations. Cheap (a regex), since it runs on every candidate of a when-question.
_MONTH = (r"jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|june|july|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")
_UNIT = r"(?:day|night|week|weekend|month|year|decade|summer|winter|spring|fall|autumn)s?"
_NUMBER = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|few|several)"
_TIME_EN = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|weekend|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|" + _MONTH + r"|"
    r"(?:last|next|this|past|coming|previous)\s+" + _UNIT + r"|"
    r"(?:for|over|since|about|almost|nearly)\s+" + _NUMBER + r"\s+" + _UNIT + r"|"
    r"(?:19|20)\d\d)\b", re.IGNORECASE)
_TIME_MAY = re.compile(r"\bMay\b|\bmay\s+\d")  # "May" the month, not "may" the verb
_TIME_ZH = re.compile(r"昨天|今天|明天|前天|后天|去年|今年|明年|前年|上周|下周|本周|"
                      r"上个?月|下个?月|星期|礼拜|周[一二三四五六日天]|\d+\s*[年月日号]|"
                      r"[一二三四五六七八九十两几]+(?:天|周|个月|年)")


DURATION_QUESTION = re.compile(
    r"\bhow\s+long\b|\bhow\s+many\s+(?:days|weeks|months|years)\b|多久|多长时间", re.IGNORECASE)


def states_time(text: str) -> bool:
    return bool(_TIME_EN.search(text) or _TIME_MAY.search(text) or _TIME_ZH.search(text))
