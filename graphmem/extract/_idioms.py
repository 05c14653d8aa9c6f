"""Tastes said as idioms, English and Chinese: a pass of the rule extractor after the rules.

People rarely say "I like X" in a chat. They say "late-70s jazz fusion is my jam", "open-plan
offices drive me up the wall", "musicals just aren't my thing", "I got hooked on bouldering",
香菜这玩意儿我是真接受不了, KTV我是能躲就躲, 早高峰挤地铁真的要了我的命, 我还是偏爱民谣. The
idioms are many but of two shapes: the thing first and a verdict after it ("X is my jam",
"X drives me up the wall", X我接受不了), or the speaker first and a phrase of liking before
the thing ("I'm hooked on X", "I live for X", 我偏爱X). Each finder returns ``like`` or
``dislike`` hits (confidence 0.8), added only where no rule has read the same thing. A
verdict denied ("aren't my thing", "isn't for me") turns a like into a dislike.

Changes said in everyday words belong here too: "I don't read mysteries anymore", "off anime
lately", "used to be all about horror", and in Chinese (``in_passing_zh``) what a sentence
says in passing besides a taste: a habit or an app given up (奶茶我已经彻底戒了, 抖音被我卸了,
Keep会员退了), an app one scrolls (刷抖音), an employer (我们比亚迪的食堂, 去腾讯加班, 从美团跳到
拼多多), a role (算是个骑手), a home (在上海租房, 深圳这边), an allergy told by a symptom, a pet
named after its kind, a divorce that ends the one partner held. None of these is read where
another person is the one the clause is about (``_theirs``).
"""

from __future__ import annotations

import re

from graphmem.extract._lexicon import APPS_ZH, COMPANIES_ZH, PLACES, is_role_zh, lookup
from graphmem.extract._personal import PET_ZH
from graphmem.extract._text import Hit, already_named, clean_edges, someone_else_zh
from graphmem.model import CURRENT_OBJECT

Found = list[tuple[int, int, list[Hit]]]

# --------------------------------------------------------------------------- English

_FILLER_EN = (r"(?:(?:honestly|anyway|btw|by\s+the\s+way|ok|okay|so|well|tbh|also|and|but|"
              r"not\s+gonna\s+lie|ngl|lol|haha|oh|yeah|man|i\s+mean|personally|for\s+me)\s*,?\s+)*")
# the thing: a short noun phrase at the start of the sentence or clause
_THING_EN = r"(?P<obj>[\w'’.+#&-]+(?:\s+[\w'’.+#&-]+){0,4}?)"
_BE = r"(?:is|are|was|'s|'re|’s|’re)"
_ADV = (r"(?:(?:just|really|honestly|so|totally|kind\s+of|kinda|sort\s+of|definitely|simply|"
        r"absolutely|basically|literally|truly|still|always|genuinely|seriously|officially|"
        r"pretty\s+much|hands\s+down|by\s+far)\s+)*")
_GOOD = (r"(?:my\s+(?:jam|thing|happy\s+place|guilty\s+pleasure|go-to|comfort\s+food|"
         r"favou?rite(?:\s+thing)?|fave|weakness|obsession|passion|therapy|everything|religion|"
         r"comfort\s+\w+|"
         r"love\s+language|kind\s+of\s+thing|cup\s+of\s+tea|vibe|whole\s+personality)|"
         r"right\s+up\s+my\s+(?:alley|street)|the\s+best\s+thing\s+ever|"
         r"the\s+highlight\s+of\s+my\s+(?:day|week|month|year)|non-?negotiable\s+for\s+me)")
# (not "X is the best", "X is life", "so much fun": chat praise of what someone else did,
# too common in conversation to be a taste of the speaker's)
_BAD = (r"(?:my\s+(?:idea\s+of\s+hell|personal\s+hell|nightmare|pet\s+peeve|kryptonite)|"
        r"the\s+worst|torture|a\s+nightmare|a\s+(?:hard\s+)?(?:pass|no)\s+(?:for|from)\s+me|"
        r"a\s+hard\s+pass|overrated|a\s+chore|unbearable|a\s+deal-?breaker(?:\s+for\s+me)?|"
        r"the\s+bane\s+of\s+my\s+(?:life|existence))")
_NOT = r"(?:not|n't|never)\s+"
_BAD_VERB = (r"(?:drives?|driving)\s+me\s+(?:up\s+the\s+wall|crazy|nuts|mad|insane|bonkers|"
             r"round\s+the\s+bend|up\s+the\s+bend)|"
             r"(?:makes?|making)\s+me\s+(?:cringe|gag|sick|want\s+to\s+(?:scream|cry|hurl))|"
             r"(?:bores?|boring)\s+me\s+(?:to\s+(?:tears|death)|stiff|silly)|"
             r"(?:gives?|giving)\s+me\s+(?:the\s+(?:creeps|ick|heebie-jeebies)|a\s+headache|hives)|"
             r"(?:gets?|getting)\s+on\s+my\s+nerves|(?:puts?|putting)\s+me\s+to\s+sleep|"
             r"(?:does|do)\s*(?:not|n't)\s+do\s+(?:it|anything)\s+for\s+me|"
             r"(?:is|are)\s+(?:not|n't)\s+(?:really\s+)?(?:for\s+me|my\s+(?:thing|jam|cup\s+of\s+tea|"
             r"scene|vibe|kind\s+of\s+thing))|"
             r"(?:is|are|'s|'re)\s+(?:(?:a\s+)?(?:total\s+|complete\s+)?)(?:hard\s+)?pass\s+for\s+me|"
             r"(?:does|do)\s*(?:not|n't)\s+agree\s+with\s+me|(?:sucks?|suck)\b|"
             r"(?:tastes?|smells?|sounds?)\s+(?:just\s+|literally\s+)?like\s+(?:dish\s+)?"
             r"(?:soap|noise|cardboard|feet|garbage|trash|death|nails\s+on\s+a\s+chalkboard)|"
             r"(?:ruins?|ruined)\s+(?:every|any|the)\s+\w+")
