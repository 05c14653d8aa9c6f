"""Chinese ways of saying that something changed, and tastes said with the object first.

The object put before the speaker as the topic (香菜我真的受不了, 榴莲我很喜欢); interest
that is lost (我对综艺一点兴趣都没有了, 对足球不感兴趣); habits given up (我戒烟了, 把奶茶戒了)
and what replaced them (改喝豆浆); a job taken up (转行当了设计师, 成为一名律师), a new
employer (跳到快手, 下个月去字节报到), a new phone (换了iPhone); a break-up (我和小李分手了)
and a pet that is gone (我家的狗去世了).

The rules are ``Rule``s read by ``_chinese._apply`` like the others; the finder returns
``(start, end, hits)`` like ``_personal.find_zh``.
"""

from __future__ import annotations

import re
from typing import Any

from graphmem.extract._dates import TIME_WORD_ZH
from graphmem.extract._lexicon import is_role_zh
from graphmem.extract._personal import KIN_ZH, PET_ZH
from graphmem.extract._text import Hit, Rule
from graphmem.model import CURRENT_OBJECT


def _rule(kind: str, pattern: str, **kw: Any) -> Rule:
    return Rule(kind, re.compile(pattern), **kw)


_O = r"(?P<obj>[^，,。！？；;!?：:]+)"
_NZ = "[^，,。！？；;!?在]"
# The topic before 我: not a pronoun, a time, a conjunction or someone's words.
_TOPIC = (r"(?:^|(?<=[，,]))(?P<obj>(?!(?:这|那|它|他|她|你|所以|但是|因为|而且|其实|现在|以前|"
          r"平时|最近|反正|可是|不过|然后|如果|虽然|总之|真的|说实话|老实说|我|周末|晚上|早上|"
          r"中午|下午|每天|每周|有时|有空|偶尔|一般|通常|" + TIME_WORD_ZH + r"))"
          r"[^，,。！？；;!?我你他她说]{1,10}?)我")
_ADV = r"(?:是|真的|实在|特别|非常|很|超|最|一直|都|也|还|就是|挺|蛮|比较|倒是|可|已经|早就|再也)*"
_END = r"(?:了)?(?=[，,。！!；;～~]|$)"

