"""When does one message restate a fact another message stated, with a new value?

Pure text rules, English and Chinese, used by ``_episode_versions`` on pairs of a user's
episodes (the candidates come from the vector and full-text indexes). A message is read
once into a ``Said``: is it a statement (not a question, not a request to the assistant),
its value tokens (numbers, dates, names written with capitals or in Latin script inside
Chinese), its attribute words (what it is about: its analysed terms without the values
and without single Chinese characters), the words of the value it says was replaced
("from X to Y", "instead of X", "从X换成Y", "不喝X了") and whether it says that something
changed ("switched", "moved to", "no longer", 换成, 推迟, 搬到...).

``judge(newer, older)`` links two statements when the newer one says that something
changed and they share what they are about while their values differ, conservatively
(precision first: a filler message must not replace a fact):

* a number or a date changed, beside two shared attribute words or one and the same unit
  ("1200 dollars" -> "1450 dollars");
* the newer message names the older one's value as the one replaced ("from Lisbon to
  Denver", "不在星辰科技干了");
* names differ and the newer message names the older one's too ("X moved to another team
  and my new boss is Y"), or, for two one-sentence messages, their embeddings agree;
* "I have never used X" against a statement that the user did use X: a contradiction.

Each link carries its reason: which words made the attribute, which values differ.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from graphmem._timestamps import WEEKDAYS
from graphmem.extract._text import SURNAMES_ZH
from graphmem.store._text_terms import analyse

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAS_CJK = re.compile(f"[{_CJK}]")

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?" \
         r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DATE_EN = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"
                      rf"|\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b", re.I)
_DATE_ZH = re.compile(r"(\d{1,2})月(\d{1,2})[日号]")
_NUMBER = re.compile(r"(?<![0-9A-Za-z.])(\d+(?:[.,]\d+)*)(?:\s*(%|[a-zA-Z]+|[" + _CJK + r"]))?")
# A run of capitalised (or Latin, inside Chinese) words: a name.
_NAME_EN = re.compile(r"\b[A-Z][\w'&.-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w'&.-]*)*")
_LATIN_IN_ZH = re.compile(r"[A-Za-z][A-Za-z0-9+#.\-]*(?:\s+[A-Za-z0-9][A-Za-z0-9+#.\-]*)*")
_CLAUSE_START = re.compile(r"(?:^|[.!?;:,\u3002\uff01\uff1f\uff1b\uff1a\"“(]\s*)$")
# A short lead-in ("Update:", "Quick note:", 更新一下：, "Anyway,") says nothing about what a
# message is about; words of time and talk ("this week", 今天) neither.
_LEAD_IN = re.compile(r"^\s*(?:[A-Za-z]+(?:\s+[A-Za-z]+)?|[\u4e00-\u9fff]{1,4})"
                      r"\s*[:,\uff1a\uff0c]\s*")
_GENERIC = frozenset("""
today tonight tomorrow yesterday week weekend month year day time
now still new old just realli actual final also alway never ever thing lot bit much mani
got get go went come came make made take took say said tell told know think want need
pay paid spend spent
like feel look one two first last next anoth again turn
everi daili usual often sometim morn evening night
今天 明天 昨天 今晚 晚上 早上 下午 上午 这周 上周 周末 今年 去年 明年 最近 现在 如今 目前
以后 之后 已经 还是 一下 一直 终于 真的 其实 觉得 知道 时候 一个 一起 感觉 可以 开始
每天 每周 每月 每年 每晚 每次 平时 经常 通常 周一 周二 周三 周四 周五 周六 周日 星期
总是 老是 有时 有时候 偶尔 补充 一点 背景 顺便 一句 另外 对了
个月 个星 星期 礼拜 这个 那个 几个 两个 三个 这些 那些 一些 什么 怎么 没有 因为 所以
但是 不过 还有 如果 虽然 可能 应该 需要 我们 他们 自己
""".split())
_NOT_NAMES = frozenset(("i", "i'm", "i've", "i'd", "i'll", "ok", "okay", "tv"))

# Questions and requests to the assistant state no fact of the user.
_QUESTION_END = re.compile(r"[?\uff1f]\s*$|[吗呢吧]\s*[。.!！]?\s*$")
_REQUEST_EN = re.compile(
    r"^\s*(?:(?:can|could|would|will) you|please|give me|tell me|show me|help me|write|"
    r"draft|summari[sz]e|explain|list|describe|translate|compare|suggest|recommend|"
    r"what|which|who|when|where|why|how|is|are|do|does|did|should|let's)\b", re.I)
_REQUEST_ZH = re.compile(r"^\s*(?:请|帮我|给我|能不能|能否|可以|麻烦|你能|能用|总结|解释|写|列出)")

# Words saying a value changed (the newer message of a pair must say one for a name).
_CHANGE_EN = re.compile(
    r"\b(?:switch(?:ed|ing)?|chang(?:ed|ing)|mov(?:ed|ing) (?:to|from|back)|relocat(?:ed|ing)|"
    r"migrat(?:ed|ing)|instead|no longer|upgrad(?:ed|ing)|downgrad(?:ed|ing)|renew(?:ed|ing)|"
    r"sold|bought|grew|"
    r"shrank|shrunk|went (?:part|full)[- ]time|remortgag(?:ed|ing)|refinanc(?:ed|ing)|adopted|"
    r"passed (?:the|my)|not any ?more|any ?more|(?:given|gave) up|dropped|quit|left (?:my|the)|"
    r"start(?:ed|ing) (?:at|with|working)|joined|bump(?:ed)? (?:up|to)|bumped|swapped|"
    r"took over|settled in|(?:my|our|the) new(?! year)|new (?:job|manager|boss|"
    r"lease|place|home|address|team|role|deadline|number|plan)|rais(?:ed|ing)|lower(?:ed|ing)|"
    r"increas(?:ed|ing)|decreas(?:ed|ing)|went (?:up|down|from)|goes (?:up|down|from)|"
    r"pushed (?:back|to|out)|postponed|rescheduled|moved up|replac(?:ed|ing)|"
    r"these days|nowadays|from now on|used to|anymore|correction|extended|shortened|"
    r"handed (?:\w+ ){0,4}over)\b", re.I)
_CHANGE_ZH = re.compile(
    r"换成|换到|换了|改成|改到|改为|改了|改(?:喝|吃|用|骑|坐|去|住|穿|听|看|玩|学|练|叫)|推迟|延期|提前到|搬到|搬去|搬家|离职|跳槽|辞职|入职|"
    r"卖了|升级|降级|转到|转去|转学|转网|考过|扩招|"
    r"开始在|不再|调去|调到|调走|不[\u4e00-\u9fff]{1,8}了|从[^，。,]{1,16}?(?:到|成|为)|变成|"
    # moved (a meeting), turned into, adjusted to; a correction; from now on; these days
    r"挪到|挪去|移到|转成|转为|调整为|调整到|说错了|记错了|更正|以后就|今后|往后|从今以后|"
    r"这阵子|这些天|这段时间|近来|"
    r"新(?:的)?(?:领导|工作|公司|老板|合同|房子|地址|经理|上司)|涨|降到")
# "from X to Y", "instead of X", 从X换成Y, 不喝X了: X is the value replaced.
_OLD_EN = re.compile(r"\bfrom\s+(.{1,40}?)\s+to\b|\binstead of\s+([^,.;!?]{1,40})|"
                     r"\b(?:given|gave) up\s+([^,.;!?]{1,40})|\bswitched from\s+(.{1,40}?)\s+to\b",
                     re.I)
_OLD_ZH = re.compile(r"从([^，。,]{1,16}?)(?:换成|换到|改成|改到|改为|变成|涨到|降到|搬到|到|成)|"
                     r"不(?:在|用|喝|吃|住|做|去)([^，。,]{1,12}?)(?:干)?了")
# Never having done or used something.
_NEVER_EN = re.compile(r"\b(?:never|haven't ever|have not ever|not once|no (?:real |practical |"
                       r"hands-on )?experience (?:with|in))\b[^.;!?]{0,40}|"
                       r"[\w.+#-]+ (?:is|are) (?:completely |totally |entirely )?new to me\b",
                       re.I)
_NEVER_ZH = re.compile(r"(?:从来没|从没|从未|没碰过|没用过|没有用过|完全没)[^，。,]{0,20}")
#: sentences of one message the rules read
MAX_SENTENCES = 24
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(])|[\n\r]+|(?<=[\u3002\uff01\uff1f])")
# the clauses of a sentence: what a change word and the value it gives are said in
_CLAUSE = re.compile(r"\s*[,;:，；：]\s*")
_NEGATION = re.compile(r"\b(?:never|not|no|n't)\b|没|不", re.I)


@dataclass(frozen=True, slots=True)
class Said:
    """What one message says, as the version rules read it."""

    id: str
    occurred: int  # epoch ms
    statement: bool
    about: frozenset[str]  # attribute words: analysed terms minus values and single CJK
    numbers: frozenset[tuple[str, str]]  # (number, unit) - unit "" when none
    dates: frozenset[str]  # "3-14"
    names: frozenset[str]  # case-folded names
    replaced: frozenset[str]  # terms of the value the message says was replaced
    change: bool  # says that something changed
    never: frozenset[str]  # names / terms it says the user never used or did
    negated: bool
    name_terms: frozenset[str] = frozenset()  # the analysed words of its names

    @property
    def values(self) -> frozenset[str]:
        return frozenset({n for n, _ in self.numbers} | self.dates | self.names)


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: str  # "SUPERSEDES" (newer -> older) or "DISPUTED"
    score: float
    reason: str


def read(node_id: str, text: str, occurred: int, role: str | None = None) -> Said:
    """Read a message once; an assistant's turn is never a statement of the user's."""
    text = " ".join(text.split())
    zh = bool(_HAS_CJK.search(text))
    statement = role != "assistant" and _is_statement(text)
    dates = _dates(text)
    blank = _DATE_ZH.sub(" ", _DATE_EN.sub(" ", text))
    numbers = {(m[1].replace(",", ""), _unit(m[2])) for m in _NUMBER.finditer(blank)}
    names = _latin_runs(blank) if zh else _names(blank)
    value_terms = {t for v in names for t in analyse(v)} | {n for n, _ in numbers}
    value_terms |= {u for _, u in numbers if u and not _HAS_CJK.search(u)}
    change_re = _CHANGE_ZH if zh else _CHANGE_EN
    topic = change_re.sub(" ", _LEAD_IN.sub(" ", blank, count=1))
    about = frozenset(t for t in analyse(topic)
                      if t not in value_terms and t not in _GENERIC and not t.isdigit()
                      and not (len(t) == 1 and _HAS_CJK.match(t)))
    replaced: set[str] = set()
    for m in (_OLD_ZH if zh else _OLD_EN).finditer(text):
        span = next(g for g in m.groups() if g)
        replaced.update(analyse(span))
        replaced.update(_dates(span))
    change = bool(change_re.search(text))
    never: set[str] = set()
    for m in (_NEVER_ZH if zh else _NEVER_EN).finditer(text):
        span = m[0]
        found = _latin_runs(span) if zh else _names(span, anywhere=True)
        never.update(found or {t for t in analyse(span) if len(t) > 1})
    return Said(node_id, occurred, statement, about, frozenset(numbers), frozenset(dates),
                frozenset(names), frozenset(replaced), change, frozenset(never),
                bool(_NEGATION.search(text)),
                frozenset(t for v in names for t in analyse(v)))


def says_change(text: str) -> bool:
    """Whether a message says that something changed ("switched to", 改喝, "no longer")."""
    return bool((_CHANGE_ZH if _HAS_CJK.search(text) else _CHANGE_EN).search(text))


_NOW = re.compile(r"\bnow\b|\bthese days\b|现在|如今|目前|眼下", re.I)
# a change with where it went ("switched to", "moved X to", 换成, 改喝): it gives a new value
# (for a stored link "from 9 to 5" or "up to 8 people" says too little; for two messages
# found for one question about now, it is enough: "I'm down to 4 vacation days")
# Chinese words of a change followed by where it went (换成X, 搬到X)
_TO_ZH = ("换成|换到|换了|改成|改到|改为|推到|搬到|调到|变成|涨到|降到|转投|迁到|转到|"
          "升级到|降级到|挪到|移到|转成|转为|调整为|调整到")
_CHANGE_TO = re.compile(
    r"\bfrom\s+\S+(?:\s+\S+){0,3}\s+to\s+\w|"
    r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|chang(?:ed|ing)|went|bump(?:ed)?|rais(?:ed|ing)|"
    r"lower(?:ed|ing)|push(?:ed)?|replac(?:ed|ing)|extended|shortened|handed|down|up|"
    r"upgrad(?:ed|ing)|downgrad(?:ed|ing)|renew(?:ed|ing)|grew|migrat(?:ed|ing))\s+"
    r"(?:[\w'-]+\s+){0,4}?(?:to|into|for|with|over)\s+\w|\binstead of\b|\bjoined\s+\w|"
    r"改[喝吃用骑坐去住穿听看玩学练]|" + _TO_ZH, re.I)
# where a change went, read as words: "downgraded Netflix to the basic plan" -> basic plan
_TARGET = re.compile(
    r"\b(?:to|into|for|with|over|joined)\s+(?:(?:an?|the|my|our)\s+)?(?P<en>[\w'-]+(?:\s+[\w'-]+)?)"
    r"|(?:" + _TO_ZH + r")了?(?P<zh>[^，。,.!！?？；;]{1,8})", re.I)
# numbers said in words: "grew to nine people", 七十五公斤 (a lone 一 or 十分 "very" is none)
_NUMBER_WORDS_EN = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|seventy|eighty|ninety|hundred|second|third|fourth|fifth)\b", re.I)
_NUMBER_ZH = re.compile(r"[零一二两三四五六七八九十百千万]{2,}(?!分)|[二两三四五六七八九十]"
                        r"(?=[点个位人只条辆台公斤千百万块元岁年天周次兆])")
# a person named by surname and title (李医生, 王老师), the names Chinese writes without
# capitals that a change of person names: "帮我做根管的是李医生" after "王医生那里"; not 于,
# a word of its own before a title (关于总结)
_TITLED_ZH = re.compile(f"[{SURNAMES_ZH.replace('于', '')}]"
                        f"(?:医生|大夫|老师|师傅|律师|教练|经理|主任|总)")


_HAN_RUN = re.compile(f"[{_CJK}]+")


def topic_terms(text: str) -> set[str]:
    """The analysed terms of ``text`` that can say what it is about: not words of time and
    talk, not numbers, not single Chinese characters; and the pairs of Han characters next
    to each other, for words the segmenter does not know (站会). A copy of the terms kept
    for the text: recall's stages read the same sentences one after another."""
    return set(_topic_terms(text))