_GOOD_VERB = (r"(?:never\s+gets?\s+old|(?:is|are)\s+always\s+a\s+good\s+idea|"
              r"(?:makes?|making)\s+me\s+(?:so\s+)?happy|(?:hits?|hitting)\s+the\s+spot|"
              r"(?:is|are)\s+my\s+love)")
_TOPIC_EN = re.compile(
    rf"(?:^|(?<=[,;:.!?])\s*){_FILLER_EN}{_THING_EN}\s+(?:(?P<be>{_BE})\s+{_ADV}(?P<neg>{_NOT})?"
    rf"{_ADV}(?:(?P<good>{_GOOD})|(?P<bad>{_BAD}))|{_ADV}(?P<badv>{_BAD_VERB})|"
    rf"{_ADV}(?P<goodv>{_GOOD_VERB}))\b", re.I)
# speaker first: "I got hooked on X", "I'm a sucker for X", "I live for X"
_GOOD_LEAD_EN = (
    r"on\s+a(?:\s+(?:massive|huge|big|serious|real))?(?=\s+\S+(?:\s+\S+){0,3}\s+kick\b)|"
    r"revolve\s+around|revolves\s+around|rewatched|re-watched|reread|re-read|replayed|"
    r"binging|bingeing|binge-watching|binge\s+watching|"
    r"hooked\s+on|addicted\s+to|a\s+(?:total\s+|huge\s+|big\s+)?sucker\s+for|crazy\s+about|"
    r"mad\s+about|nuts\s+about|big\s+on|all\s+about|keen\s+on|partial\s+to|passionate\s+about|"
    r"obsessed\s+with|in\s+love\s+with|fallen\s+(?:in\s+love\s+with|for)|"
    r"fell\s+(?:in\s+love\s+with|for)|a\s+(?:huge\s+|big\s+)?fan\s+of|live\s+for|"
    r"(?:could|can)\s+(?:eat|drink|watch|listen\s+to|play|read)"
    r"(?=\s+[^,.;!?]{1,40}?\s+(?:every\s+(?:single\s+)?day|all\s+day|forever|on\s+repeat))")
_BAD_LEAD_EN = (
    r"(?:zero|no|little)\s+patience\s+for|allergic\s+to\s+the\s+idea\s+of|"
    r"(?:cannot|can\s+not|can't|can’t)\s+(?:stand|bear|stomach|deal\s+with)|sick\s+of|"
    r"tired\s+of|fed\s+up\s+with")
_SPEAKER_EN = re.compile(
    r"(?:\bI(?:'m|’m|\s+am|'ve|’ve|\s+have)?|\bmy\s+(?:weekends|evenings|life|days|free\s+time|"
    r"summers|winters)|^(?:been|Been))\s+(?:(?:been|become|got|gotten|get|getting|basically|"
    r"totally|completely|really|so|kind\s+of|kinda|a\s+bit|still|always|also|just|now|"
    r"recently|lately|seriously|absolutely|properly|fully)\s+)*"
    rf"(?:(?P<good>{_GOOD_LEAD_EN})|(?P<bad>{_BAD_LEAD_EN}))\s+(?P<obj>[^,;.!?]{{1,50}})", re.I)
# "I'm such a coffee person", "a huge running nerd", "a total dog person"
_PERSON_OF_EN = re.compile(
    r"\b(?:I\s+am|I'm|I've\s+always\s+been|been)\s+(?:such\s+|totally\s+|definitely\s+|"
    r"really\s+|kind\s+of\s+|a\s+bit\s+of\s+|fully\s+|completely\s+|now\s+|officially\s+|"
    r"(?:much\s+)?more\s+of\s+)*(?:an?\s+)?(?:(?:huge|big|total|massive|real|"
    r"complete|die-hard|diehard|hardcore|proper|serious)\s+)?(?P<obj>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    r"\s+(?:person|nerd|geek|fan|junkie|lover|addict|fiend|snob|buff|freak|enthusiast)\b"
    r"(?!\s+of\b)", re.I)
_NOT_PERSON_OF = frozenset(
    "people morning night early late social private shy people's a an the huge big total massive "
    "real complete true major great long-time lifelong diehard die-hard hardcore proper serious "
    "such so too".split())
# "I don't really read mysteries anymore", "I've been really off anime lately"
_NOT_ANYMORE_EN = re.compile(
    r"\bI\s+(?:do\s+not|don't|never)\s+(?:really\s+|even\s+)?(?:read|watch|play|eat|drink|listen\s+to|"
    r"do|use|go\s+to)\s+(?P<obj>[\w' -]{2,30}?)\s+(?:anymore|any\s+more|these\s+days|now)\b|"
    r"(?:\b(?:been|am|I'm)\s+(?:really\s+|kind\s+of\s+|a\s+bit\s+|totally\s+)?|"
    # "three weeks off coffee", "a month off sugar now"
    r"(?:^|(?<=[,;:]\s)|\bI'm\s+|\bI\s+am\s+)(?:\d+|a|an|one|two|three|four|five|six|"
    r"several|a\s+few|few)\s+(?:days?|weeks?|months?|years?)\s+)off\s+"
    r"(?!to\b|for\b|from\b|of\b|at\b|by\b|work\b|school\b|today\b|tomorrow\b|now\b|sick\b|"
    r"duty\b|home\b)(?P<obj2>[\w' -]{2,30}?)"
    r"(?=\s+(?:lately|recently|these\s+days|now|and)\b|[,.;!?]|$)", re.I)