CHANGE_RULES_ZH: list[Rule] = [
    # the object as the topic: 香菜我是真的受不了, 榴莲我很喜欢, 咖啡我早就不喝了
    _rule("dislike", _TOPIC + _ADV + r"(?:受不了|讨厌|不喜欢|不太喜欢|接受不了|不感冒|不爱)"
          + _END, subject="self"),
    _rule("like", _TOPIC + _ADV + r"(?:喜欢|最爱|超爱|爱|很爱|热爱)" + _END, subject="self"),
    _rule("stop_like", _TOPIC + _ADV + r"(?:不再|不)(?:喝|吃|玩|看|听|抽)了(?=[，,。！!；;]|$)",
          subject="self"),
    _rule("stop_use", _TOPIC + _ADV + r"(?:不再|不)(?:用|使用)了(?=[，,。！!；;]|$)",
          subject="self"),
    # interest lost or missing: 我对综艺一点兴趣都没有了 ends a taste, 我对足球不感兴趣 is one
    _rule("dislike", r"对(?P<obj>[^，,。！？；;!?]{1,20}?)(?:是|真是|可是)?"
          r"(?:已经|早就|再也|完全|根本|真的|并)?(?:都|也)?(?:一点|丝毫|半点)?(?:儿)?(?:不再|不太|不怎么|不|没有?|没什么|失去了?)"
          r"(?:什么|太|再|那么|多大)?(?:的)?(?:兴趣|感兴趣|兴致)(?P<le>了)?",
          extra={"check": "ended_if_le"}),
    _rule("dislike", r"对(?P<obj>[^，,。！？；;!?]{1,20}?)(?:是|真是|真的是|可是)?"
          r"(?:一点|丝毫|半点)(?:儿)?(?:兴趣|兴致)(?:都|也)(?:没有|没)(?P<le>了)?",
          extra={"check": "ended_if_le"}),
    # habits given up, and what came instead
    _rule("stop_like", r"把(?P<obj>[^，,。！？；;!?把]{1,8}?)(?:给)?(?:戒了|戒掉了?)"),
    _rule("stop_use", r"把(?P<obj>[^，,。！？；;!?把]{1,10}?)(?:给)?"
          r"(?:卸载了|删了|删掉了|停用了|退订了)"),
    _rule("stop_like", r"(?<!警)戒(?:掉了?|了)?(?!指|备|严|律|心|除|毒)"
          r"(?P<obj>[^，,。！？；;!?了]{1,8})"),
    _rule("like", r"(?:改|换成|换)(?:喝|吃)了?(?![了过一两二三四五六七八九十几半\d])" + _O),
    _rule("like", r"(?:只|就只|都只)(?:喝|吃)(?![了过一两二三四五六七八九十几半\d])" + _O,
          extra={"check": "min2"}),
    # a job taken up: 转行当了设计师, 成为一名律师
    # (not a wish or a taste: 喜欢做设计, 想当老师)
    _rule("role", r"(?<!喜欢)(?<!爱)(?<!想)(?<!要)(?<!会)(?<!打算)(?<!准备)(?<!梦想)(?<!希望)"
          r"(?:转行)?(?:当|做|干|成为|成了)了?(?:一名|一个|一位|名|个)?"
          r"(?P<obj>[^，,。！？；;!?的了]{2,10}?)(?=[，,。！？；;!?的了]|$|(?:做|干|当)了)",
          self_only=True, extra={"check": "role"}),  # 做会计做了五年了: 会计
    # a new employer: 跳到快手, 去字节报到
    _rule("works", r"(?:跳到|跳去|跳槽到了?)(?P<obj>" + _NZ + r"{1,15}?)(?:了|去了)?"
          r"(?=[，,。！？；;!?]|$)", self_only=True, extra={"check": "company"}),
    _rule("works", r"(?:去|到)(?P<obj>" + _NZ + r"{1,15}?)(?:报到|入职)", self_only=True,
          extra={"check": "company"}),
    # a new phone or tool: 换了iPhone, 转投Notion
    _rule("now_use", r"(?:换了|转投了?)(?:个|台|部|一台|一部|一个)?" + _O),
    # the tools one uses, listed: 我平时用的工具有飞书、Notion和Figma
    _rule("use", r"我(?:平时|日常|平常|经常|常|工作中|主要)?(?:用|使用)的"
          r"(?:工具|软件|应用|App|app|APP)(?:主要)?(?:有|是|包括)" + _O, subject="self"),
]

# --------------------------------------------------------------------------- endings

_PARTNER_ZH = "男朋友|女朋友|老公|老婆|丈夫|妻子|爱人|对象|未婚夫|未婚妻"
_PARTNER_KIN = {"对象": "", "未婚夫": "fiance", "未婚妻": "fiance"}
_SPLIT_ZH = re.compile(
    rf"我(?:已经|刚刚?|终于)?(?:和|跟|与)(?:我的?)?(?P<who>[^，,。！？；;!?]{{1,8}}?)"
    rf"(?:{TIME_WORD_ZH}|已经|刚刚?|终于|还是|正式|前段时间|前几天)*(?:分手|离婚|分开)了")