@lru_cache(maxsize=8192)
def _topic_terms(text: str) -> frozenset[str]:
    terms = {t for t in analyse(text) if t not in _GENERIC and not t.isdigit()
             and not (len(t) == 1 and _HAS_CJK.match(t))}
    terms.update(p for p in _han_pairs(text) if p not in _GENERIC)
    return frozenset(terms)


def _han_pairs(text: str) -> list[str]:
    """Every pair of Han characters next to each other in ``text``."""
    return [run[i:i + 2] for run in _HAN_RUN.findall(text) for i in range(len(run) - 1)]


# how a message opens a side remark ("(Side note:", "Some background in case it matters:",
# "Unrelated, but", 补充一点背景：): no part of what it says
_OPENER = re.compile(
    r"(?i)^[\s(\[\"'\u201c\uff08]*(?:[A-Za-z][\w ,']{0,40}?:|(?:by the way|anyway|also|unrelated|"
    r"btw|fyi|oh|so|well|besides|incidentally|for context|for the record|just so you know|"
    r"side note|quick update|update)\s*,(?:\s*but\b)?|"
    r"(?:补充一点背景|补充一下背景|顺便说一句|顺便说一下|题外话|另外|先说点别的|背景|对了)[：:，,]?)\s*")
#: two gists sharing this share of their terms say the same thing again, not a new version
REPEAT_SHARE = 0.75