# "it's only sci-fi for me now"
_ONLY_NOW_EN = re.compile(
    r"\b(?:it\s+is|it's)\s+only\s+(?P<obj>[\w' -]{2,30}?)\s+(?:for\s+me\s+)?now\b", re.I)
# "used to be all about horror": a taste that ended
_USED_TO_BE_EN = re.compile(
    r"\bused\s+to\s+be\s+(?:all\s+about|(?:really\s+|so\s+|super\s+)?into|obsessed\s+with|"
    r"(?:a\s+(?:big\s+|huge\s+)?)?fan\s+of|big\s+on|crazy\s+about|mad\s+about|hooked\s+on)\s+"
    r"(?P<obj>[^,;.!?]{1,40}?)(?=\s+(?:but|and|until|before|though)\b|[,;.!?]|$)", re.I)
# "it's rom-coms or nothing", "it's X all the way"
_ONLY_EN = re.compile(r"\b(?:it\s+is|it's)\s+(?P<obj>[\w' -]{2,30}?)\s+(?:or\s+nothing|"
                      r"all\s+the\s+way)\b",
                      re.I)
_NOT_A_THING_EN = re.compile(
    r"^(?:it|this|that|these|those|they|he|she|you|we|i|everything|something|anything|nothing|"
    r"which|what|who|there|here|today|tonight|tomorrow|yesterday|this\s+week|the\s+weather|"
    r"work|life|the\s+(?:day|week|morning|night)|my\s+(?:day|week|job|boss|life|brother|"
    r"sister|mum|mom|dad|wife|husband|partner)|(?:the|a|an|my|our|your)\s*)$", re.I)
_TAIL_EN = re.compile(
    r"\s+(?:(?:these|those)\s+days|lately|recently|now|again|too|as\s+well|anymore|instead|kick|"
    r"like\s+\w+\s+times?|\w+\s+times|at\s+this\s+point|lol|haha|tbh|lmao|ngl|"
    r"last\s+\w+|"
    r"this\s+\w+|since\s+[\w\s]+|for\s+(?:years|ages|months|a\s+while)|every\s+(?:single\s+)?day|"
    r"all\s+(?:day|week|weekend|night|month|year|summer)|every\s+(?:night|weekend|week)|"
    r"forever|on\s+repeat|for\s+days|and\s+(?:now|it|that|so|honestly).*|"
    r"(?:,|—|-)\s.*)$", re.I)
_LEAD_EN = re.compile(r"^(?:the\s+|a\s+|an\s+|some\s+|any\s+|all\s+)", re.I)
_PEOPLE_THINGS = re.compile(r"^(?:people|guys|folks|someone|somebody|everyone|he|she|they|him|"
                            r"her|them|you)\b", re.I)


# "nothing beats a cold kombucha after a long run", "honestly nothing beats a rainy Sunday
# with a steaming bowl of pho": what is liked, without its serving and its occasion
_NOTHING_BEATS_EN = re.compile(
    r"\b(?:nothing|nothin'|nothing\s+in\s+the\s+world)\s+(?:really\s+)?(?:beats|compares\s+to|"
    r"tops)\s+(?P<obj>[^,;.!?]{2,80})", re.I)
_CUT_SCENE_EN = re.compile(
    r"\s+(?:after|before|on|in|at|when|while|during|from|for|to|and|or|like|as|with|"
    r"first\s+thing|every|each)\b", re.I)
_SERVING_EN = re.compile(
    r"^\s*(?:(?:a|an|the|my|some|good|great|nice|proper|real|big|hot|cold|ice-cold|iced|warm|"
    r"steaming|fresh|freshly\s+\w+|homemade|home-made|decent|perfect|simple|lazy|quiet|long|"
    r"rainy|sunny|slow|little)\s+)*(?:(?:bowl|cup|mug|glass|plate|slice|pint|bottle|can|"
    r"piece|box|bag|scoop)s?\s+of\s+)?(?:(?:a|an|the|good|hot|cold|fresh|homemade)\s+)*", re.I)


def _thing_en(raw: str, opens: bool = False) -> str:
    """The thing as said, without its article and trailing time words; ``opens``: it opened
    the sentence, so a capital is the sentence's ("Musicals"), not a title's."""
    obj = clean_edges(raw)
    for _ in range(3):
        obj = _TAIL_EN.sub("", obj).strip()
    obj = _LEAD_EN.sub("", obj).strip()
    first = obj.split(" ", 1)[0]
    if opens and first[:1].isupper() and first[1:] == first[1:].lower():
        obj = obj[:1].lower() + obj[1:]
    return obj


# "I put sriracha on literally everything": a taste by how much of it goes where
_ON_EVERYTHING_EN = re.compile(
    r"\bI\s+(?:put|add|pour|sprinkle|throw)\s+(?P<obj>[\w' -]{2,30}?)\s+(?:on|in|into)\s+"
    r"(?:literally\s+|basically\s+|pretty\s+much\s+|almost\s+)?(?:everything|anything)\b", re.I)


