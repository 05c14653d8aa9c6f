"""Chinese patterns of the rule extractor (mixed Chinese/Latin text included).

Same shape as the English side: a pattern matches the verb construction (喜欢X, 从X换到Y,
在X工作); who said it is read from the clause before the match after peeling off adverbs
and time words (我现在更 -> 我, 我们的项目 -> project, nothing -> the speaker, since Chinese
drops the subject freely). The peeled words carry meaning: 不 negates, 不再 / 以前 end
something, 可能 / 觉得 hedge, 会 / 想 / 要 make it hypothetical.

Objects are cut where jieba's words are (``_text.word_bounds``): a list is split at a 和
that is a word of its own (猫和狗, not 协和医院), a clause is cut at a 比 that starts no noun
(比起, not 比赛 or 比亚迪), particles and adverbs come off only as whole words, and a verb
that runs on into a longer word (在北京住院) closes no object.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from graphmem.extract._chinese_changes import CHANGE_RULES_ZH, find_endings_zh, find_turned_zh
from graphmem.extract._dates import TIME_WORD_ZH
from graphmem.extract._idioms import in_passing_zh, tastes_zh
from graphmem.extract._lexicon import APPS_ZH, COMPANIES_ZH, is_place_zh, is_role_zh, lookup
from graphmem.extract._personal import PET_ZH, find_zh, kin_in_passing_zh
from graphmem.extract._products import how_to_zh, products_zh
from graphmem.extract._text import (
    Hit,
    Rule,
    Spans,
    add_passes,
    attach_when,
    clean_edges,
    cut_at_words,
    has_cjk,
    scan,
    someone_else_helps,
    split_at_words,
    tagged,
    word_bounds,
    words,
)

_FLAG_WORDS: dict[str, str] = {
    "不再": "stop", "再也不": "stop", "再也": "stop",
    "不": "neg", "没": "neg", "没有": "neg", "不太": "neg", "不怎么": "neg", "并不": "neg",
    "从不": "neg", "从来不": "neg", "不是很": "neg", "不是特别": "neg", "不大": "neg",
    "以前": "past", "之前": "past", "原来": "past", "过去": "past", "曾经": "past",
    "以往": "past", "当初": "past", "原先": "past", "本来": "past", "早先": "past",
    "可能": "hedge", "也许": "hedge", "大概": "hedge", "好像": "hedge", "应该": "hedge",
    "估计": "hedge", "似乎": "hedge", "或许": "hedge", "说不定": "hedge", "觉得": "hedge",
    "感觉": "hedge", "认为": "hedge",
    "会": "modal", "要": "modal", "想": "modal", "能": "modal", "可以": "modal",
    "现在": "now", "如今": "now", "改": "now",
    "已经": "already", "已": "already",
}
_PLAIN = (
    "目前 最近 近来 一直 平时 平常 通常 一般 主要 日常 还 也 都 很 非常 特别 超级 超 真的 挺 蛮 "
    "比较 更加 更 最 还是 正在 在 开始 其实 个人 向来 总是 刚 刚刚 才 又 就 仍然 依然 始终 "
    "早就 基本上 后来 "
    "基本 大多 偶尔 经常 常常 常 每天 平日 十分 相当 尤其 真心 是 的 太 好 一向 倒是 反而 都是 "
    "主要是 自己 本人 工作中 平常也 一般都 一点都 一点也 根本 完全 并 丝毫 压根 只 只是 就只 "
    "慢慢 渐渐 逐渐 越来越 慢慢地 渐渐地 习惯 习惯了 全部 全都 统统 干脆 索性 一口气"
).split()
_TAIL = re.compile(
    "(?:"
    + "|".join(sorted([*_FLAG_WORDS, *_PLAIN], key=len, reverse=True))
    + "|"
    + TIME_WORD_ZH
    + r"|\s+)$"
)
_SUBJECT = re.compile(
    r"(?:我们全家|我们一家(?:人|子)?|我们俩|我俩|全家|我们的项目|我们项目|我们团队|我们公司|我们组|"
    r"我们|咱们|这个项目|该项目|本项目|项目|团队|前端|后端|我)$"
)
# 我 and a short topic before the verb: 我手机用的是OPPO, 我开会都用飞书, 我家扫地用的是X.
_TOPIC = re.compile(r"^\s*(?:现在|目前|平时|最近|如今|一般)?我(?P<topic>[\u4e00-\u9fff]{1,4}?)"
                    r"(?:一直|都|平时|主要|通常|基本上?|一般|经常|常常|也|还|就|全都|总是|\s)*$")
# ... but no other person, no preposition, nor a word that reports, advises, wants or
# denies (我朋友用X, 我把X换成Y, 我建议用X, 我不用X), as whole words (开会 is no 会).
_NOT_A_TOPIC = re.compile(r"^(?:们|的|把|被|将|给|对|跟|和|与|在|从|向|为|替|让|叫|帮|请)|"
                          r"[他她它你谁]|朋友|同事|同学|室友|老板|领导|爸|妈|哥|姐|弟|妹|老公|老婆|对象|孩子|"
                          r"儿子|女儿|家人|亲戚|爷|奶|外公|外婆|丈夫|妻子")
_NOT_A_TOPIC_WORD = frozenset(
    "说 听说 告诉 以为 觉得 认为 建议 推荐 劝 想 要 打算 准备 希望 不 没 没有 会 能 可以 应该 "
    "曾 曾经 问 求 以前 之前 原来 过去 不再 再也 别".split())


def _topic_subject(clause: str) -> tuple[str, set[str], float] | None:
    """The speaker as the subject of a clause that opens with 我 and a short topic."""
    m = _TOPIC.search(clause)
    if not m or _NOT_A_TOPIC.search(m.group("topic")):
        return None
    if any(w in _NOT_A_TOPIC_WORD for w in words(m.group("topic"))):
        return None
    return "self", set(), 1.0

# "We" that is the speaker's household, not a project: 我们全家搬去了厦门.
_HOUSEHOLD = frozenset({"我", "我们全家", "我们一家", "我们一家人", "我们一家子", "我们俩", "我俩",
                        "全家"})
# An animal kept or named earlier in the sentence, unless 我 comes right before the 叫:
# 店后门养了条土狗，叫旺财 and 店里养了两只猫，一只叫大黄 name the animals (我家狗很乖，我叫王磊
# names the speaker).
_NAMES_AN_ANIMAL = re.compile(
    rf"(?:(?:养|捡|领养|收养)[了着过回到]?\s*(?:[一两二三四五几]\s*)?[只条匹头]|{PET_ZH})"
    r"[^。！？!?；;\n]*(?<!我)$")
# A clause that opens with a time gone by: 以前我喜欢跑步 ends that taste.
_PAST_LEAD = re.compile(r"以前|之前|原来|过去|曾经|以往|当初|原先|早先|小时候")
_CLAUSE = re.compile(
    r"[，,；;：:、]|因为|所以|(?<!不)但是?|不过|而且|然后|可是|并且|于是|(?<![我们])(?:以后|之后)"
)
_QUESTION_WORDS = re.compile(
    # 什么都, 谁都, 怎么也: "anything, anyone, anyhow", no question
    r"(?:什么|哪个|哪些|哪种|哪里|哪儿|怎么|谁)(?![都也])|为什么|为啥|是否|是不是|有没有|要不要|"
    r"能不能|会不会|多少|多久|多长时间|几个|几点|几天|咋|(?:准备|带|买|吃|用|做|干|注意|选|看|学)啥|啥(?:材料|东西|办法|时候|意思|样)"
)
_TAG_Q = re.compile(
    r"[，,]\s*(?:你呢|你们呢|您呢|你觉得呢|怎么样|对吧|是吧|对不对|好吗)\s*[？?]*\s*$"
)
_HYPOTHETICAL = re.compile(r"如果|假如|要是|假设|万一|倘若|的话|假使|若是")
# 听歌的话，我还是偏爱民谣: a topic (as for music), not a condition
_TOPIC_DEHUA = re.compile(
    r"^[\u4e00-\u9fff]{1,4}的话(?=[，,\s]*我(?:还是|一般|通常|平时|更|最|比较|都)*"
    r"(?:偏爱|喜欢|更喜欢|最喜欢|最爱|爱|习惯|用|选))")
_HEDGE = re.compile(r"可能|也许|大概|好像|估计|似乎|或许|说不定|应该|觉得|感觉|认为|吧[。！]?$")
_CUT = re.compile(
    r"[，,。！？；;!?：:（(]|因为|由于|但是|但|不过|而不是|而非|所以|可是|然而|并且|而且|因此|然后|"
    r"还有|虽然|就是|胜过|超过|比(?!较)|多过|的时候|时候|(?:也|还|又|更)(?=喜欢|爱|用|在|讨厌)|"
    r"之后|以后|快(?=[一两三四五六七八九十半几])|的味道|的气味|那个味|这个味"
)
_USE_CUT = re.compile(
    r"来|去|写|做|开发|编写|处理|搭建|部署|跑|进行|实现|管理|构建|编程|记笔记|记|画|剪|打|作为|当作|"
    r"当|上网|办公|学习|工作|存|听|看|备份|同步|拍|付款|付钱|聊天|导航|刷|买|订|打卡|健身|跑步|传|"
    r"追剧|追番|记账"
)
_PARTICLES = r"(?:了|的|啦|呀|哦|吧|嘛|哈|呢|着|过|啊|哟|咯|喔|一些|一点|多了|更多|多一点|"
_PARTICLES += r"比较多|很多|多|很久|好几年|多年|挺久|这种|这个|一下|而已|罢了|哈哈|呗)"
_TRAILING = re.compile(rf"(?:{_PARTICLES}|{TIME_WORD_ZH}|\s)+$")
# Adverbs and modals left between an object and its verb: 在华为和小米都工作过 -> 小米.
_TRAILING_ADV = re.compile(r"(?:都|也|还|就|会|又|才|一直|第|\s)+$")  # 拼多多第(二周)
_LEADING = re.compile(rf"^(?:{TIME_WORD_ZH}|的是|是|用|使用|上了|了|在|一[家个所间位款种门]|"
                      r"[这那](?:种|类|款|一类|一种)(?=[\u4e00-\u9fff]{2})|\s)+")
_LIGHT_VERB = re.compile(r"^(?:喝|吃|玩|看|听|写|用|使用)")
_LIST = re.compile(r"\s*(?:、|和|与|跟|以及|及|,|，|/|\s\+\s|\+|加上)\s*")
# What cannot be a list item before 和: nothing (和 opens the object) or a bare verb (吃和牛).
_NO_ITEM = re.compile(r"|吃|喝|玩|看|听|用|打|踢|学|去|做")
_PRONOUN = re.compile(r"^(?:你|他|她|它|我|您|这|那|什么|啥|哪|谁|自己|大家|人家|别人)")
# 用的是钱: "是钱" is no name
_BAD_START = re.compile(r"^(?:了|过|着|的|得|地|好|完|掉|起|是(?!枝|德))")
_QUANTITY = re.compile(r"^[\d一二两三四五六七八九十几半]+\s*(?:个|次|天|年|小时|分钟|周|遍|下)")
_HAN_NAME = re.compile(r"^[\u4e00-\u9fff]{2,4}$|^[A-Za-z][A-Za-z' -]{0,30}$")
# 叫 as a verb, not a name: 我叫了个外卖, 我叫醒了他, 我叫车去机场, 叫不出他的名字
_CALLED_NOT_NAMED = re.compile(r"[了着过醒车辆个起来去到住好错出回上下你他她它的得不些外]|"
                               r"[\u4e00-\u9fff]{0,2}[了个辆]")
_ORG_SUFFIX = re.compile(
    r"(?:公司|集团|科技|银行|大学|团队|实验室|研究院|研究所|工作室|医院|学校|中心|部门|律所|事务所|"
    r"工厂|厂|餐厅|酒店|超市|出版社|报社|电视台|诊所|幼儿园|中学|小学|汽车|数据|网络|软件|信息|"
    r"传媒|文化|咨询|物流|电子|医药|教育|金融|资本|证券|保险|游戏)$|[A-Za-z]"
)
_STOP_OF = {"like": "stop_like", "use": "stop_use", "now_use": "stop_use", "lives": "stop_lives",
            "works": "stop_works", "role": "stop_role", "learning": "stop_learning"}


def _rule(kind: str, pattern: str, **kw: Any) -> Rule:
    return Rule(kind, re.compile(pattern), **kw)


_N = "[^，,。！？；;!?]"  # anything but a clause or sentence end
# how long, up to its unit: 快半年, 三个多月, 差不多两 (年) (not 都: 成都一年)
_HOW_LONG = r"(?:已经|快|才|有|差不多|将近)*[一二两三四五六七八九十几半\d]+个?多?"
_NZ = "[^，,。！？；;!?在]"  # ... nor 在, which would start the place over
_O = r"(?P<obj>[^，,。！？；;!?：:]+)"
# A lesson's subject runs from the start of its clause.
_S = r"(?:^|(?<=[，,；;：:]))\s*(?P<subj>[^，,。；;！？!?]+?)"
_NOT_USE = r"(?!户|于|途|法|处|力|心|品|餐|完|光|尽|不了|不着|上|来说)"
_FAIL_VERB = r"(?:失败|报错|出错|挂了|挂掉|崩溃|崩了|跑不起来|起不来|超时|不工作|没法用|用不了)"

RULES: list[Rule] = [
    _rule("plan", r"(?:打算|计划|准备|想要|希望|决定|立志|想(?=学|去|换|买|搬|转|尝试|试试|开|考|"
          r"辞职|跳槽|改|创业|出国|移民|做一个|写一个|读))" + _O),
    _rule("goal", r"(?:目标|梦想|愿望)(?:是|就是|为)" + _O),
    # 下个月开始备孕了: what starts at a time to come
    _rule("plan", r"(?:下个?月|下周|明年|下半年|过完年|年后|月底|下学期)(?:就|正式)?开始(?P<obj>"
          + _N + r"{2,10}?)(?:了|啦)?(?=[，,。！？；;!?]|$)"),
    _rule("plan", r"(?:要|将要|将会|会)(?=去|回|参加|开始|搬|出差|考|换|买|学|把|装修|报名|办|"
          r"带|陪|辞|跳槽|结婚|领证|出国|旅游|旅行|跑|参赛|拍|录|做|搞|开)" + _O,
          extra={"check": "future"}),
    _rule("learning", r"(?:正在学习|正在学|在学习|在自学|在学|开始学习|开始学|自学)(?![校院生期])"
          + _O),
    _rule("failed", _S + r"(?:又|总是|经常|一直|老是|还是)?" + _FAIL_VERB
          + r"了?[，,]?\s*(?:是|主要是|都是)?(?:因为|由于)(?P<obj>[^，,。；;！？!?]+)",
          subject="group"),
    _rule("failed", _S + r"(?:失败|报错|出错|崩溃)的(?:原因|根源)(?:是|在于)"
          + _O, subject="group"),
    _rule("failed", _S + r"(?:因为|由于)(?P<obj>[^，,。；;！？!?]+?)(?:而|才)?"
          r"(?:又|一直)?" + _FAIL_VERB, subject="group"),
    _rule("requires", _S + r"(?:一定|必须|都|还|也|总是)?(?:需要|必须要?|"
          r"要求|依赖|离不开)(?!者|性|症)(?:用|使用|先|配置|设置)?(?P<obj>[^，,。；;！？!?]+?)(?:才能|才可以|"
          r"才行|才|[，,。；;！？!?]|$)", subject="group"),
    # a car: 我开的是一辆大众朗逸; 换了辆特斯拉 (a new one); 朗逸卖掉了 (gone)
    _rule("use", r"开(?:的是)?(?:一辆|辆)(?P<obj>" + _N + r"{2,12})", self_only=True,
          extra={"check": "any"}),
    _rule("now_use", r"换了?(?:一辆|辆)(?:新的?)?(?P<obj>" + _N + r"{2,12})", self_only=True,
          extra={"check": "any"}),
    _rule("stop_use", r"(?:^|(?<=[，,])|把)(?:我的|我那辆)?(?!房子|车子?|东西|股票|基金)"
          r"(?P<obj>[^，,。！？；;!?我]{2,10}?)(?:已经|早就|上个月|去年)?(?:卖掉了|卖了|转手了)",
          self_only=True, extra={"check": "any"}),
    *CHANGE_RULES_ZH,
    _rule("switch", r"(?:从|由)(?P<obj>" + _N + r"+?)(?P<verb>换到|换成|切换到|切到|改成|改为|"
          r"改用|转到|转向|转投|迁移到|迁到|转成|换回|搬到|搬去|搬回|跳槽到|跳槽去)了?"
          r"(?P<obj2>" + _N + r"+)"),
    _rule("switch", r"把[^，,。！？；;!?从]{1,10}从(?P<obj>" + _N + r"+?)(?:换成|改成|替换成|"
          r"替换为|换为|迁移到|迁到|改为|换到|切换到)了?(?P<obj2>" + _N + r"+)"),
    _rule("switch", r"把(?P<obj>" + _N + r"+?)(?:换成|改成|替换成|替换为|换为|迁移到|迁到|改为)"
          r"了?(?P<obj2>" + _N + r"+)"),
    _rule("stop_use", r"(?:弃用|放弃|抛弃|卸载|停用)了?" + _O),
    _rule("stop_like", r"(?:不再|已经不|不)(?P<obj>(?:吃|打|玩|踢|喝|看|听)"
          r"[^，,。！？；;!?了]{1,6})了"),
    _rule("like", r"(?:^|(?<=[，,]))(?P<obj>[^，,。！？是]{1,12}?)是我"
          r"(?:最大的|最喜欢的|唯一的|的|一大)?(?:乐趣|爱好|兴趣|最爱|心头好|心头爱|本命)",
          subject="self"),
    # 甜食我一向不感冒, 我对X不感冒
    _rule("dislike", r"(?:^|(?<=[，,]))(?P<obj>[^，,。！？我他她你]{1,10}?)我?"
          r"(?:一向|向来|一直|从来|根本|实在|真的)?不感冒", subject="self"),
    _rule("dislike", r"对(?P<obj>" + _N + r"{1,12}?)(?:一向|向来|一直|从来|根本|实在|真的)?不感冒"),
    _rule("like", r"对(?P<obj>" + _N + r"{1,12}?)情有独钟"),
    _rule("like", r"最(?:开心|快乐|享受|幸福|喜欢做)的事(?:情)?(?:就|莫过于)?是" + _O),
    _rule("like", r"比起" + _N + r"{1,15}?[，,]?\s*我?(?:还是|其实)?更(?:愿意|喜欢|爱)" + _O),
    # where a thing is kept or done: 想法都记在flomo里, 代码都在Sublime Text里写 (a known name)
    _rule("use", r"(?:记|存|放|写|整理)在(?P<obj>" + _N + r"{1,12}?)(?:里|上)"),
    _rule("use", r"在(?P<obj>" + _N + r"{1,20}?)(?:里|上)(?:写|记|做|画|剪|编辑|存)"),
    # 我最近换工作了：现在在蓝海数据 (a new employer named after the change)
    _rule("works", r"换了?(?:新)?工作了?[：:，,]\s*(?:现在|目前)?在(?P<obj>" + _N + r"{2,12}?)"
          r"(?=[，,。！？；;!?]|$|上班|工作)", self_only=True),
    # 我已经不在阿里了，现在在字节: the employer after the one that ended
    _rule("works", r"(?:不在" + _N + r"{1,12}?(?:工作|上班|干)?了|(?:离职|辞职|跳槽|被裁)了)"
          r"[，,]\s*(?:现在|目前|如今)(?:跳到|去了|在)(?!家|老家|外地|国外|休息|找|准备|考虑)"
          r"(?P<obj>" + _N + r"{2,12}?)(?=[，,。！？；;!?]|$|上班|工作|干)",
          self_only=True),
    _rule("use", r"戴(?:的是|着)(?P<obj>" + _N + r"{2,12})"),
    # 升职做销售经理了; 转行/改行 ends the employer too (a new trade, a new place)
    _rule("role", r"(?:升职|晋升|提拔)(?:做|当|为|成)了?(?P<obj>" + _N + r"{2,12})", self_only=True,
          extra={"check": "role"}),
    _rule("like", r"(?:最喜欢|最爱|最常用|最偏爱)的(?P<dom>[^，,。是]{1,8})是" + _O),
    _rule("name", r"(?:叫|名字是|名字叫|姓名是)" + _O, self_only=True),
    _rule("name", r"叫我" + _O, subject="self"),
    _rule("works", r"在(?P<obj>" + _NZ + r"{1,15}?)(?:当|做|担任|干)了?"
          r"(?:[一二三四五六七八九十两几半]+年(?:的|多)?)?(?P<role>" + _N + r"{2,12})",
          self_only=True),
    _rule("works", r"在(?P<obj>" + _NZ + r"{1,20}?)(?:工作|上班|任职|就职|实习|打工|"
          r"干(?=了|[，,。！!]|$))(?!室|日|时|量)", self_only=True),
    _rule("works", r"(?:入职|加入|加盟|跳槽到|跳槽去)了?(?P<obj>" + _NZ + r"{2,15}?)(?:当|做|担任)"
          r"(?P<role>" + _N + r"{2,12})", self_only=True),
    _rule("works", r"(?:入职|加入|加盟|跳槽到|跳槽去)了?" + _O, self_only=True),
    # 目前在顺丰跑同城配送: a known company and what one does there
    _rule("works", r"在(?P<obj>" + _NZ + r"{2,8}?)(?:跑|送|开|干|负责|带|管)", self_only=True,
          extra={"check": "company"}),
    _rule("works", r"(?:进了|进入了?)" + _O, self_only=True, extra={"check": "company"}),
    # 下周一正式去宁德时代报到: reporting for work at a company
    _rule("works", r"(?:^|(?<=[，,。我]))[^，,。他她你]{0,6}?(?:去|到|在)(?P<obj>" + _NZ
          + r"{2,10}?)(?:正式)?报到", subject="self", extra={"check": "company"}),
    _rule("stop_works", r"(?:离开了?|离职了?|辞职离开了?|从)(?P<obj>[^，,。！？；;!?]{1,10}?)"
          r"(?:离职|辞职)?了?(?=[，,。！？；;!?]|$)", self_only=True, extra={"check": "company"}),
    _rule("role", r"是(?:一名|一个|一位|一枚|名|个|位)?(?:做)?(?P<obj>[^，,。！？；;!?的]{2,14})",
          self_only=True, extra={"check": "role"}),
    _rule("role", r"(?:职业|职位|工作|岗位|身份)(?:是|为)" + _O, self_only=True),
    _rule("lives", r"在(?P<obj>" + _NZ + r"{1,12}?)(?:住|生活|定居|居住)(?!过)",
          self_only=True),
    # 毕业后我就留在了武汉, 我在大理租了个小院子: a place stayed in or rented in
    _rule("move", r"留在了?(?P<obj>" + _N + r"{1,8}?)(?=[，,。！？；;!?]|$)", self_only=True,
          extra={"check": "place"}),
    _rule("lives", r"在(?P<obj>" + _NZ + r"{1,8}?)租了", self_only=True,
          extra={"check": "place"}),
    # 转行做了保险经纪人; 加入了X，当用户研究员 (the role in the next clause)
    _rule("role", r"(?:转行|改行)(?:做|当)了?(?P<obj>" + _N + r"{2,12})", self_only=True,
          extra={"check": "role"}),
    _rule("role", r"(?:^|(?<=[，,]))\s*(?:当|做|担任)了?(?P<obj>" + _N + r"{2,12})", self_only=True,
          extra={"check": "role"}),
    # 被调到深圳分公司当区域经理了, 去年考上公务员: a post given or won
    _rule("role", r"(?:被)?(?:调到|派到|调去|派去)[^，,。！？]{1,12}?(?:当|做|担任)了?(?P<obj>" + _N
          + r"{2,12}?)(?=了|[，,。！？；;!?]|$)", self_only=True, extra={"check": "role"}),
    _rule("role", r"考上了?(?P<obj>公务员|教师编|事业编|选调生|研究生|博士)", self_only=True),
    _rule("stop_works", r"(?:已经|早就)?不在(?P<obj>" + _N + r"{1,10}?)(?:工作|上班)?了",
          self_only=True, extra={"check": "org"}),
    # 上周新买的vivo到了: a new thing of the user's
    _rule("now_use", r"新买的(?P<obj>" + _N + r"{1,12}?)(?:已经|终于)?(?:到了|到货了|送到了)",
          subject="self"),
    _rule("lives", r"(?:住在|居住在|定居在|定居于|生活在|现居|常住|住)"
          r"(?![了过院宿着手口址的房宅户])" + _O, self_only=True),
    _rule("move", r"(?:搬到|搬去|搬来|搬家到|搬回|移居到?|移民到?)了?" + _O, self_only=True),
    _rule("move", r"来到了?" + _O, self_only=True, extra={"check": "place"}),
    # 我回老家长沙了，以后就在这边发展: gone back home for good (not 回老家过年, no place)
    _rule("move", r"回(?:了)?老家(?P<obj>" + _NZ + r"{2,6}?)(?:了|啦)(?=[，,。！？；;!?]|$)",
          self_only=True, extra={"check": "place"}),
    # 回老家长沙定居快半年了: settled in a town, said before 定居
    _rule("move", r"(?:回老家|回到|回)?(?P<obj>" + _NZ + r"{2,6}?)定居(?!在|于)", self_only=True,
          extra={"check": "place"}),
    # 来厦门一个月了, 到杭州快一年了: come to a town some months ago and still there (not a trip:
    # see _TRIP below)
    _rule("move", r"(?:^|(?<=[，,：:（(我们]))(?:已经|都)?(?:来|到)(?P<obj>" + _NZ + r"{2,6}?)"
          r"(?=" + _HOW_LONG + r"(?:月|年)多?了)",
          self_only=True, extra={"check": "place", "not": "trip"}),
    _rule("now_use", r"(?:改用|换用|转用|换成|改成|切换到|切到|换到|转到|转向|迁移到|迁到|改为)了?"
          + _O),
    _rule("dislike", r"(?:讨厌|厌恶|受不了|反感|烦透了|烦死了?)" + _O),
    # a taste said as a habit or an idiom: 我不吃辣 / 我现在无辣不欢
    _rule("dislike", r"(?:不吃|不喝|不碰)(?P<obj>[\u4e00-\u9fff]{1,3})(?=[。，,！!；;]|$)",
          confidence=0.75),
    _rule("like", r"无(?P<obj>[\u4e00-\u9fff]{1,2})不欢"),
    _rule("like", r"对(?P<obj>" + _N + r"{1,20}?)(?:很|非常|特别|比较|挺|超|十分)?感兴趣"),
    _rule("like", r"(?:更喜欢|最喜欢|喜欢|偏好|偏爱|钟爱|热爱|爱上了?|迷上了?|迷恋|偏向于?|倾向于|"
          r"爱(?![好人情心护国惜]))" + _O),
    _rule("use", r"技术栈(?:是|为|用的是|包括|主要是|主要有)" + _O),
    # 我工作用的电脑是X, 我用的密码管理器是X: the one thing of that kind in use
    _rule("use", r"我(?:工作|平时|现在|目前|日常|上班)?(?:用的|在用的|使用的)"
          r"(?:电脑|笔记本|笔记本电脑|手机|浏览器|编辑器|密码管理器|输入法|手表|智能手表|运动手表|阅读器|电子书阅读器|"
          r"网盘|音乐软件|笔记软件)(?:是|为)" + _O, subject="self"),
    # (a bare 用 that ends a word is no verb: 应用, 费用, 信用, 作用, 利用...)
    _rule("use", r"(?:使用|采用|选用|基于|(?<![应费信作利运通实适引套功享公专常日商民试占重录任"
          r"启停禁续借调动选])用)" + _NOT_USE + _O),
    _rule("use", r"喝" + _O, lexicon_only=True),
]


# --------------------------------------------------------------------------- subject


def _subject(prefix: str) -> tuple[str, set[str], float] | None:
    """``(subject, flags, confidence cap)`` from the clause before a verb, or None."""
    clause = _CLAUSE.split(prefix)[-1]
    flags: set[str] = set()
    while True:
        m = _TAIL.search(clause)
        if not m or m.start() == len(clause):
            break
        word = m.group(0).strip()
        if word in _FLAG_WORDS:
            flags.add(_FLAG_WORDS[word])
        clause = clause[: m.start()]
    if not clause.strip():
        return "self", flags, 0.8  # the dropped subject: the speaker, a little less sure
    m = _SUBJECT.search(clause)
    if not m:
        return _topic_subject(_CLAUSE.split(prefix)[-1])
    lead = clause[: m.start()]
    if re.search(r"(?:说|以为|听说|告诉)$", lead) or re.search(r"[他她它你]", lead[-2:]):
        return None
    if re.search(r"觉得|感觉|认为|可能|也许", lead):
        flags.add("hedge")
    if _PAST_LEAD.search(lead):
        flags.add("past")
    return ("self" if m.group(0) in _HOUSEHOLD else "project"), flags, 1.0


# --------------------------------------------------------------------------- objects


def _lexicon_prefix(item: str) -> str | None:
    """A known name at the start of ``item`` whose end is a word boundary ("Vim写代码")."""
    for k in range(min(len(item), 24), 0, -1):
        head, rest = item[:k].strip(), item[k:]
        if not head or lookup(head) is None:
            continue
        if re.search(r"[A-Za-z0-9.+#]$", head):
            if not re.match(r"[A-Za-z0-9.+#]", rest):
                return head
        elif not rest or re.match(rf"{_PARTICLES}|{_USE_CUT.pattern}|[\s这那更一]", rest):
            return head
    return None


def _strip_words(text: str, regex: re.Pattern[str], lead: bool) -> str:
    """``text`` without the function words ``regex`` finds at its start (``lead``) or end,
    cut on a word boundary: 的 comes off 苹果的 but 多 stays on 多多, 在 on 在线教育."""
    m = regex.search(text)
    if not m or not m.group(0):
        return text
    cut = m.end() if lead else m.start()
    if not has_cjk(text) or cut in word_bounds(text):
        return text[cut:] if lead else text[:cut]
    bounds = word_bounds(text)
    if lead:  # a shorter run of leading words that is all function words
        for b in sorted((b for b in bounds if 0 < b < cut), reverse=True):
            head = regex.match(text[:b])
            if head and head.end() == b:
                return text[b:]
        return text
    for b in sorted(b for b in bounds if cut < b < len(text)):
        tail = regex.search(text[b:])
        if tail and tail.start() == 0:
            return text[:b]
    return text


def _tidy(text: str) -> str:
    for _ in range(3):
        text = clean_edges(text)
        if text in COMPANIES_ZH or text in APPS_ZH:
            return text  # 拼多多 does not end in the particle 多
        text = _strip_words(_strip_words(text, _LEADING, lead=True), _TRAILING, lead=False)
        text = _strip_words(text, _TRAILING_ADV, lead=False)
    return clean_edges(text)


def _valid(text: str, max_len: int = 20) -> bool:
    return (
        0 < len(text) <= max_len
        and not _PRONOUN.match(text)
        and not _BAD_START.match(text)
        and not _QUANTITY.match(text)
        and any(ch.isalnum() for ch in text)
    )


_NAMED_KINDS = frozenset({"like", "dislike", "stop_like", "use", "now_use", "stop_use", "learning"})
_USE_KINDS = frozenset({"use", "now_use", "stop_use"})


def _item(raw: str, kind: str) -> str:
    """One object, cleaned. A cause ("磁盘满了") is kept as said; a preference or tool that
    starts with a known name is that name ("Vim写代码" -> Vim); 喜欢去爬山 likes 爬山."""
    if kind == "failed":
        return clean_edges(raw)
    if kind in ("plan", "goal"):  # "用 Tailwind 重写样式": the verb is the plan
        plan = _TRAILING.sub("", re.sub(rf"^(?:{TIME_WORD_ZH}|要|自己(?=\S{{2}})|\s)+", "",
                                        raw.strip())).strip()  # 打算自己创业: 创业
        plan = re.sub(r"(?<=[去回来到])一?趟", "", plan)  # 去趟西安: 去西安
        return _drop_lead_time(plan)
    raw = _LEADING.sub("", raw.strip())
    if kind in _NAMED_KINDS:
        light = _LIGHT_VERB.match(raw)
        for candidate in ([raw[light.end() :]] if light else []) + [raw]:
            head = _lexicon_prefix(candidate.strip())
            if head:
                return head
    if kind in ("like", "dislike", "stop_like"):
        raw = _activity(_GO_TO.sub("", _AT_PLACE.sub("", _WITH.sub("", raw))))
    if kind in _USE_KINDS:
        app = next((a for a in _APPS_LONGEST_FIRST if raw.startswith(a)), None)
        if app:
            return app
        on = _ON_OR_OF.match(raw)  # iPad上的Procreate, JetBrains的IDEA: the named thing
        if on:
            return on.group("name").strip()
        m = cut_at_words(_USE_CUT, raw)
        if m and m.start() > 0:
            raw = raw[: m.start()]
    return _tidy(raw)


_APPS_LONGEST_FIRST = sorted(APPS_ZH, key=len, reverse=True)


def _drop_lead_time(text: str) -> str:
    """A plan without the time words it opens with (jieba's ``t``): 下半年换工作 -> 换工作;
    the time is the plan's date, not its content."""
    if not has_cjk(text):
        return text
    start = 0
    for word, tag in tagged(text):
        if tag != "t" or len(text) - start - len(word) < 2:
            break
        start += len(word)
    return text[start:].strip()


def _activity(text: str) -> str:
    """The thing liked, not the verb: 打篮球 -> 篮球, 看恐怖片 -> 恐怖片 (吃辣 stays whole)."""
    m = re.match(r"^(?:打|玩|踢|看|听|吃|喝)(?=[\u4e00-\u9fffA-Za-z]{2})", text)
    return text[m.end() :] if m else text


_TRIP = re.compile(r"出差|旅游|旅行|玩|度假|开会|培训|探亲|看病|住院|交流|访学|借调|实习|回来|回去|"
                   r"假期|放假|过年|回家")
_HERE = re.compile(r"(?<=[\u4e00-\u9fffA-Za-z0-9]{2})(?:这边|那边|这儿|那儿|这里|那里)$")
# how long one has been there, said after the place: 半年了, 快一年了, 三个多月了
_FOR_A_WHILE = re.compile(_HOW_LONG + r"(?:月|年|周|星期|礼拜|天)多?了?$")
_PLACE_CUT = re.compile(r"(?:以后|之后|后)(?=[，,]?(?:加入|入职|进了|进入|开始|在|就))")
_FUTURE = re.compile(
    r"下周|下个?月|下星期|明天|后天|明年|周末|今晚|过几天|月底|年底|国庆|春节|暑假|寒假"
)
# 在家拼乐高, 去剧院看话剧: where one does it is not what one likes
_AT_PLACE = re.compile(r"^(?:(?:在|去|到)?(?:家里?|外面)|(?:在|去|到)[\u4e00-\u9fff]{1,3}?)"
                       r"(?=(?:看|听|玩|吃|喝|打|踢|拼|逛|唱|跳|泡|爬|骑|游|做|学|跑|散|遛|钓|滑)"
                       r"[\u4e00-\u9fffA-Za-z])")
# iPad上的Procreate, JetBrains的IDEA: a product named after where it runs or who makes it
_ON_OR_OF = re.compile(r"^[\u4e00-\u9fffA-Za-z0-9 ]{1,15}?(?:上的|里的|的)"
                       r"(?P<name>[A-Za-z][A-Za-z0-9 .+#-]{1,30})$")
# 喜欢(周末)去爬山 likes 爬山
_GO_TO = re.compile(r"^(?:周末|平时|每天|晚上|下班后|有空)?[去来](?=[\u4e00-\u9fff]{2})")
# 喜欢(和朋友)一起打球: who one does it with is not what one likes
_WITH = re.compile(r"^(?:和|跟|与|同)[^，,。！？；;!?和跟与]{1,8}?一起(?=[\u4e00-\u9fffA-Za-z]{2})")


def _objects(raw: str, kind: str) -> tuple[list[str], int]:
    cut = cut_at_words(_CUT, raw)
    body = raw[: cut.start()] if cut else raw
    if kind in ("lives", "move", "works", "stop_works"):
        place = cut_at_words(_PLACE_CUT, body)
        body = body[: place.start()] if place else body
        body = _FOR_A_WHILE.sub("", body)  # 搬来成都半年了: the town, not 成都半年
    parts = (split_at_words(_LIST, body, _NO_ITEM) if kind not in ("plan", "goal", "failed")
             else [body])
    items = [_item(p, kind) for p in parts]
    if kind in ("lives", "move", "works", "stop_works"):
        items = [_HERE.sub("", i) for i in items]  # 在小米这边才干了两周: 小米
    return [i for i in items if _valid(i)], len(body)


def _thing(text: str | None) -> str | None:
    """A lesson's subject: peel time words and adverbs; pronouns and people -> None."""
    if not text:
        return None
    lead = r"上次|这次|那次|刚才|所以|然后|结果|但是|而且|又|我们的|我的|我们|我|\s"
    t = re.sub(rf"^(?:{TIME_WORD_ZH}|{lead})+", "", text.strip())
    t = re.sub(rf"(?:又|总是|还是|一直|也|老是|经常|都|了|{TIME_WORD_ZH}|\s)+$", "", t)
    t = re.sub(r"^(?:这个|那个|这|那)(?=\S{2})", "", clean_edges(t))
    if not t or len(t) > 20 or _PRONOUN.match(t) or t.endswith("不") or t.startswith("是"):
        return None  # 我是个重度咖啡依赖者: says who I am, names no thing
    return "project" if t in ("项目", "这个项目", "该项目", "本项目") else t


# --------------------------------------------------------------------------- applying


def _kind_after_flags(kind: str, flags: set[str], raw: str) -> str | None:
    if kind.startswith("stop_"):
        return kind
    if "stop" in flags or "past" in flags:
        return _STOP_OF.get(kind)
    if "neg" in flags:
        if "already" in flags or re.search(r"了\s*$", raw):
            return _STOP_OF.get(kind)
        return "dislike" if kind == "like" else None
    if "modal" in flags:
        return None
    if "now" in flags and kind == "use":
        return "now_use"
    return kind


# words of starting a new job, and what a name of an employer not in the lists looks like
_NEW_JOB_ZH = re.compile(r"报到|入职|新团队|新公司|新同事|新工作|新单位|新东家|跳槽|试用期")
_GENERIC_PLACE_ZH = re.compile(
    r"单位|公司|部门|科室|食堂|宿舍|学校|学院|医院|班级|总部|前台|门口|现场|那边|这边|那里|这里|"
    r"派出所|居委会|社区|街道|报名处|教室|办公室|人事|人力")
_UNKNOWN_EMPLOYER_ZH = re.compile(r"(?![那这哪])[\u4e00-\u9fff]{2,6}|[A-Za-z][\w&.-]{1,20}")


def _new_employer(name: str, text: str) -> bool:
    """A name no list knows, taken as an employer where the clause speaks of starting a
    job there (去星帆报到, 入职了星帆): not a place, not the word for a kind of place."""
    return _NEW_JOB_ZH.search(text) is not None and not is_place_zh(name) \
        and _UNKNOWN_EMPLOYER_ZH.fullmatch(name) is not None \
        and _GENERIC_PLACE_ZH.search(name) is None


# What stands after 在 before 工作 without being an employer: 我在找工作, 现在在家带娃
_NOT_EMPLOYER_ZH = re.compile(r"^(?:找|准备|考虑|等|家|家里|屋里|床上|路上|休息)|^(?:换|学|忙)$")


def _apply(rule: Rule, m: re.Match[str], text: str, group: int) -> tuple[list[Hit], int]:
    gd = m.groupdict()
    conf = rule.confidence
    raw = gd.get("obj") or ""
    household = False
    if rule.subject == "group":
        subject = _thing(gd.get("subj"))
        if subject is None:
            return [], 0
        kind: str | None = rule.kind
    else:
        if rule.subject == "self":
            subject, flags = "self", set[str]()
        else:
            found = _subject(text[: m.start()])
            if found is None:
                return [], 0
            subject, flags, cap = found
            conf = min(conf, cap) if cap < 1 else conf
            if rule.kind == "name" and cap < 1 and _CLAUSE.search(text[: m.start()]):
                return [], 0  # 我朋友养了一只猫，叫球球: the 叫 names the cat
            if rule.kind == "name" and _NAMES_AN_ANIMAL.search(text[: m.start()]):
                return [], 0  # 店后门养了条土狗，叫旺财: the dog's name, not the speaker's
        # 我们已经搬到合肥了: the household moves (a place only, checked below)
        household = subject == "project" and rule.kind in ("move", "lives") and bool(
            re.search(r"我们(?!的?项目|的?团队|公司|组)", text[: m.start()]))
        if rule.self_only and subject != "self" and not household:
            return [], 0
        if "hedge" in flags:
            conf = min(conf, 0.65)
        # a 了 just after the match counts too: 我不在美团工作了 ends a job
        le = "了" if text[m.end() : m.end() + 1] == "了" else ""
        kind = _kind_after_flags(rule.kind, flags, m.group(0) + le)
        if rule.extra.get("check") == "ended_if_le" and kind == "dislike" and (
                gd.get("le") or re.search(r"已经|早就|再|失去", m.group(0))):
            kind = "stop_like"  # 对X没兴趣了: the interest is gone, it was there before
    if kind is None:
        return [], 0
    if gd.get("obj2") is not None:
        a, (bs, used) = _item(gd["obj"], "use"), _objects(gd["obj2"], "use")
        if not (_valid(a) and bs):
            return [], 0
        verb = gd.get("verb") or ""
        two = ("move_from" if verb.startswith("搬") else
               "works_switch" if verb.startswith("跳槽") else "switch")
        return [Hit(two, subject, a, bs[0], conf, group=group)], m.start("obj2") + used
    if kind == "name":
        name = re.split(r"是|在|今年|来自|住|从事|做|目前|现在|\s{2,}", raw.strip())[0].strip()
        if not _HAN_NAME.match(name) or _CALLED_NOT_NAMED.match(name):
            return [], 0
        return [Hit("name", subject, name, confidence=conf)], m.end()
    items, used = _objects(raw, kind)
    if rule.extra.get("check") == "any":  # a name, not the kind of thing (新车, 二手车)
        items = [i for i in items if not re.fullmatch(r"(?:新|旧|二手|电动)?(?:车|车子|的)", i)]
    if kind in ("use", "now_use", "stop_use") and rule.extra.get("check") != "any":
        items = [i for i in items
                 if lookup(i) is not None or re.search(r"[A-Za-z]", i) or i in APPS_ZH]
    check = rule.extra.get("check")
    if check == "company":  # a name, not the bare word (去公司上班)
        # a name no list knows where the clause starts a job there: 下周一去星帆报到
        items = [i for i in items if i in COMPANIES_ZH
                 or (_ORG_SUFFIX.search(i) and len(i) > 2) or _new_employer(i, text)]
    if check == "place":
        items = [i for i in items if is_place_zh(i)]
    if rule.extra.get("not") == "trip" and _TRIP.search(text):
        return [], 0  # 来北京出差一个月了: away, not moved
    if check == "min2":  # 只吃素 is a diet, not a taste for 素
        items = [i for i in items if len(i) >= 2 or lookup(i) is not None]
    if check == "future" and not _FUTURE.search(text[: m.start()]):
        return [], 0
    if rule.lexicon_only:
        items = [i for i in items if lookup(i) is not None]
    if kind in ("works", "stop_works"):
        loose = m.group(0).startswith(("在", "入职", "跳槽", "不在", "已经不在", "早就不在"))
        items = [i for i in items if not is_place_zh(i) and not _NOT_EMPLOYER_ZH.match(i)
                 and (loose or _ORG_SUFFIX.search(i) or i in COMPANIES_ZH
                      or _new_employer(i, text))]
    if kind in ("lives", "stop_lives", "move"):
        # 搬回老家苏州: the town, not "home town Suzhou"
        items = [re.sub(r"^(?:老家|家乡|故乡)(?=[\u4e00-\u9fff]{2})", "", i) for i in items]
        items = [re.sub(r"(?<=[\u4e00-\u9fff]{2})(?:定居|安家|生活|发展|养老)$", "", i)
                 for i in items]  # 搬回成都定居了: 成都
        items = [i for i in items if len(i) <= 12]
        if household:
            if not all(is_place_zh(i) for i in items):
                return [], 0
            subject = "self"
    if rule.extra.get("check") == "role":
        whole = _tidy(raw)  # 当用户研究员: 用 is no verb to cut off a role word
        if len(items) == 1 and whole.endswith(items[0]) and is_role_zh(whole):
            items = [whole]
        items = [i for i in items if is_role_zh(i)]
    if check == "org":  # 我已经不在银行了: an organisation, by its kind or its name
        items = [i for i in items if i in COMPANIES_ZH or _ORG_SUFFIX.search(i)]
    if not items:
        return [], 0
    hint = gd.get("dom")
    out = [Hit(kind, subject, i, confidence=conf, domain_hint=hint, group=group) for i in items]
    if gd.get("role"):
        role = _tidy(gd["role"])
        if not is_role_zh(role):
            return [], 0
        out.append(Hit("role", subject, role, confidence=conf))
    start = m.start("obj") if gd.get("obj") is not None else m.end()
    return out, max(start + used, m.end() if gd.get("role") else 0)


def _question_free(text: str) -> str | None:
    t = text.strip()
    tag = _TAG_Q.search(t)
    if tag:
        return t[: tag.start()]
    clauses = re.split(r"(?<=[，,；;])", t)
    for n, clause in enumerate(clauses):
        if _asking(clause, last=n == len(clauses) - 1):
            # 我对芒果过敏，这个甜品能把芒果换成别的吗: the statement before the request is
            # told; the request asks
            lead = "".join(clauses[:n]).rstrip("，,；; ")
            if n == 0:
                # 帮我写个请假条，我在美团做运营: after a request, what the speaker tells of
                # themself (up to the next clause that asks or names someone else) is told
                told = []
                for k, later in enumerate(clauses[1:], start=2):
                    if _asking(later, last=k == len(clauses)) or (
                            "我" not in later and _SOMEONE_ZH.search(later)):
                        break
                    told.append(later)
                lead = "".join(told).rstrip("，,；; ")
            return lead if len(lead) >= 4 else None
    return t


_REQUEST_ZH = re.compile(r"帮我|帮忙|麻烦你|请你|推荐|有没有|(?<!没)有啥|(?<!没)有什么|怎么|如何|"
                         r"该不该|能不能|"
                         r"可不可以|求(?:推荐|问)|是不是|要不要")


def _asking(clause: str, last: bool) -> bool:
    """Whether a clause asks or requests (a question word, 吗, a request), so that it and
    what follows it tell nothing."""
    c = clause.strip().rstrip("，,；;")
    if re.search(r"[？?]\s*$", c) or re.search(r"[吗么]\s*[。！!]?\s*$", c):
        return True
    if re.search(r"呢\s*[。！!]?\s*$", c) and (len(c) <= 5 or _ASKS_NE.search(c)) and last:
        return True  # 你呢, 那怎么办呢 (正在一点点攒钱呢 tells)
    if _asks(c):
        return True
    m = _REQUEST_ZH.search(c)
    return m is not None and not someone_else_helps(m.group(0), c[: m.start()])


_SOMEONE_ZH = re.compile(r"[我你他她它咱您俺]|大家|别人|朋友|同事|老板|领导|室友|邻居|同学|"
                         r"有人|人家|项目|团队|公司|客户|用户")
_ASKS_NE = re.compile(r"你|您|怎么|什么|哪|谁|为什么|为啥|如何|多少|几|是不是|要不要|能不能")


def _asks(clause: str) -> bool:
    """Whether a clause asks: a question word, unless it means "any-" (谁约我出门都不好使,
    什么都吃) or "whoever ... him" (谁往我碗里放我跟谁急)."""
    m = _QUESTION_WORDS.search(clause)
    if m is None:
        return False
    if m.group(0) == "什么" and clause[m.end():m.end() + 1] == "的":
        return False  # 芒果班戟什么的: "and so on"
    if m.group(0) in ("什么", "啥") and re.search(r"没(?:有)?$", clause[: m.start()]) \
            and "比" in clause[m.end():]:
        return False  # 没有什么比睡懒觉更爽的了: "nothing", said, not asked
    if m.group(0) in ("谁", "什么", "哪里", "哪儿", "怎么") and (
            re.search(r"[都也]", clause[m.end():]) or clause.count(m.group(0)) > 1):
        return False
    return True


def _split_word(m: re.Match[str], text: str) -> bool:
    """Whether a match whose object is closed by a verb (在X住, 在X工作) ends inside a word:
    在北京住院 is no home, 在上海生活费 no life there. (Where the object itself ends is not
    checked: jieba cuts unknown names badly, 美团干 -> 美|团干.)"""
    if m.groupdict().get("obj") is None or m.end("obj") >= m.end() or not has_cjk(text):
        return False
    return m.end() not in word_bounds(text)


def hits(sentence: str) -> list[Hit]:
    """Everything the Chinese patterns find in one sentence."""
    text = _question_free(sentence)
    topic = _TOPIC_DEHUA.match(text) if text is not None else None
    if text is not None and topic is not None:
        text = text[topic.end():].lstrip("，, ")  # what is said of the topic
    # Cursor 里怎么只改选中的几行: a how-to question says the product is used
    asked = how_to_zh(sentence) if text is None or text != sentence.strip() else []
    if text is None:
        return asked
    if _HYPOTHETICAL.search(text):
        return []
    found = _hits(text)
    found += [h for h in asked if all(f.obj != h.obj for f in found)]
    if all(h.kind == "family" for h in found) and not _SOMEONE_ZH.search(text):
        # a chat leaves the speaker out: 国庆准备自驾去川西 is the speaker's, if less surely;
        # so does a later clause (一到春天就喷嚏不断，花粉过敏真的太折磨人了); the parents
        # it names on the way (带爸妈去趟西安) do not stop that reading; a name does not
        # (店后门养了条土狗，叫旺财: the 叫 names the dog)
        for start in [0, *(m.end() for m in re.finditer(r"[，,；;]", text))]:
            more = [replace(h, confidence=min(h.confidence, 0.8))
                    for h in _hits("我" + text[start:].lstrip())
                    if h.kind != "name"
                    and all((f.kind, f.obj) != (h.kind, h.obj) for f in found)]
            if any(h.kind != "family" for h in more):
                found += more
                break
    return found


def _hits(text: str) -> list[Hit]:
    spans, found_all, group = Spans(), find_zh(text), 0
    for extra in (find_endings_zh(text), find_turned_zh(text)):
        found_all += [f for f in extra if all(f[1] <= s or f[0] >= e for s, e, _ in found_all)]
    for start, end, _ in found_all:
        spans.take(start, end)
    for rule, m in scan(RULES, text):
        group += 1
        obj_start = m.start("obj") if m.groupdict().get("obj") is not None else m.end()
        verb_start = m.end("subj") if "subj" in m.groupdict() else m.start()
        if not spans.free(verb_start, max(obj_start, verb_start + 1)) or _split_word(m, text):
            continue
        found, end = _apply(rule, m, text, group)
        if found:
            spans.take(verb_start, max(end, obj_start))
            found_all.append((m.start(), max(end, obj_start), found))
    add_passes(text, found_all, (kin_in_passing_zh, products_zh, tastes_zh, in_passing_zh))
    return attach_when(text, found_all, bool(_HEDGE.search(text)))