@dataclass(frozen=True, slots=True)
class Gist:
    """What ``restates`` reads of the part of a message that answers a question, read once
    per message (not once per pair): its topic terms and values, whether it says a change
    or "now" at all, and whether it says where the change went."""

    terms: frozenset[str]
    values: frozenset[str]
    changes: bool  # says a change or "now"
    goes_to: bool  # says where the change went ("switched to", 改喝)
    target: frozenset[str] = frozenset()  # the words of where it went ("the basic plan")
    words: frozenset[str] = frozenset()  # every term and Han pair, time words included
    #: the values of the sentences that say the change or "now" ("my savings account's
    #: interest rate dropped again. Current columns: ... 20th": no new value of savings)
    changed: frozenset[str] = frozenset()
    #: the terms of the clauses around each one that says the change or "now" (the one
    #: before it, the two after it): what the change is about
    near: frozenset[str] = frozenset()


def gist(text: str) -> Gist:
    """``text`` read for ``restates``, its opener ("Side note:", "By the way,") left out."""
    text = _OPENER.sub("", text, count=1)
    to = _CHANGE_TO.search(text)
    target: set[str] = set()
    if to is not None:
        m = _TARGET.search(text, to.start())
        if m is not None:
            target = _words(m["en"] or m["zh"] or "")
    values = value_tokens(text)
    changed: set[str] = set()
    near: set[str] = set()
    for part in _SENTENCE.split(text):
        if _changes(part):
            changed |= value_tokens(part)
            clauses = _CLAUSE.split(part)
            for i, clause in enumerate(clauses):
                if _changes(clause):
                    near.update(t for c in clauses[max(0, i - 1): i + 3] for t in topic_terms(c))
    return Gist(frozenset(topic_terms(text)), frozenset(values), _changes(text),
                to is not None, frozenset(target), frozenset(_words(text)), frozenset(changed),
                frozenset(near))