def tastes_en(text: str, found: Found) -> list[Hit]:
    """``like`` / ``dislike`` hits for the idioms of an English sentence no rule has read."""
    out: list[Hit] = []
    for m in _TOPIC_EN.finditer(text):
        obj = _thing_en(m.group("obj"), opens=not text[: m.start("obj")].strip(" ,;:"))
        if not obj or _NOT_A_THING_EN.match(obj) or _PEOPLE_THINGS.match(obj) or \
                len(obj.split()) > 5:
            continue
        good = bool(m.group("good") or m.group("goodv"))
        if m.group("neg"):
            if not good:
                continue  # "is not the worst" says little
            good = False  # "is not my thing"
        kind = "like" if good else "dislike"
        if not already_named(found, obj) and all(h.obj != obj for h in out):
            out.append(Hit(kind, "self", obj, confidence=0.8))
    for m in _NOTHING_BEATS_EN.finditer(text):
        scene = m.group("obj")
        with_ = re.search(r"\bwith\s+(?P<thing>.+)$", scene)  # "a rainy Sunday with a bowl of pho"
        obj = _thing_en(_SERVING_EN.sub("", _CUT_SCENE_EN.split(
            with_.group("thing") if with_ else scene)[0]))
        if obj and len(obj.split()) <= 4 and not _NOT_A_THING_EN.match(obj) \
                and not already_named(found, obj) and all(h.obj != obj for h in out):
            out.append(Hit("like", "self", obj, confidence=0.8))
    for m in _PERSON_OF_EN.finditer(text):
        obj = _thing_en(m.group("obj"))
        if obj and obj.lower() not in _NOT_PERSON_OF and not already_named(found, obj):
            out.append(Hit("like", "self", obj, confidence=0.8))
    for m in _NOT_ANYMORE_EN.finditer(text):
        obj = _thing_en(m.group("obj") or m.group("obj2"))
        if obj and not _NOT_A_THING_EN.match(obj):
            out.append(Hit("stop_like", "self", obj, confidence=0.8))
    for m in _ONLY_NOW_EN.finditer(text):
        obj = _thing_en(m.group("obj"))
        if obj and not already_named(found, obj):
            out.append(Hit("like", "self", obj, confidence=0.8))
    for m in _USED_TO_BE_EN.finditer(text):
        obj = _thing_en(m.group("obj"))
        if obj and not _NOT_A_THING_EN.match(obj):
            out.append(Hit("stop_like", "self", obj, confidence=0.8))
    for m in _ON_EVERYTHING_EN.finditer(text):
        obj = _thing_en(m.group("obj"))
        if obj and not _NOT_A_THING_EN.match(obj) and not already_named(found, obj) \
                and not re.match(r"(?:it|them|that|this|those|these)\b", obj, re.I):
            out.append(Hit("like", "self", obj, confidence=0.8))
    for m in _ONLY_EN.finditer(text):
        obj = _thing_en(m.group("obj"))
        if obj and not _NOT_A_THING_EN.match(obj) and not already_named(found, obj):
            out.append(Hit("like", "self", obj, confidence=0.8))
    for m in _SPEAKER_EN.finditer(text):
        obj = _thing_en(m.group("obj"))
        if not obj or _NOT_A_THING_EN.match(obj) or _PEOPLE_THINGS.match(obj) or \
                len(obj.split()) > 5:
            continue
        kind = "like" if m.group("good") else "dislike"
        if not already_named(found, obj) and all(h.obj != obj for h in out):
            out.append(Hit(kind, "self", obj, confidence=0.8))
    return out


# --------------------------------------------------------------------------- Chinese

_HAN = r"[\u4e00-\u9fffA-Za-z0-9]"
# X first, the verdict after it, with 我 (and adverbs) between: 香菜这玩意儿我是真接受不了
_TOPIC_ZH = re.compile(
    rf"(?:^|(?<=[，,。；;！!？?：:]))(?:说真的|其实|话说|对了|哈哈|老实说|说实话|讲真)?[，,]?"
    rf"(?:现在|如今|目前|最近)?连?"  # 现在连肉味都受不了: 肉味
    rf"(?P<obj>{_HAN}{{1,10}}?)(?:这(?:玩意儿?|东西|种东西|个东西|件事|事儿?))?"
    rf"(?:[，,]?我)?(?:是|也|都|就|真的?|实在|一直|向来|从来|完全|一向|特别|超|太|是真的?|有点|有些)*"
    rf"(?:(?P<bad>接受不了|受不了|忍不了|吃不了|喝不了|欣赏不来|get不到|无感|不感冒|不太感冒|"
    rf"能躲就躲|避之不及|敬而远之|讨厌|头疼|反感|要了我的命|要我命|是我的噩梦|是噩梦|劝退|踩雷|"
    rf"是我的天敌|是天敌|一生黑|下头)"
    rf"|(?P<good>是我的心头好|是我的最爱|是我的命|是我的本命|百吃不厌|百听不厌|百看不厌|"
    rf"永远的神|yyds|是真爱|是我的快乐源泉|上头|欲罢不能|爱死了|绝了|太香了|真香|"
    rf"(?:(?<=[是真太超巨])|(?<=真的))好(?:吃|喝)(?!吗|么|不)))")
# 我 first: 我偏爱X, 我超迷X, 我对X情有独钟, 我最大的快乐就是X
_SPEAKER_ZH = re.compile(
    rf"我(?:现在|最近|一直|还是|真的|特别|超|也|就|是)*"
    rf"(?:(?P<good>偏爱|钟爱|热爱|爱死了?|迷上了?|沉迷于?|痴迷于?|入坑了?|爱上了?|离不开|"
    rf"对(?P<dui>{_HAN}{{1,10}}?)(?:情有独钟|爱不释手|着迷|上瘾|特别着迷))"
    rf"|(?P<bad>受不了|接受不了|讨厌死了?|烦死了?|最烦|最怕|最讨厌|"
    rf"对(?P<dui2>{_HAN}{{1,10}}?)(?:无感|不感冒|没兴趣|没什么兴趣)))"
    rf"(?P<obj>{_HAN}{{0,12}})")