_PET_GONE_ZH = [
    re.compile(rf"我(?:的|家的?|们家的?)(?P<species>{PET_ZH})(?P<name>[\u4e00-\u9fff]{{2,3}}?)?"
               rf"(?:{TIME_WORD_ZH}|已经|前几天|昨天|上周|不幸|因病)*"
               rf"(?:去世|死|病死|老死|走丢|跑丢|飞走|丢|送人|走)了(?=[，,。！!；;]|$)"),
    re.compile(rf"(?:(?:^|(?<=[，,]))我们?(?:{TIME_WORD_ZH}|已经|只好|只能|最后|还是|终于)*把"
               rf"(?:我的|我家的?|我们家的?)?|把(?:我的|我家的?|我们家的?))(?P<species>{PET_ZH})(?P<name>[\u4e00-\u9fff]{{2,3}}?)?"
               rf"(?:送人|送走|送给[^，,。！？；;!?]{{1,6}})了"),
    # the pet's name alone, opening the sentence (雪球上个月送给朋友养了); a stop of a pet
    # no one stored changes nothing
    re.compile(rf"^(?P<species>(?!))?(?P<name>[\u4e00-\u9fff]{{2,3}}?)(?:{TIME_WORD_ZH}|已经|"
               rf"前几天|前段时间|昨天|上周|上个月|不幸|因病)*(?:去世|死|病死|老死|走丢|跑丢|飞走|走|"
               rf"送人|送走|"
               rf"送给[^，,。！？；;!?]{{1,6}}养|被[^，,。！？；;!?]{{1,6}}领养)了"),
]
_HAN_NAME = re.compile(r"^[\u4e00-\u9fff]{2,3}$")
# Who one "breaks up with" by name; a colleague or a friend is no partner said by name.
_NOT_A_PARTNER = re.compile(r"[们家人]|同事|朋友|同学|室友|邻居|老板|领导|上司|父母|公司|团队")


# A job that ends without a name: 我退休了, 我去年辞职了, 我辞去了教师的工作 (the role
# named ends too), 我被裁员了, 我转行当了摄影师 (a new trade, so a new place). Between 我
# and the verb only a few words of time or manner, never a relative (我爸退休了 is the
# father's).
_JOB_ENDS_ZH = re.compile(
    r"我(?P<mid>(?:[^，,。！？；;!?爸妈哥姐弟妹公婆朋友同事老板儿女]){0,6}?)(?:(?P<retire>退休)"
    r"|(?P<quit>辞职|辞掉了?工作|把工作辞了|失业|被裁员?|被辞退|被开除|转行|改行)"
    r"|辞去了?(?:(?P<role>[^，,。！？；;!?的]{2,8})的)?(?:工作|职务|职位))")


# A diet taken up ends a taste for meat: 我今年开始吃素了.
_NO_MEAT_ZH = re.compile(r"我(?:[^，,。！？；;!?想要打算准备]){0,6}?(?:(?:开始|改|转|已经)吃素|"
                         r"吃素(?:快|已经|都|有)?[一二两三四五六七八九十几半\d]+个?多?(?:月|年|周|星期|礼拜))")


# A taste that turned over: 以前超爱吃香菜，现在闻到就想吐 / 以前特别讨厌榴莲，现在居然爱上了.
# The later clause names no other thing (反倒爱上了喝茶 is a new taste, read elsewhere).
_THEN_ZH = r"(?:以前|之前|原来|原先|过去|曾经|小时候|本来)"
_DEGREE_ZH = r"(?:超级|超|很|特别|挺|最|巨|贼|非常|可|那么|还挺|一直|蛮)?"
_TURNED_ZH = re.compile(
    rf"{_THEN_ZH}我?(?:(?P<love>{_DEGREE_ZH}(?:爱|喜欢|迷|热爱))|{_DEGREE_ZH}(?:讨厌|不喜欢|不爱|"
    r"受不了|怕|嫌弃|反感))(?:吃|喝|看|玩|听|打|逛|追|刷)?(?P<x>[^，,。！？；;!?]{1,12}?)(?:的)?"
    r"[，,](?:但是?|可是?|不过)?我?(?:现在|如今|这几年|这两年|最近|后来|结果)我?"
    r"(?:反而|反倒|居然|竟然|却|倒是|完全|真的|已经|一点都|一点也|都|也|就|是)*"
    r"(?:(?P<like2>爱上了|喜欢上了|爱上|喜欢上|离不开了|超爱|很喜欢|真香)|(?:受不了|讨厌|不喜欢|不爱|"
    r"腻了|吃腻了|玩腻了|看腻了|听腻了|无感|没感觉|闻到就想吐|一闻就想吐|想吐|吃不下|怕了|不碰了|"
    r"不吃了|不喝了|不看了|不玩了))(?:了|啦|它|这个|那个)*(?=$|[，,。！？；;!?~～…])")