def _changes(text: str) -> bool:
    """Does ``text`` say a change, where it went or "now"?"""
    return _CHANGE_TO.search(text) is not None or says_change(text) \
        or _NOW.search(text) is not None


def value_tokens(text: str) -> set[str]:
    """The value tokens of ``text``, numbers said in words and Chinese numerals included."""
    values = set(read("gist", text, 0).values)
    values.update(w.lower() for w in _NUMBER_WORDS_EN.findall(text))
    values.update(_NUMBER_ZH.findall(text))
    values.update(_TITLED_ZH.findall(text))
    return values


def _words(text: str) -> set[str]:
    """Every analysed term of ``text`` and every pair of Han characters next to each other,
    words of time and talk included (周六 is where "游泳改到了周六" went)."""
    return set(analyse(text)) | set(_han_pairs(text))


def restates(newer: Gist, older: Gist, asked: set[str]) -> bool:
    """Does ``newer`` (said later) give a new version of what ``older`` says, as far as a
    question about now with the terms ``asked`` is concerned? Both were found for the
    question, so less is needed than for a stored link (``judge``): the newer one says a
    change or "now" and gives a new value or where the change went ("switched to", 改喝),
    the two share a term, and either that term is not one of the question's ("the book
    club now meets at the library instead of Laura's" after "at Laura's place") or the
    newer one says a value the older one does not ("宽带换成了移动的，每月60元" after
    "每月100元", "I handed the captaincy over to Priya"). A new value counts only in a sentence
    that says the change or "now" (the numbers of the next sentence are no new value)."""
    if not newer.changes:
        return False
    shared = newer.terms & older.terms
    if not shared or len(shared) >= REPEAT_SHARE * len(newer.terms | older.terms):
        return False
    # the change is said of something the two share, not of another thing in the same long
    # sentence ("现在住得近，每天坐地铁四站就到，…，周末也有精力去上烘焙课了" changes no class time)
    if not shared & newer.near:
        return False
    new_value = bool(newer.changed - older.values) or bool(newer.target - older.words)
    # a change with no new value and nowhere it went ("my routine has been a mess since
    # the clocks changed") gives no version of anything
    if not (new_value or newer.goes_to):
        return False
    return bool(shared - asked) or new_value