# 咖啡戒了，反倒爱上了喝茶: a later clause, its speaker left out, takes to something
_TOOK_TO_ZH = re.compile(rf"(?<=[，,])\s*(?:反倒|反而|倒是|现在|最近|后来|又|结果|居然|竟然)*"
                         rf"(?:爱上了?|迷上了?|喜欢上了?)(?P<obj>{_HAN}{{1,12}})")
# 还是美式顺口: of two, the one that suits
_RATHER_ZH = re.compile(rf"还是(?P<obj>{_HAN}{{1,6}}?)(?:更|比较|最)?(?:顺口|好喝|好吃|香|舒服|"
                        rf"靠谱|好用|方便|实在|适合我)")
# 转行做UI设计: a new trade, whatever its word
_NEW_TRADE_ZH = re.compile(
    rf"转行(?:做|当|干)了?(?P<obj>{_HAN}{{2,8}}?)(?=快|已经|了|[，,。！!]|$)")
# 《繁花》我已经二刷了: seen again and again
_AGAIN_ZH = re.compile(r"《(?P<obj>[^》]{1,20})》[^，,。！!]{0,8}?(?:[二三四五六七八九十N]刷|"
                       r"刷了[两三四五几]遍|看了[两三四五几]遍|重温了?[两三四五几]?遍?)")
# 每天下班都得来一杯杨枝甘露，不喝浑身难受
_CANNOT_DO_WITHOUT_ZH = re.compile(
    rf"(?:来一杯|来一碗|来一份|喝|吃|玩|刷)(?P<obj>{_HAN}{{2,8}})[，,]\s*(?:一天)?不(?:喝|吃|玩|刷)"
    rf"(?:就)?(?:浑身难受|难受|不舒服|睡不着|不习惯)")
# 最近一直在单曲循环《奇妙能力歌》: played over and over; 我闻到榴莲味就想吐: cannot bear it
_ON_REPEAT_ZH = re.compile(r"(?:单曲循环|无限循环|循环播放)(?:着)?《(?P<obj>[^》]{1,20})》")
_SICKENED_ZH = re.compile(
    rf"(?:^|我|(?<=[，,]))(?:一)?(?:闻到|看到|想到|吃到|听到|闻)(?P<obj>{_HAN}{{1,6}}?)(?:的)?(?:味儿?|味道|气味)?"
    rf"(?:就|都)(?:想吐|反胃|恶心|头疼|头大|受不了)")
# 高德那个语音包我听腻了: tired of
_TIRED_ZH = re.compile(rf"(?:^|"
                       rf"(?<=[，,]))(?P<obj>{_HAN}{{1,8}}?)(?:那个[^，,。]{{0,6}}?)?我?(?:已经|早就)?"
                       rf"(?:听|用|玩|吃|喝|看)腻了")
_JOY_ZH = re.compile(rf"(?:最大的|最开心的|最享受的|最喜欢的|唯一的)(?:快乐|乐趣|事|事情|爱好)"
                     rf"(?:就|大概|应该)?是(?P<obj>{_HAN}{{2,14}})")
_SOMEONE_ELSE_ZH = someone_else_zh(kin=True)
_NOT_A_THING_ZH = re.compile(r"^(?:我|你|他|她|它|这|那|这个|那个|什么|人|东西|事|天|今天|明天|"
                             r"昨天|工作|上班|生活|真的|就|也|都|还|是|"
                             # a time or an adverb before the verdict: 现在完全受不了了
                             r"以前|之前|原来|原先|过去|曾经|现在|如今|目前|最近|后来|完全|居然|"
                             r"竟然|反而|反倒|一直|特别|非常|其实|已经|真是|实在|"
                             r"肠胃|胃|肚子|身体|头|脑袋|眼睛|腰|膝盖|皮肤|嗓子|心脏)$")  # the body
_TRIM_ZH = re.compile(r"^(?:的|了|着|在|去|就|都|也|还|是|对|把)+|(?:的|了|呢|吧|啊|呀|哈+|"
                      r"这玩意儿?|这东西|这种东西|这件事|那个味儿?|这个味儿?|的味道|那个|这个)+$")


def _thing_zh(raw: str) -> str:
    obj = clean_edges(raw or "").split("我")[0]  # 螺蛳粉那个味儿我一闻就上头
    return _TRIM_ZH.sub("", obj)


def tastes_zh(text: str, found: Found) -> list[Hit]:
    """The same for a Chinese sentence."""
    out: list[Hit] = []

    def add(kind: str, obj: str) -> None:
        if 1 < len(obj) <= 12 and not _NOT_A_THING_ZH.match(obj) and not already_named(found, obj) \
                and all(h.obj != obj for h in out) and not re.search(r"[他她你]", obj):
            out.append(Hit(kind, "self", obj, confidence=0.8))

    for m in _TOPIC_ZH.finditer(text):
        add("dislike" if m.group("bad") else "like", _thing_zh(m.group("obj")))
    for m in _SPEAKER_ZH.finditer(text):
        obj = m.group("dui") or m.group("dui2") or m.group("obj")
        obj = re.split(r"[，,。；;！!？?]|尤其|特别是|因为|所以|但是|不过|，", obj)[0]
        add("dislike" if m.group("bad") else "like", _thing_zh(obj))
    for m in (*_NOTHING_BETTER_ZH.finditer(text), *_FOLLOWING_ZH.finditer(text)):
        if not _theirs(text, m.start()):
            add("like", _thing_zh(m.group("obj")))
    for m in _TOOK_TO_ZH.finditer(text):
        if not _SOMEONE_ELSE_ZH.search(text[: m.start()]):  # 我妹…，反倒爱上了: hers
            add("like", _thing_zh(m.group("obj")))
    for m in (*_AGAIN_ZH.finditer(text), *_ON_REPEAT_ZH.finditer(text)):
        add("like", m.group("obj"))
    for m in _SICKENED_ZH.finditer(text):
        if not _SOMEONE_ELSE_ZH.search(text[: m.start()].split("，")[-1]):
            add("dislike", _thing_zh(m.group("obj")))
    for m in _CANNOT_DO_WITHOUT_ZH.finditer(text):
        add("like", _thing_zh(m.group("obj")))
    for m in _RATHER_ZH.finditer(text):
        add("like", _thing_zh(m.group("obj")))
    for m in _JOY_ZH.finditer(text):
        lead = re.split(r"[，,。；;！!？?]", text[: m.start()])[-1]
        if _SOMEONE_ELSE_ZH.search(lead):
            continue  # 我女儿最开心的事就是去公园: the daughter's joy
        obj = re.split(r"[，,。；;！!？?]", m.group("obj"))[0]
        add("like", _thing_zh(obj))
    return out