# What may come before the speaker's 以前 in its clause
_SPEAKER_LEAD_ZH = re.compile(
    r"^(?:其实|说实话|说真的|老实说|讲真|哈哈|唉|诶|嗯)?我?(?:自己)?(?:吧)?$")


def find_turned_zh(text: str) -> list[tuple[int, int, list[Hit]]]:
    """A taste said to have turned over (see ``_english_changes.find_turned_tastes``)."""
    found: list[tuple[int, int, list[Hit]]] = []
    for m in _TURNED_ZH.finditer(text):
        if not _SPEAKER_LEAD_ZH.match(re.split(r"[，,。！？；;!?]", text[: m.start()])[-1]):
            continue  # 我姐以前很喜欢猫: someone else's taste
        before, now = m.group("love") is not None, m.group("like2") is not None
        thing = m.group("x").strip()
        if before == now or not thing or thing in ("它", "他", "她", "这个", "那个"):
            continue
        hits = [Hit("stop_like", "self", thing), Hit("dislike", "self", thing)] if before \
            else [Hit("like", "self", thing)]
        found.append((m.start(), m.end(), hits))
    return found


def find_endings_zh(text: str) -> list[tuple[int, int, list[Hit]]]:
    """Break-ups (``split``: obj the name or kin word, obj2 the kin when said), pets gone
    (``pet_gone``: obj the name, else the species) and jobs that end unnamed (``stop_job``,
    ``retire``: obj ``CURRENT_OBJECT``)."""
    found: list[tuple[int, int, list[Hit]]] = []
    for m in _NO_MEAT_ZH.finditer(text):
        found.append((m.start(), m.end(), [Hit("stop_like", "self", "肉")]))
    for m in _JOB_ENDS_ZH.finditer(text):
        if re.search(r"想|打算|准备|要|会|没|不|考虑|可能|如果", m.group("mid")):
            continue  # 我想辞职, 我没退休: no ending said
        ended = m.group("retire") or (m.group("role") and is_role_zh(m.group("role")))
        kind = "retire" if ended else "stop_job"
        # 转行当了摄影师: the new role after the verb is read by the role rules
        start = m.end() if m.group("quit") in ("转行", "改行") else m.start()
        found.append((start, m.end(), [Hit(kind, "self", CURRENT_OBJECT)]))
    for m in _SPLIT_ZH.finditer(text):
        who = m.group("who")
        kin_m = re.match(rf"^(?P<kin>{_PARTNER_ZH})(?P<name>[\u4e00-\u9fff]{{2,3}})?$", who)
        if kin_m:
            word = kin_m.group("kin")
            kin = _PARTNER_KIN.get(word, KIN_ZH.get(word, ""))
            obj = kin_m.group("name") or word
        elif _HAN_NAME.match(who) and not _NOT_A_PARTNER.search(who):
            obj, kin = who, ""
        else:
            continue
        found.append((m.start(), m.end(), [Hit("split", "self", obj, kin)]))
    for regex in _PET_GONE_ZH:
        for m in regex.finditer(text):
            name = m.group("name")
            if name and re.fullmatch(TIME_WORD_ZH, name):
                name = None  # 我的狗今天走丢了: 今天 is no name
            if name and (name[0] in "我你他她它" or any(k in name for k in KIN_ZH)):
                continue  # 我奶奶去年去世了: a person, not a pet
            obj = name or m.group("species")
            found.append((m.start(), m.end(), [Hit("pet_gone", "self", obj)]))
    return found