def read_sentences(node_id: str, text: str, occurred: int,
                   role: str | None = None) -> list[Said]:
    """The statements among a message's sentences (a long request to the assistant often
    says a fact of the user in passing), at most ``MAX_SENTENCES``, those carrying a
    value or a change first."""
    if role == "assistant":
        return []
    out = [read(node_id, part, occurred, role) for part in _SENTENCE.split(text)
           if len(part.strip()) > 3]
    out = [s for s in out if s.statement]
    out.sort(key=lambda s: not (s.values or s.change or s.never or s.replaced))
    return out[:MAX_SENTENCES]


#: names changed with one shared attribute word: the two messages' embeddings must be at
#: least this close (chosen on the dev corpus, seed 1)
NAME_COSINE = 0.45
#: ... with no shared attribute word ("I work at X" / "I left my job and started at Y")
NEAR_COSINE = 0.6


def judge(newer: Said, older: Said, cosine: float = 0.0) -> Verdict | None:
    """How ``newer`` relates to ``older`` (said before it), if it restates or contradicts
    it; None when the rules see no such link. ``cosine``: of the two messages' embeddings
    (0 when unknown)."""
    if not (newer.statement and older.statement) or newer.id == older.id:
        return None
    disputed = _contradiction(newer, older) or _contradiction(older, newer)
    if disputed is not None:
        return disputed
    if newer.occurred <= older.occurred:
        return None
    shared = newer.about & older.about
    said = _fmt(shared)
    # a number or a date changed: with its unit, or two shared attribute words
    for kind, a, b in (("number", newer.numbers, older.numbers),
                       ("date", {(d, "") for d in newer.dates}, {(d, "") for d in older.dates})):
        new = {n for n, _ in a} - {n for n, _ in b}
        old = {n for n, _ in b} - {n for n, _ in a}
        if not (new and old):
            continue
        unit = sorted({u for _, u in a if len(u) > 1} & {u for _, u in b if len(u) > 1})
        # a count in passing ("about 8 people came", 一共有4个区域) changes with every
        # telling: only a change said as one counts
        if newer.change and ((unit and shared) or len(shared) >= 2):
            what = f"{kind} {', '.join(sorted(old))} -> {', '.join(sorted(new))}"
            return Verdict("SUPERSEDES", 0.9, f"{what} ({unit[0] if unit else said})")
    # the newer message names the older one's value as the one it replaced
    gone = newer.replaced & _value_terms(older)
    if gone and newer.change and _value_terms(newer) - _value_terms(older):
        return Verdict("SUPERSEDES", 0.9, f"replaces {_fmt(gone)}"
                       + (f" ({said})" if shared else ""))
    if not newer.change:
        return None
    new_names, old_names = newer.names - older.names, older.names - newer.names
    # names differ: the later one names the earlier one's too ("X moved to another team
    # and my new boss is Y"), or two short messages' embeddings agree
    kept = newer.names & older.names
    # a day for a name or a name for a day is no new value of one thing ("sore since last
    # Thursday" then "signed up for the Melbourne Marathon Festival")
    if old_names and new_names and _days(old_names) != _days(new_names):
        return None
    if new_names and ((kept and shared) or (old_names and (
            (shared and cosine >= NAME_COSINE) or cosine >= NEAR_COSINE))):
        return Verdict("SUPERSEDES", 0.7, f"{_fmt(old_names or older.names)} -> "
                                          f"{_fmt(new_names)} ({said})")
    # no value tokens (Chinese or lowercase values): only two short messages whose
    # embeddings agree on what they are about
    if not (newer.values or older.values) and shared and cosine >= NAME_COSINE:
        return Verdict("SUPERSEDES", 0.6, f"restated with a change ({said})")
    return None