# --------------------------------------------------------------------------- Chinese, said
# in passing: a habit or an app given up (奶茶我已经彻底戒了, 抖音被我卸了), an app one scrolls
# (刷抖音), the employer of one's canteen or colleagues (我们比亚迪的食堂), a pet by its name
# after its kind (我家狗狗旺财十二岁了).

_QUIT_ZH = re.compile(
    rf"(?:^|(?<=[，,]))(?:我)?(?:把)?(?P<obj>{_HAN}{{1,8}}?)(?:被我|我)?(?:已经|早就|彻底|终于|总算|"
    rf"算是|都|也|直接|干脆|果断|索性|一气之下)*(?:(?P<quit>戒(?:掉)?了)|(?P<drop>(?:给)?(?:卸了|卸载了|删了|退订了|注销了|取关了|"
    rf"退了会员)))")
_SCROLL_ZH = re.compile(rf"(?:刷|逛|玩)(?P<obj>{_HAN}{{2,6}})")
_OUR_WORK_ZH = re.compile(
    rf"我们(?P<obj>{_HAN}{{2,6}}?)的(?:食堂|同事|老板|领导|年会|团建|办公室|工位|HR|考勤|班车|"
    rf"绩效|工牌|内网|OKR|周报)")
# 大疆这边的测试流程: a known company as "here" is where one works
_COMPANY_HERE_ZH = re.compile(rf"(?:^|我们|(?<=[，,]))(?P<obj>{_HAN}{{2,6}}?)这边")
# 打两把王者荣耀: rounds of a game one plays
_ROUNDS_ZH = re.compile(rf"打(?:了)?[一两三几]把(?P<obj>{_HAN}{{2,6}}?)(?=才|就|再|[，,。！!]|$)")
_NOT_AN_EMPLOYER_ZH = re.compile(r"学校|小区|家|村|班|宿舍|公司|单位|团队|部门|组|群|楼|这边|那边")
_PET_NAMED_ZH = re.compile(
    rf"我(?:家|们家)的?(?P<species>{PET_ZH})(?P<name>[\u4e00-\u9fff]{{2}})"
    rf"(?=[0-9一二三四五六七八九十两几]+岁|今年|已经|是|特别|很|真|最|又|还|每天|天天|会|也|总|老是|"
    rf"最近|居然|竟然|终于)")


# 我一碰猫毛就打喷嚏: an allergy told by what it does
_SYMPTOM_ZH = re.compile(
    rf"(?:^|我|(?<=[，,]))(?:一|只要|每次)?(?:碰|吃|闻|接触|喝|摸)(?:到|了|过)?(?P<obj>{_HAN}{{1,6}}?)"
    rf"(?:就|都|会|马上|立马)+(?:打喷嚏|过敏|起疹子|长疹子|浑身痒|全身痒|痒|喘不上气|喘不过气|流眼泪|"
    rf"嘴肿|肿|起包|拉肚子|进医院|上吐下泻)")
# 家里那只柯基叫土豆, 我家那只老金毛旺财都十三岁了
_PET_THAT_ZH = re.compile(
    rf"(?:家里|我家|我们家)(?:的|那只|这只|那条|这条)?(?:老|小)?(?P<species>{PET_ZH})"
    rf"(?:叫(?P<name>[\u4e00-\u9fff]{{2,3}}?)(?=[，,。！!]|$|天天|每天|特别|很|是)|"
    rf"(?P<name2>[\u4e00-\u9fff]{{2}})(?=都|已经|今年|[0-9一二三四五六七八九十两几]+岁))")
# 从美团跳到拼多多: a move from one employer to the next
_JUMP_ZH = re.compile(rf"从(?P<old>{_HAN}{{2,8}}?)跳(?:槽)?(?:到|去)了?(?P<new>{_HAN}{{2,8}}?)"
                      rf"(?=快|已经|之后|以后|了|[，,。！!]|$)")
# 算是个骑手吧, 我现在就是个普通前台, 被调去做行政主管了: a role said in passing
_ROLE_SAID_ZH = re.compile(
    rf"(?:算是?个|就是个|是个|被调去做|调去做|调到[^，,。]{{0,6}}?做|升(?:为|成|到|职为|职成|职到)?了?)(?:普通的?)?"
    rf"(?P<role>{_HAN}{{2,8}}?)(?=吧|了|啊|呢|[，,。！!]|$)")


_NOT_ALLERGEN_ZH = frozenset(("东西", "啥", "它", "什么", "这个", "那个"))


# changes and habits said in passing: 我是咖啡重度爱好者, 周一又要去腾讯加班了, 离婚手续办完了,
# Keep会员退了, 以前那么爱吃香菜, 对奶茶没啥兴趣了, 只看韩剧 / 韩剧基本不看了, 在上海租房
_FAN_ZH = re.compile(rf"我是(?:个|一个)?(?:资深|重度|忠实|骨灰级)?的?(?P<obj>{_HAN}{{1,8}}?)"
                     rf"(?:重度|资深|忠实)?(?:爱好者|迷|控|发烧友|狂热粉|依赖者|上瘾者|党)")
# 没有什么比周末睡懒觉更爽的了: nothing better than it
_NOTHING_BETTER_ZH = re.compile(rf"没(?:有)?(?:什么|啥)(?:能)?比(?P<obj>{_HAN}{{2,12}}?)更"
                                rf"(?:爽|舒服|幸福|开心|快乐|香|享受|治愈|解压|好吃|好喝|好玩)")
# 最近一直在追《繁花》: a show followed as it airs
_FOLLOWING_ZH = re.compile(r"(?:^|我|(?<=[，,]))(?:最近|这阵子|这几天|天天|每天|一直|都|还|也|在)*"
                           r"(?:追|在追|二刷|三刷|重温)(?:着)?《(?P<obj>[^》]{1,20})》")
_OVERTIME_ZH = re.compile(rf"(?:去|在)(?P<obj>{_HAN}{{2,8}}?)(?:加班|打卡上班|值班)")
_DIVORCED_ZH = re.compile(
    r"离婚(?:手续|协议)?(?:已经|终于|上周|上个月|刚)?(?:办完了|办好了|签了|了)")
# 分手三个月了, 我们上个月分手了: the boyfriend or girlfriend held ends
_BROKE_UP_ZH = re.compile(
    r"(?:^|我们|我(?:(?:和|跟)(?:他|她|(?!同事|朋友|同学|室友|合伙人|团队|公司|老板|客户)"
    r"[^，,。！？他她你]{1,4}?))?|(?<=[，,]))"
    r"(?:已经|上周|上个月|去年|刚|刚刚|终于)?"
    r"(?:和平)?分手"
    r"(?:[一两三四五六七八九十几半\d]+个?(?:天|周|星期|月|年)|好久|很久|有段时间)?了")
_MEMBERSHIP_ENDED_ZH = re.compile(
    rf"(?:^|(?<=[，,]))(?P<obj>{_HAN}{{1,10}}?)(?:的)?(?:会员|订阅|年费)(?:我)?(?:已经|早就)?"
    rf"(?:退了|没续了?|不续了|到期了?没续|取消了)")
_USED_TO_LOVE_ZH = re.compile(
    rf"以前(?:我)?(?:那么|很|超|特别|可|一直)?(?:爱|喜欢)(?:吃|喝|看|玩|听)?(?P<obj>{_HAN}{{1,8}}?)"
    rf"(?:的)?[，,](?:但|可|可是)?(?:是)?现在")
_NO_INTEREST_NOW_ZH = re.compile(
    rf"对(?P<obj>{_HAN}{{1,8}}?)(?:已经|早就|现在|真的|是)*(?:没|没有)(?:啥|什么|多大)?兴趣了")
_ONLY_ZH = re.compile(
    rf"只(?:看|听|追|玩|喝|吃|用)(?![了一两几这那过])(?P<obj>{_HAN}{{2,8}}?)(?=了|[，,。！!]|$)")
_NO_LONGER_ZH = re.compile(
    rf"(?:^|(?<=[，,]))(?:现在)?(?P<obj>{_HAN}{{2,8}}?)(?:我)?(?:基本|几乎|已经|早就)*"
    rf"(?:不看了|不听了|不玩了|不追了|不喝了|不吃了|不用了)")
_LIVES_BY_ZH = re.compile(rf"在(?P<obj>{_HAN}{{2,6}}?)(?:租房|租了房|漂|定居|安家|买了房|买房)")
# 我们杭州这边最近天天下雨: "our Hangzhou here", the speaker's place
_OUR_PLACE_ZH = re.compile(rf"我们(?P<obj>{_HAN}{{2,4}}?)(?:这边|这里|这儿)")


# what each of the plain ones says: a taste, a taste or an app ended
_SIMPLE_CHANGES_ZH = (("like", _FAN_ZH), ("stop_use", _MEMBERSHIP_ENDED_ZH),
                      ("stop_like", _USED_TO_LOVE_ZH), ("stop_like", _NO_INTEREST_NOW_ZH),
                      ("like", _ONLY_ZH))


def _theirs(text: str, at: int) -> bool:
    """Whether what is said at ``at`` is someone else's: another person is named before it
    in its clause (他对围棋没兴趣了), and not the speaker after them."""
    lead = re.split(r"[，,。；;！!？?]", text[:at])[-1]
    other = list(_SOMEONE_ELSE_ZH.finditer(lead))
    return bool(other) and "我" not in lead[other[-1].end():]