def _days(names: frozenset[str]) -> bool:
    """Are ``names`` all days of the week or months?"""
    return all(n.rstrip("s") in _CALENDAR for n in names)


_CALENDAR = frozenset(WEEKDAYS) | frozenset(MONTHS)


def _contradiction(neg: Said, pos: Said) -> Verdict | None:
    """``neg`` says the user never used or did X, ``pos`` that they did."""
    if not neg.never or pos.negated or pos.never:
        return None
    both = neg.never & (pos.names | pos.name_terms)
    if not both:
        return None
    return Verdict("DISPUTED", 0.8, f"never {_fmt(both)} / did {_fmt(both)}")


def _unit(word: str | None) -> str:
    """The word after a number, if it can be a unit ("dollars", 元, 盆; not "to")."""
    if not word:
        return ""
    terms = analyse(word)
    return terms[0] if terms else ""


def _value_terms(s: Said) -> set[str]:
    return set(s.name_terms) | {n for n, _ in s.numbers} | set(s.dates)


def _dates(text: str) -> set[str]:
    """Month-day dates in ``text`` as "3-14"."""
    out = {f"{MONTHS.index(_month(m[1] or m[4])) + 1}-{int(m[2] or m[3])}"
           for m in _DATE_EN.finditer(text)}
    return out | {f"{int(m[1])}-{int(m[2])}" for m in _DATE_ZH.finditer(text)}


def _month(word: str) -> str:
    w = word.casefold()
    return next(m for m in MONTHS if m.startswith(w[:3]))


def _names(text: str, anywhere: bool = False) -> set[str]:
    out: set[str] = set()
    for m in _NAME_EN.finditer(text):
        name = m[0].rstrip(".'-")
        if not anywhere and _CLAUSE_START.search(text[: m.start()]):
            # the first word of a sentence is capitalised anyway: keep what follows it
            parts = name.split(maxsplit=1)
            if len(parts) < 2 or parts[0].casefold() in _NOT_NAMES:
                continue
            name = parts[1]
        if name.casefold() in _NOT_NAMES or re.fullmatch(_MONTH, name, re.I):
            continue
        out.add(name.casefold())
    return out


def _latin_runs(text: str) -> set[str]:
    return {m[0].casefold() for m in _LATIN_IN_ZH.finditer(text) if len(m[0]) > 1}


def _is_statement(text: str) -> bool:
    if not text or _QUESTION_END.search(text):
        return False
    body = text.split(":", 1)[1] if re.match(r"^[^:]{1,40}:\s", text) else text
    return not (_REQUEST_EN.match(body) or _REQUEST_ZH.match(body))


def _fmt(words: set[str] | frozenset[str]) -> str:
    return ", ".join(sorted(words)[:4])