def _changes_zh(text: str, out: list[Hit], kinds: set[str]) -> None:
    for kind, regex in _SIMPLE_CHANGES_ZH:
        for m in regex.finditer(text):
            obj = _TRIM_ZH.sub("", m.group("obj"))
            if obj and not _NOT_A_THING_ZH.match(obj) and not _theirs(text, m.start()):
                out.append(Hit(kind, "self", obj, confidence=0.8))  # not 以前喜欢他
    for m in _OVERTIME_ZH.finditer(text):
        if _theirs(text, m.start()):
            continue
        org = m.group("obj")
        if (org in COMPANIES_ZH or re.search(r"(?:公司|集团|银行|医院|厂)$", org)) \
                and "works" not in kinds:
            out.append(Hit("works", "self", m.group("obj"), confidence=0.8))
            kinds.add("works")
    divorced = _DIVORCED_ZH.search(text)
    if divorced and "split" not in kinds and not _SOMEONE_ELSE_ZH.search(
            text[: divorced.start()]):
        for kin in ("wife", "husband", "partner", "spouse"):
            out.append(Hit("split", "self", CURRENT_OBJECT, kin, confidence=0.8))
    broke = _BROKE_UP_ZH.search(text)
    if broke and "split" not in kinds and not divorced and not _SOMEONE_ELSE_ZH.search(
            text[: broke.start()]):
        for kin in ("boyfriend", "girlfriend", "partner"):
            out.append(Hit("split", "self", CURRENT_OBJECT, kin, confidence=0.8))
    for m in _NO_LONGER_ZH.finditer(text):
        if _theirs(text, m.start()):
            continue
        obj = _TRIM_ZH.sub("", m.group("obj"))
        if len(obj) >= 2 and not _SOMEONE_ELSE_ZH.search(obj):
            out.append(Hit("stop_either", "self", obj, confidence=0.8))
    for m in (*_LIVES_BY_ZH.finditer(text), *_OUR_PLACE_ZH.finditer(text)):
        if _theirs(text, m.start()):
            continue
        if m.group("obj") in PLACES and not kinds & {"lives", "move", "move_from"}:
            out.append(Hit("lives", "self", m.group("obj"), confidence=0.8))
            kinds.add("lives")


def in_passing_zh(text: str, found: Found) -> list[Hit]:
    """Stops, apps, employers and pets a Chinese sentence says in passing."""
    out: list[Hit] = []
    kinds = {h.kind for _, _, hs in found for h in hs}
    _changes_zh(text, out, kinds)
    said = {(h.kind, h.obj) for _, _, hs in found for h in hs}
    out = [h for h in out if (h.kind, h.obj) not in said]
    for m in _SYMPTOM_ZH.finditer(text):
        obj = _TRIM_ZH.sub("", m.group("obj"))
        if obj and obj not in _NOT_ALLERGEN_ZH and "allergy" not in kinds \
                and not _SOMEONE_ELSE_ZH.search(
                text[: m.start()]):
            out.append(Hit("allergy", "self", obj, confidence=0.8))
    for m in _PET_THAT_ZH.finditer(text):
        name = m.group("name") or m.group("name2")
        if "pet" not in kinds and name:
            out.append(Hit("pet", "self", name, m.group("species"), confidence=0.8))
            kinds.add("pet")
    for m in _JUMP_ZH.finditer(text):
        if "works_switch" not in kinds and "works" not in kinds:
            out.append(Hit("works_switch", "self", m.group("old"), m.group("new"), confidence=0.8))
            kinds.add("works")
    for m in _ROLE_SAID_ZH.finditer(text):
        role = m.group("role")
        if "role" not in kinds and is_role_zh(role) and not _SOMEONE_ELSE_ZH.search(
                text[: m.start()]):
            out.append(Hit("role", "self", role, confidence=0.8))
            kinds.add("role")
    for m in _QUIT_ZH.finditer(text):
        obj = _TRIM_ZH.sub("", m.group("obj"))
        if len(obj) < 2 or _NOT_A_THING_ZH.match(obj) or _SOMEONE_ELSE_ZH.search(obj):
            continue
        kind = "stop_either" if m.group("quit") else "stop_use"
        if not any(h.obj == obj and h.kind.startswith("stop") for _, _, hs in found for h in hs):
            out.append(Hit(kind, "self", obj, confidence=0.8))
    for m in _TIRED_ZH.finditer(text):
        obj = _TRIM_ZH.sub("", m.group("obj"))
        if len(obj) >= 2 and not _SOMEONE_ELSE_ZH.search(obj):
            out.append(Hit("stop_either", "self", obj, confidence=0.8))
    for m in _SCROLL_ZH.finditer(text):
        for n in range(len(m.group("obj")), 1, -1):
            name = m.group("obj")[:n]
            if name in APPS_ZH or lookup(name) is not None:
                if not already_named(found, name) and all(h.obj != name for h in out):
                    out.append(Hit("use", "self", name, confidence=0.8))
                break
    for m in _COMPANY_HERE_ZH.finditer(text):
        if m.group("obj") in COMPANIES_ZH and "works" not in kinds:
            out.append(Hit("works", "self", m.group("obj"), confidence=0.8))
            kinds.add("works")
        elif m.group("obj") in PLACES and not kinds & {"lives", "move", "move_from"}:
            out.append(Hit("lives", "self", m.group("obj"), confidence=0.8))  # 深圳这边的夏天
            kinds.add("lives")
    for m in _ROUNDS_ZH.finditer(text):
        add_like = m.group("obj")
        if not already_named(found, add_like):
            out.append(Hit("like", "self", add_like, confidence=0.8))
    for m in _OUR_WORK_ZH.finditer(text):
        org = m.group("obj")
        if not _NOT_AN_EMPLOYER_ZH.search(org) and not any(
                h.kind == "works" for _, _, hs in found for h in hs):
            out.append(Hit("works", "self", org, confidence=0.8))
    for m in _NEW_TRADE_ZH.finditer(text):
        if not any(h.kind == "role" for _, _, hs in found for h in hs):
            out.append(Hit("role", "self", m.group("obj"), confidence=0.8))
    for m in _PET_NAMED_ZH.finditer(text):
        if "pet" not in kinds:
            out.append(Hit("pet", "self", m.group("name"), m.group("species"), confidence=0.8))
    return out
