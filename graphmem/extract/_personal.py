"""Personal facts of the rule extractor, English and Chinese: allergies, family, pets, lessons,
tastes said as idioms.

These are said in fixed shapes ("I'm allergic to X", "I can't eat anything with X", "my wife
Maria", "I'm married to a guy named X", "We have a dog named Biscuit", "lesson learned: X",
我对X过敏, 我养了一只猫，叫豆豆, 我和老公结婚五年了，他叫X, 我的教训是X, 我对X没有抵抗力) and
always about the speaker, so they are matched before the general patterns and claim their span: in
我养了一只猫，叫豆豆 the 叫豆豆 names the cat, not the speaker. Each finder returns
``(start, end, hits)`` like the language modules' own matches.

Hit conventions: ``allergy`` (obj: the allergen), ``family`` (obj: the name, or the kin
word when no name is said; obj2: the kin relation in English, "sister"), ``pet`` (obj: the
name, or the species; obj2: the species), ``learned`` (obj: the lesson as said), ``like``
(obj: the thing liked).
"""

from __future__ import annotations

import re

from graphmem.extract._dates import TIME_WORD_ZH
from graphmem.extract._lexicon import is_role_en
from graphmem.extract._text import (
    SURNAMES_ZH,
    Hit,
    clean_edges,
    someone_else_zh,
    split_at_words,
)

Found = list[tuple[int, int, list[Hit]]]

# --------------------------------------------------------------------------- English

_KIN_EN = {
    "wife": "wife", "husband": "husband", "partner": "partner", "boyfriend": "boyfriend",
    "girlfriend": "girlfriend", "fiance": "fiance", "fiancé": "fiance", "fiancee": "fiance",
    "fiancée": "fiance", "sister": "sister", "brother": "brother", "son": "son",
    "daughter": "daughter", "kid": "child", "child": "child", "children": "child",
    "mom": "mother", "mum": "mother", "mother": "mother", "dad": "father", "father": "father",
    "grandma": "grandmother", "grandmother": "grandmother", "grandpa": "grandfather",
    "grandfather": "grandfather", "twin": "twin",
}
KIN_EN = _KIN_EN
_KIN_WORD = r"(?:" + "|".join(sorted(_KIN_EN, key=len, reverse=True)) + r")s?(?![- ]in[- ]laws?)"
_KIN_ADJ = r"(?:(?:younger|older|little|big|baby|twin|step|half|eldest|youngest|elder)[- ]?)?"
_COUNT = r"(?:an?|one|two|three|four|five|\d)\s+"
_SPECIES = (
    r"(?:dog|puppy|cat|kitten|kitty|rabbit|bunny|hamster|guinea\s+pig|parrot|budgie|cockatiel|"
    r"goldfish|turtle|tortoise|snake|lizard|gecko|horse|pony|ferret|chinchilla|hedgehog|"
    r"retriever|labrador|greyhound|poodle|beagle|corgi|husky|terrier|spaniel|dachshund|pug|"
    r"bulldog|collie|chihuahua|schnauzer|tabby|canary|axolotl|bearded\s+dragon|iguana|rat|"
    r"cockatoo|macaw|frog|tarantula|alpaca|whippet|lurcher|cockapoo|labradoodle|sheepdog)s?"
    r"(?!\s+(?:bed|food|toy|sitter|walker|park|treats?|hair|allerg))"
)
SPECIES_EN = _SPECIES
# A capitalised name; "I", sentence words and months are not names.
_NAME_EN = r"(?-i:[A-Z][a-z]+(?:\s+(?-i:[A-Z])[a-z]+)?)"
_NAMES_EN = rf"{_NAME_EN}(?:\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*){_NAME_EN})*"
_NOT_NAMES = frozenset(
    """I The A An And But So My Our He She They It We You This That Is Was Has Just Monday
    Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June
    July August September October November December Christmas Easter Thanksgiving""".split()
)
# Activities one goes to: "I go climbing every Tuesday", "I went bouldering", 我每周二去攀岩.
_ACTIVITY_EN = (r"(?:climbing|bouldering|running|jogging|swimming|cycling|hiking|skiing|"
                r"snowboarding|surfing|skating|dancing|fishing|kayaking|rowing|sailing|"
                r"camping|birdwatching|bowling|diving|to\s+(?:the\s+)?(?:gym|yoga|pilates|"
                r"choir|pottery\s+class|dance\s+class|swimming\s+pool))")
_WHEN_ZH = (r"每周[一二三四五六日天]|每个?周末|每天(?:早上|晚上)?|每个?星期[一二三四五六日天]|"
            r"每个月|周末|平时|经常|常常|每晚|每早")
_ONCE_ZH = (r"(?:今天|昨天|前天|今早|今晚|昨晚|上周[一二三四五六日天]?)(?:早上|上午|下午|晚上)?"
            r"|下班后|放学后|晚饭后")
# (the verb stays with its activity: 用户经常练瑜伽, not 经常瑜伽)
_ACTIVITY_ZH = (r"攀岩|跑步|游泳|健身|爬山|徒步|骑行|骑车|滑雪|打篮球|打羽毛球|踢足球|踢球|"
                r"练瑜伽|做瑜伽|瑜伽|钓鱼|跳舞")
# After a relative's or a pet's name, the sentence goes on (a clause end or a lower-case
# verb: "my son Eli turns four"), and the name is no possessive ("my sister Anna's friend").
_GOES_ON = r"(?=\s*(?:[,.;!?]|$)|\s+(?-i:[a-z])|['’]s\b)"
_LIFE_RULES_EN: list[tuple[str, re.Pattern[str]]] = [
    ("allergy", re.compile(
        r"\bI\s+am\s+(?:(?:very|really|severely|quite|mildly|deathly|badly|super|also|so)\s+)?"
        r"(?:allergic\s+to|intolerant\s+to)\s+(?P<obj>[^.;!?,]+)", re.I)),
    ("allergy", re.compile(
        r"\bI\s+am\s+(?:(?:very|really|severely|quite|mildly|also)\s+)?(?P<obj>lactose|gluten|"
        r"fructose|histamine|caffeine)[- ]intolerant\b", re.I)),
    ("allergy", re.compile(
        r"\bI\s+have\s+(?:an?\s+)?(?:(?:severe|mild|bad|serious|terrible|slight)\s+)?"
        r"(?P<obj>[a-z][\w -]{1,25}?)\s+(?:allergy|allergies|intolerance)\b", re.I)),
    ("allergy", re.compile(
        r"\bI\s+have\s+(?:an?\s+)?(?:(?:severe|mild|bad|serious)\s+)?(?:allergy|allergies)\s+"
        r"to\s+(?P<obj>[^.;!?,]+)", re.I)),
    ("allergy", re.compile(  # "I can't eat anything with gluten"
        r"\bI\s+(?:cannot|can\s+not)\s+(?:eat|have|drink|tolerate|digest)\s+(?:anything\s+"
        r"(?:with|containing|made\s+with)|any)\s+(?P<obj>[a-z][\w -]{1,20}?)(?=\s*(?:[,.;!?]|$))",
        re.I)),
    ("pet", re.compile(
        rf"\b(?:I|we)\s+(?:have\s+got|have|own|got|adopted|rescued|just\s+got|just\s+adopted|"
        rf"recently\s+adopted)\s+"
        rf"(?:{_COUNT})?(?P<species>(?:(?!had\b|our\b|my\b)[a-z]+\s+){{0,2}}?{_SPECIES})\b"
        rf"(?:\s*,?\s+(?:named|called)\s+(?P<names>{_NAMES_EN})|\s*,\s*(?P<list>{_NAMES_EN})\b"
        # "adopted a rescue rabbit, the shelter had named him Thumper"
        rf"|[^.;!?]{{0,50}}?\b(?:named|called)\s+(?:him|her|it)\s+(?P<later>{_NAME_EN})\b)?",
        re.I)),
    # "Our dog is called Biscuit", "my cat's name is Miso"
    ("pet", re.compile(
        rf"\b(?:my|our)\s+(?P<species>(?:[a-z]+\s+){{0,2}}?{_SPECIES})(?:\s+is|\s+was|'s)\s+"
        rf"(?:(?:called|named)|name\s+is)\s+(?P<names>{_NAMES_EN})\b", re.I)),
    # "Our rescue greyhound, Pippin, sleeps all day", "our old cat Smudge": named only
    ("pet", re.compile(
        rf"\b(?:my|our)\s+(?P<species>(?:[a-z]+\s+){{0,2}}?{_SPECIES})\s*,?\s+"
        rf"(?P<names>{_NAME_EN})\b{_GOES_ON}"
        rf"(?![^.;!?]*\b(?:died|passed\s+away|put\s+down|rehomed|re-homed|ran\s+away|"
        rf"went\s+missing)\b)", re.I)),
    ("family", re.compile(  # "we have twin boys, Max and Leo": sons
        rf"\b(?:I|we)\s+have\s+(?:{_COUNT})?(?:twin\s+|little\s+|young\s+|teenage\s+|grown\s+)?"
        rf"(?P<kin>boys|girls)\b(?:\s*,?\s+(?:named|called)\s+(?P<names>{_NAMES_EN})|\s*,\s*"
        rf"(?P<list>{_NAMES_EN})\b)?", re.I)),
    ("family", re.compile(
        rf"\b(?:I|we)\s+have\s+(?:{_COUNT})?{_KIN_ADJ}(?P<kin>{_KIN_WORD})\b"
        rf"(?:\s*,?\s+(?:named|called)\s+(?P<names>{_NAMES_EN})|\s*,\s*(?P<list>{_NAMES_EN})\b)?",
        re.I)),
    ("family", re.compile(  # named only: "my sister lives in Paris" is the sister's fact
        rf"\bmy\s+{_KIN_ADJ}(?P<kin>{_KIN_WORD})\b(?:\s*,?\s+(?P<names>{_NAME_EN})\b"
        rf"{_GOES_ON})?", re.I)),
    ("married", re.compile(  # "I am married to a wonderful guy named Daniel"
        rf"\bI\s+am\s+(?:happily\s+|now\s+)?married\s+to\s+(?:(?:an?|the|this)\s+)?"
        rf"(?:(?:[a-z]+\s+){{0,2}}?(?P<who>guy|man|woman|lady|girl|person|husband|wife)\s*,?\s*"
        rf"(?:named|called)?\s*)?(?P<names>{_NAME_EN})\b", re.I)),
    ("learned", re.compile(
        r"^\s*(?:lesson\s+learned|note\s+to\s+self|(?:the|my|one)\s+lesson\s+(?:here\s+|i\s+"
        r"learned\s+)?(?:is|was)|takeaway|(?:my\s+)?rule\s+of\s+thumb)\s*(?:[:,-]|is|was)?\s*"
        r"(?:that\s+)?(?P<obj>.+)$", re.I)),
    # "If this job has taught me anything, it's that ..."
    ("learned", re.compile(
        r"\bif\s+[^,]{1,40}?\s+(?:has\s+)?taught\s+me\s+anything\s*,\s*it(?:'s|\s+is|\s+was)\s+"
        r"(?:that\s+)?(?P<obj>.+)$", re.I)),
    # "Big lesson from this trip: never ...", "What I took away from the move is to ..."
    ("learned", re.compile(
        r"^\s*(?:(?:a|one|the|my)\s+)?(?:big|biggest|main|key|hard|important|real)\s+"
        r"(?:lesson|takeaway)(?:\s+(?:from|of)\s+[^:]{1,40}?)?\s*[:-]\s*(?P<obj>.+)$", re.I)),
    ("learned", re.compile(
        r"^\s*what\s+I\s+(?:took\s+away|learned|learnt)\s+from\s+[^,;]{1,40}?\s+(?:is|was)\s+"
        r"(?:that\s+)?(?P<obj>.+)$", re.I)),
    ("habit", re.compile(
        rf"^\s*I\s+(?:usually\s+|always\s+|still\s+|also\s+|often\s+)?(?:go|went)\s+"
        rf"(?P<obj>{_ACTIVITY_EN})\b(?:\s+(?P<when>(?:every|each|on)\s+\w+|twice\s+a\s+\w+|"
        rf"once\s+a\s+\w+))?", re.I)),
    ("learned", re.compile(
        r"\bI\s+(?:have\s+)?(?:finally\s+|since\s+|now\s+)?learned\s+(?:(?:the\s+hard\s+way|my\s+"
        r"lesson|from\s+experience)\s*[:,]?\s*(?:that\s+)?|that\s+|(?=(?:never|always|not)\s+to\b)|"
        r"to\s+(?=always\b|never\b|not\b|check\b|read\b|ask\b|keep\b|take\b|get\b|double-check\b|"
        r"photograph\b|document\b|back\s+up\b|save\b|trust\b))"
        r"(?P<obj>.+)$", re.I)),
]


_ARTICLE_OR_TOO = re.compile(r"^(?:the|a|an|some)\s+|\s+(?:too|as well)$", re.I)


def _names(text: str | None) -> list[str]:
    if not text:
        return []
    parts = re.split(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|&)\s*", text.strip())
    return [p for p in parts if p and p.split()[0] not in _NOT_NAMES]


def _lesson(raw: str) -> str:
    text = re.sub(r"\bnever\s+ever\b", "never", clean_edges(raw), flags=re.I)
    return text if 0 < len(text.split()) <= 20 else ""


def find_en(text: str) -> Found:
    """Allergies, family, pets and lessons in one English sentence (contractions expanded)."""
    found: Found = []
    taken: list[tuple[int, int]] = []
    for kind, regex in _LIFE_RULES_EN:
        for m in regex.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            hits = _hits_en(kind, m)
            if hits:
                found.append((m.start(), m.end(), hits))
                taken.append((m.start(), m.end()))
    return found


def _hits_en(kind: str, m: re.Match[str]) -> list[Hit]:
    gd = m.groupdict()
    if kind == "allergy":
        items = re.split(r"\s*(?:,|\band\b|\bor\b|&)\s*", gd["obj"])
        items = [_ARTICLE_OR_TOO.sub("", clean_edges(i)) for i in items]
        ok = [i for i in items if i and len(i.split()) <= 4
              and i.lower() not in ("it", "them", "that", "this", "something", "anything")]
        return [Hit("allergy", "self", i.lower() if i[:1].isupper() and i[1:].islower() else i)
                for i in ok]
    if kind == "learned":
        lesson = _lesson(gd["obj"])
        return [Hit("learned", "self", lesson)] if lesson else []
    if kind == "habit":
        return _habit(m, zh=False)
    names = _names(gd.get("names") or gd.get("list") or gd.get("later"))
    if kind == "married":
        who = (gd.get("who") or "").lower()
        kin = "husband" if who in ("guy", "man", "husband") else \
            "wife" if who in ("woman", "lady", "girl", "wife") else "spouse"
        return [Hit("family", "self", n, kin) for n in names]
    if kind == "pet":
        species = re.sub(r"s$", "", gd["species"].lower()) if not gd["species"].lower().endswith(
            ("ss", "us")) else gd["species"].lower()
        species = re.sub(r"^(?:new|little|pet|baby|rescue|old|senior|young|cute)\s+", "", species)
        return [Hit("pet", "self", n, species, confidence=0.9) for n in names] or [
            Hit("pet", "self", species, species, confidence=0.85)]
    kin_word = gd["kin"].lower()
    kin = {"boys": "son", "girls": "daughter"}.get(kin_word) or _KIN_EN.get(kin_word) \
        or _KIN_EN.get(kin_word.rstrip("s"), "relative")
    if names:
        return [Hit("family", "self", n, kin) for n in names]
    if not m.group(0).lower().startswith(("i ", "we ")):
        return []  # "my sister lives in Paris" is about the sister
    return [Hit("family", "self", kin, kin, confidence=0.8)]


# --------------------------------------------------------------------------- Chinese

_KIN_ZH = {
    "老婆": "wife", "妻子": "wife", "太太": "wife", "媳妇": "wife", "老公": "husband",
    "丈夫": "husband", "爱人": "partner", "男朋友": "boyfriend", "女朋友": "girlfriend",
    "儿子": "son", "女儿": "daughter", "孩子": "child", "哥哥": "brother", "弟弟": "brother",
    "姐姐": "sister", "妹妹": "sister", "妈妈": "mother", "母亲": "mother", "爸爸": "father",
    "父亲": "father", "奶奶": "grandmother", "外婆": "grandmother", "爷爷": "grandfather",
    "外公": "grandfather", "大儿子": "son", "小儿子": "son", "大女儿": "daughter",
    "小女儿": "daughter", "闺女": "daughter", "男友": "boyfriend", "女友": "girlfriend",
    "姥姥": "grandmother", "姥爷": "grandfather", "表姐": "cousin", "表妹": "cousin",
    "表哥": "cousin", "表弟": "cousin", "堂姐": "cousin", "堂妹": "cousin", "堂哥": "cousin",
    "堂弟": "cousin",
}
KIN_ZH = _KIN_ZH
_KIN_ZH_RE = "|".join(sorted(_KIN_ZH, key=len, reverse=True))
_PET_ZH = (
    "猫咪|小猫|猫|小狗|狗狗|狗|仓鼠|兔子|乌龟|鹦鹉|金鱼|鱼|柯基|柴犬|金毛|哈士奇|泰迪|边牧|布偶猫|"
    "英短|橘猫|蓝猫|龙猫|刺猬|蜥蜴|蛇"
)
PET_ZH = _PET_ZH
_MEASURE = r"(?:[一两二三四五几]?\s*[只条匹头个])?"
_NAME_ZH = re.compile(  # 叫它豆包: the name after the pronoun
    r"(?:名字叫|名叫|叫做|取名叫|取名|叫)(?:它|她|他)?(?P<name>[\u4e00-\u9fffA-Za-z]{1,8})")
_NAME_END = re.compile(r"是|在|今年|今天|已经|刚|很|也|和|另?一[只条个匹]|，|,|。|\s")
_LIFE_RULES_ZH: list[tuple[str, re.Pattern[str]]] = [
    ("pet", re.compile(
        rf"我(?:家|们家)?(?:现在|目前|去年|之前|最近|刚|还|也|又)*(?:养了|养着|养|有|领养了|收养了|"
        rf"捡了|买了)(?P<count>{_MEASURE})(?P<species>{_PET_ZH})")),
    # 养了一只柯尔鸭: a pet of a kind the list does not know, kept (养) and counted (一只)
    ("pet", re.compile(
        rf"(?:^|我|[，,])(?:家|们家)?(?:{TIME_WORD_ZH}|现在|目前|去年|之前|最近|刚|还|也|又)*"
        r"(?:养了|养着|领养了|收养了)(?P<count>[一两二三四五几]?\s*[只条匹头])"
        r"(?P<species>[\u4e00-\u9fff]{1,4}?)"
        r"(?=[，,。！!；;]|$|叫|名叫)")),
    # 我们家的边牧叫闪电: the household's pet, named
    ("pet", re.compile(rf"我(?:家|们家)的?(?P<count>)(?P<species>{_PET_ZH})(?=叫|名叫|名字叫)")),
    ("family", re.compile(rf"我有(?:{_MEASURE}|一位|一个|两个|三个|个|位)?"
                          rf"(?:双胞胎|亲|同父异母的|同母异父的)?(?P<kin>{_KIN_ZH_RE})")),
    ("family", re.compile(rf"我(?:的|和|跟)?(?P<kin>{_KIN_ZH_RE})(?!们)")),
    ("learned", re.compile(
        r"(?:我的|这次的|一个)?教训(?:是|就是|[：:])[：:，,]?\s*(?P<obj>[^。！!？?]+)")),
    ("learned", re.compile(
        r"吸取了?(?:一个|这个)?教训[：:，,]\s*(?P<obj>[^。！!？?]+)")),
    ("learned", re.compile(
        r"我(?:终于|算是|总算|才)?(?:学到|明白|懂得|懂|意识到)了?(?:(?:一点|一件事|一个道理|一课)[：:，,]|"
        r"[：:])\s*(?P<obj>[^。！!？?]+)")),
    ("learned", re.compile(
        r"我学到的(?:最重要的|最大的)?(?:一点|一件事|一课|道理|教训)(?:就)?是[：:，,]?\s*"
        r"(?P<obj>[^。！!？?]+)")),
    ("learned", re.compile(r"我才(?:知道|明白|意识到|懂)[：:，,]\s*(?P<obj>[^。！!？?]+)")),
    # 我算是明白了，X / 吃一堑长一智，以后X: a lesson after a comma, said at some length
    ("learned", re.compile(
        r"(?:我(?:终于|算是|总算|才)?(?:明白|懂得|懂|意识到|学乖)了|吃一堑长一智|长记性了|"
        r"涨教训了|长教训了)[，,：:]\s*(?P<obj>[^。！!？?]{6,})")),
    ("habit", re.compile(
        rf"我(?:(?P<when>{_WHEN_ZH})|{_ONCE_ZH})?(?:都|也|还|又|常|一般)?(?:会)?(?:去)?"
        rf"(?P<obj>{_ACTIVITY_ZH})"
        rf"(?![\u4e00-\u9fff]*(?:吗|呢|？|\?))")),
    ("learned", re.compile(r"经验告诉我[：:，,]?\s*(?P<obj>[^。！!？?]+)")),
    # tastes said as idioms: 我对榴莲完全没有抵抗力, 周末宅在家看剧是我最享受的事
    ("like", re.compile(r"我对(?P<obj>[\u4e00-\u9fffA-Za-z]{1,8}?)(?:完全|根本|一点|真的|实在)?"
                        r"(?:都|也)?没(?:有)?(?:什么|一点)?抵抗力")),
    ("like", re.compile(r"(?:^|(?<=[，,。；]))(?P<obj>[\u4e00-\u9fffA-Za-z]{2,12}?)是我"
                        r"(?:最|特别|非常)(?:享受|喜欢|爱|期待)的(?:事|事情|时光|时刻|活动)")),
]
_ALLERGY_ZH = re.compile(r"过敏")
_ALLERGY_LEAD = re.compile(
    r"^(?:我(?:自己)?)(?:从小|一直|天生|也|还|有点|有些|比较|特别)*(?:对|有)?"
)
_ALLERGY_TAIL = re.compile(r"(?:都|也|有点|有些|比较|很|非常|特别|严重|容易)+$")
# What one does to the allergen, and what comes between it and 过敏: 我吃芒果会过敏 -> 芒果,
# 我碰到猫毛就过敏 -> 猫毛, 吃了虾以后过敏了 -> 虾.
_ALLERGY_CONTACT = re.compile(
    r"^(?:一)?(?:吃|喝|用|碰|摸|接触|闻|吸入|吸|涂|抹|沾|戴|穿)(?:了|过|到|完|了一点|一点|点)?"
    r"(?=[\u4e00-\u9fffA-Za-z]{1,8}(?:会|就|都|也|一|马上|立刻|容易|以后|之后|后|的时候|时)*$)")
_ALLERGY_THEN = re.compile(
    r"(?:会|就|都|也|还|一|马上|立刻|立马|容易|以后|之后|后|的时候|时候|时|了|过|有点|有些|很|"
    r"非常|特别|严重)+$")
_ALLERGY_SPLIT = re.compile(r"和|、|与|跟|及|以及|/")
_ALLERGY_WHEN = re.compile(rf"^(?:{TIME_WORD_ZH}|小时候|后来|现在|平时|每次|一到|春天|秋天|换季)+")
# Words that stand for an allergen without naming it.
_NOT_ALLERGEN = frozenset({"东西", "啥", "它"})


# A relative's name said right after the kin word, family name first: 我妹妹王雪下个月结婚,
# 我男朋友陈昊在成都工作 (the common family names only, and a word that goes on after it).
_SURNAME_NAME = re.compile(  # or a pet name: 小杰, 阿强, 老王, or a doubled one: 朵朵
    rf"^(?P<name>[{SURNAMES_ZH}][\u4e00-\u9fff]{{1,2}}?|[小阿老][\u4e00-\u9fff]|"
    r"(?!天天|常常|刚刚|慢慢|渐渐|好好|早早|悄悄|默默|偏偏|往往|处处|时时|久久|每每)([\u4e00-\u9fff])\2)"
    rf"(?=在|是|今年|明年|去年|下个?月|上个?月|"
    rf"下周|已经|刚|也|很|和|跟|住|做|当|结婚|离婚|考上|上了|说|觉得|生日|[，,。！!])")


# What may come between a relative or pet and the 叫 that names it: 我家的狗叫旺财,
# 一只猫，它叫咪咪, 两只鹦鹉，一只叫豆豆一只叫球球 (not 每天早上把我叫醒).
_BEFORE_NAME_ZH = re.compile(
    r"^[，,\s]*(?:它|她|他|另一只|另一条|一只|一条|一个|名字|小名|大名|的)*$")


_THEN_HE_ZH = re.compile(r"[，,]\s*(?:他|她|它)(?:的)?(?:名字|小名|大名)?$")  # 结婚五年了，他叫刘洋


def _names_zh(rest: str) -> list[str]:
    out: list[str] = []
    pos = 0
    while (m := _NAME_ZH.search(rest, pos)) is not None:
        between = rest[pos : m.start()]
        if not (_BEFORE_NAME_ZH.match(between) or _THEN_HE_ZH.search(between)):
            break
        name = split_at_words(_NAME_END, m.group("name"))[0]
        if not name:
            break
        if name not in out:
            out.append(name)
        pos = m.start("name") + len(name)
    return out


def _allergies_zh(text: str) -> Found:
    found: Found = []
    for m in _ALLERGY_ZH.finditer(text):
        clause_start = max(text.rfind(c, 0, m.start()) for c in "，,。；;！!？?") + 1
        clause = text[clause_start : m.start()]
        lead = _ALLERGY_LEAD.match(clause)
        if not lead or not clause.startswith("我") or re.search(r"[不没]$", clause):
            continue
        body = _ALLERGY_TAIL.sub("", clause[lead.end() :])
        body = _ALLERGY_WHEN.sub("", body)
        contact = _ALLERGY_CONTACT.match(body)
        body = _ALLERGY_THEN.sub("", body[contact.end() :] if contact else body)
        if body in _NOT_ALLERGEN:
            continue
        if re.match(r"^[的了]|^(?:过|这|那|什么)", body) or "对" in body \
                or re.search(_KIN_ZH_RE, body):
            continue
        items = [i for i in split_at_words(_ALLERGY_SPLIT, body) if i]
        if items and all(1 <= len(i) <= 8 for i in items):
            found.append((clause_start, m.end(), [Hit("allergy", "self", i) for i in items]))
    return found


def _habit(m: re.Match[str], zh: bool) -> list[Hit]:
    """A recurring activity: "I go climbing every Tuesday", 我每周二去攀岩 (habit), or one
    time without a cadence, "I went bouldering" (event): reflect finds the habit in
    repeated events."""
    obj = m.group("obj").lower() if not zh else m.group("obj")
    when = " ".join((m.group("when") or "").split())
    return [Hit("habit" if when else "event", "self", obj, when)]


def find_zh(text: str) -> Found:
    """Allergies, family, pets and lessons in one Chinese sentence."""
    found = _allergies_zh(text)
    taken = [(s, e) for s, e, _ in found]
    for kind, regex in _LIFE_RULES_ZH:
        for m in regex.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            if kind == "learned":
                lesson = clean_edges(m.group("obj"))
                if 0 < len(lesson) <= 40:
                    found.append((m.start(), m.end(), [Hit("learned", "self", lesson)]))
                    taken.append((m.start(), m.end()))
                continue
            if kind == "habit":
                found.append((m.start(), m.end(), _habit(m, zh=True)))
                taken.append((m.start(), m.end()))
                continue
            if kind == "like":
                found.append((m.start(), m.end(), [Hit("like", "self", m.group("obj"))]))
                taken.append((m.start(), m.end()))
                continue
            rest = text[m.end() :]
            names = _names_zh(rest)
            end = len(text) if names else m.end()
            if kind == "pet":
                species = m.group("species")
                hits = [Hit("pet", "self", n, species) for n in names] or [
                    Hit("pet", "self", species, species, confidence=0.85)]
            else:
                kin_word = m.group("kin")
                kin = _KIN_ZH[kin_word]
                said = _SURNAME_NAME.match(rest) if not names else None
                if said and m.group(0).startswith("我"):  # 我妹妹王雪下个月结婚
                    names = [said.group("name")]
                    end = m.end() + said.end()
                hits = [Hit("family", "self", n, kin) for n in names]
                if not hits and m.group(0).startswith("我有"):  # not 我妹妹住在广州
                    hits = [Hit("family", "self", kin_word, kin, confidence=0.8)]
                if not hits:
                    continue
            found.append((m.start(), end, hits))
            taken.append((m.start(), end))
    return found


# --------------------------------------------------------------------------- relatives said
# in passing: "My mum still rings me every Sunday", 我爸爸退休以后天天下象棋. The sentence is
# about the relative, but it says the speaker has one: ``has_mother`` with the kin word as
# the object (a name, when said, is found by the rules above). Added last and claiming no
# span, so a break-up or anything else the sentence says about the relative is read as before;
# a sentence that ends a relation, mourns or speaks of an ex adds nothing.

_MY_KIN_EN = re.compile(
    rf"\b(?:my|our)\s+{_KIN_ADJ}(?P<kin>{_KIN_WORD})\b"
    # "Grandpa turns 90 on Sunday", "Mum called": a kin word used as a name opens the sentence
    rf"|^\s*(?P<bare>(?-i:Grandpa|Grandma|Granddad|Grandad|Nana|Mum|Mom|Dad))\b(?!\s*,)", re.I)
_SHORT_KIN_ZH = {"妈": "mother", "爸": "father", "姐": "sister", "哥": "brother", "弟": "brother",
                  "妹": "sister"}
_MY_KIN_ZH = re.compile(
    rf"我(?:的|和|跟|家)?(?P<kin>{_KIN_ZH_RE}|[妈爸姐哥弟妹](?![\u4e00-\u9fff]*[们]))"
    rf"|(?:^|[，,]|跟|和|陪|带|给)(?P<own>儿子|女儿|老公|老婆|男朋友|女朋友)(?![们的朋])"
    rf"|(?:我|跟|和|陪|带|给|接)(?P<both>爸妈|父母)(?![们的朋])")
_GONE_EN = re.compile(
    r"\b(?:ex|late|former|passed\s+away|died|funeral|divorc\w*|split|broke\s+up|breaking\s+up|"
    r"break\s+up|dumped|separated|miss(?:ed)?\s+(?:him|her))\b", re.I)
_GONE_ZH = re.compile(
    r"前(?:妻|夫|男友|女友|男朋友|女朋友)|去世|走了|过世|离婚|分手|葬礼|不在了|已故|如果|要是|假如")
# relatives named in the plural or only as a group say nothing about one person
_NOT_ONE_KIN = frozenset({"twin"})


def _said_kins(found: Found) -> set[str]:
    return {h.obj2 for _, _, hits in found for h in hits if h.kind in ("family", "split")}


# capitalised words after a kin word that name no one ("my mum Monday" is in _NOT_NAMES)
_NOT_A_NAME_WORD = frozenset(
    "Please Thanks Can Could Would Should What How Why When Where Who Which Any Also Lol".split())


def kin_in_passing_en(text: str, found: Found) -> list[Hit]:
    """``family`` hits for each "my <relative>" of an English sentence that no other rule
    has read."""
    if _GONE_EN.search(text):
        return []
    said, out = _said_kins(found), []
    for m in _MY_KIN_EN.finditer(text):
        word = (m.group("kin") or m.group("bare")).lower()
        word = {"granddad": "grandpa", "grandad": "grandpa", "nana": "grandma"}.get(word, word)
        kin = _KIN_EN.get(word) or _KIN_EN.get(word.rstrip("s"))
        if not kin or kin in said or kin in _NOT_ONE_KIN:
            continue
        said.add(kin)
        # "What should I get my sister Priya?": her name, when it follows
        named = re.match(rf"\s*,?\s*(?P<name>{_NAME_EN})\b{_GOES_ON}", text[m.end():]) \
            if m.group("kin") else None
        name = named.group("name") if named and named.group("name").split()[0] not in \
            _NOT_NAMES | _NOT_A_NAME_WORD else None
        out.append(Hit("family", "self", name or kin, kin, confidence=0.8))
    return out


def kin_in_passing_zh(text: str, found: Found) -> list[Hit]:
    """The same for 我(的)<亲属> in a Chinese sentence; the object is the kin word as said."""
    if _GONE_ZH.search(text):
        return []
    said, out = _said_kins(found), []
    for m in _MY_KIN_ZH.finditer(text):
        if m.group("both"):  # 带爸妈去西安: a father and a mother
            if _OTHER_ONES_ZH.search(text[: m.start("both")]):
                continue  # 他带爸妈去了: his
            for kin, word in (("father", "爸爸"), ("mother", "妈妈")):
                if kin not in said:
                    said.add(kin)
                    out.append(Hit("family", "self", word, kin, confidence=0.8))
            continue
        word = m.group("kin") or m.group("own")
        if m.group("own") and _OTHER_ONES_ZH.search(text[: m.start("own")]):
            continue  # 他跟老婆: the other one's wife
        kin = _KIN_ZH.get(word) or _SHORT_KIN_ZH[word]
        if kin in said:
            continue
        said.add(kin)
        named = _SURNAME_NAME.match(text[m.end():])  # 我姐王雪下个月结婚
        obj = named.group("name") if named else _FULL_KIN_ZH.get(word, word)
        out.append(Hit("family", "self", obj, kin, confidence=0.8))
    return out


_FULL_KIN_ZH = {"妈": "妈妈", "爸": "爸爸", "姐": "姐姐", "哥": "哥哥", "弟": "弟弟", "妹": "妹妹"}
_OTHER_ONES_ZH = someone_else_zh(kin=False)


# --------------------------------------------------------------------------- English said in
# passing: a pet ("Our rescue greyhound sleeps all day", "Biscuit, my corgi, hates the vacuum"),
# an allergy as a noun ("my cat dander allergy is no joke"), a job taken ("started my new gig
# as a data engineer at Klarna"), a plan said in the present ("I'm running the Lisbon half
# marathon next March"). Added last, where no rule has read the same.

_MY_PET_EN = re.compile(
    rf"(?:(?P<name>{_NAME_EN})\s*[,(]\s*)?\b(?:my|our)\s+(?P<species>(?:[a-z]+\s+){{0,2}}?{_SPECIES})\b"
    rf"(?!\s+(?:allerg\w*|dander|hair|fur|food|bowl|bed|toys?|sitter|walker))"
    rf"(?:\s*,?\s+(?P<after>{_NAME_EN})\b{_GOES_ON})?", re.I)
_PET_GONE_EN = re.compile(r"\b(?:died|passed\s+away|put\s+down|put\s+to\s+sleep|rehomed|re-homed|"
                          r"ran\s+away|went\s+missing|buried|lost\s+(?:him|her)|miss\s+(?:him|her)|"
                          r"late|used\s+to\s+have|had\s+to\s+give)\b", re.I)
_NOUN_ALLERGY_EN = re.compile(
    r"\bmy\s+(?:(?:severe|mild|bad|awful|seasonal|stupid|annoying)\s+)?(?P<obj>[a-z][a-z -]{1,25}?)"
    r"\s+(?:allergy|allergies|intolerance)\b"
    # "Penicillin allergy here.", "Nut allergy, so no pesto please"
    r"|^\s*(?P<obj2>[A-Za-z][a-z-]{2,20}(?:\s+[a-z-]{2,12})?)\s+(?:allergy|allergies|intolerance)"
    r"(?:\s+here|\s+over\s+here)?\s*(?:[.,;!:-]|$)", re.I)
_SYMPTOM_ALLERGY_EN = re.compile(
    r"(?:^|(?<=[,;:])\s*|\banything\s+with\s+)(?:just\s+a\s+heads\s+up[^,]*,\s*)?"
    r"(?P<obj>[a-z][a-z -]{1,25}?)\s+(?:sends?\s+me\s+to\s+(?:the\s+)?"
    r"(?:ER|A&E|hospital|emergency)|"
    r"(?:has|have|gets?|got)\s+me\s+(?:sneezing|wheezing|itching|swelling|scratching|in\s+hives)|"
    r"makes?\s+(?:me|my\s+\w+)\s+(?:swell|itch|break\s+out|sneeze|wheeze|close\s+up))", re.I)
_NOT_ALLERGEN_EN = frozenset({"food", "seasonal", "skin", "severe", "new", "old", "own"})
# "Shellfish and I do not get along": an allergy when the sentence tells what it does to the
# speaker ("last time my throat started closing up"), else a dislike
_NOT_ALONG_EN = re.compile(
    r"(?:^|(?<=[,;:])\s*)(?P<obj>[a-z][a-z -]{1,25}?)\s+and\s+I\s+(?:just\s+|really\s+|simply\s+)?"
    r"(?:do\s+not|don't|never)\s+(?:really\s+)?(?:get\s+along|agree|mix)\b", re.I)
_KIN_OR_PEOPLE_EN = re.compile(
    r"\b(?:boss|manager|sister|brother|mum|mom|dad|mother|father|wife|husband|partner|"
    r"boyfriend|girlfriend|son|daughter|neighbou?r|roommate|flatmate|colleague|coworker|"
    r"friend|cousin|aunt|uncle|in-laws?|cat|dog|he|she|they)\b", re.I)
_SYMPTOM_EN = re.compile(
    r"\b(?:throat|hives|rash|swell\w*|itch\w*|wheez\w*|sneez\w*|epipen|epi-pen|anaphyla\w*|"
    r"allergic|reaction|ER|A&E|breathe|breathing)\b", re.I)


# --------------------------------------------------------------------------- a home said in
# passing: "still unpacking boxes in the Cardiff flat", "our new place in Leeds has no
# signal", "my flat in Lyon is tiny". Only the speaker's own home, now: not a holiday let, a
# viewing, one for sale, an old one or someone else's.
_HOME_WORD = r"(?:flat|apartment|house|home|place|condo|studio|bungalow|maisonette|terrace)"
_HOME_IN_EN = re.compile(
    rf"\b(?:my|our)\s+(?:(?:new|little|tiny|rented|cosy|cozy|own|first|shared|one-bed|"
    rf"two-bed|three-bed)\s+)*{_HOME_WORD}\s+(?:here\s+)?in\s+(?P<place>{_NAME_EN})\b"
    rf"(?!['’]s)", re.I)
_PLACE_HOME_EN = re.compile(
    rf"\b(?:my|our|the)\s+(?:new\s+)?(?P<place>{_NAME_EN})\s+"
    rf"(?:flat|apartment|house|condo|bungalow|maisonette)\b", re.I)
_NOT_HOME_EN = re.compile(
    r"\b(?:holiday|vacation|airbnb|hotel|hostel|trip|visit\w*|view\w*|looking\s+at|for\s+sale|"
    r"sell\w*|sold|rent\w*\s+out|letting|old|former|previous|used\s+to|grew\s+up|parents|mum|"
    r"mom|dad|sister|brother|friend\w*|neighbou?r|his|her|their|your|if|would|could|might|"
    r"thinking|considering|dream|someday|one\s+day|want\w*|hope|hoping|buy\w*|offer|mortgage"
    r"\s+on\s+a|weekend\s+away|staying|stayed|booked|book)\b|\w['’]s\s", re.I)


# "it's pouring in Seattle again": the weather of where one lives, said as a thing that recurs
_WEATHER_HOME_EN = re.compile(
    rf"\b(?:it\s+is|it's|it\s+has\s+been|been)\s+(?:\w+\s+){{0,2}}?(?:pouring|raining|"
    rf"snowing|freezing|sweltering|scorching|boiling|humid|muggy|grey|gray)\b[^.!?]{{0,20}}?"
    rf"\b(?:here\s+)?in\s+(?P<place>{_NAME_EN})\s+again\b", re.I)


def homes_in_passing_en(text: str, found: Found) -> list[Hit]:
    """A ``lives`` hit for the place an English sentence names as the speaker's home in
    passing, where no rule read a home (confidence 0.7)."""
    if any(h.kind in ("lives", "move", "relocate", "stop_lives", "move_from")
           for _, _, hits in found for h in hits) or _NOT_HOME_EN.search(text):
        return []
    m = _HOME_IN_EN.search(text) or _PLACE_HOME_EN.search(text) or (
        _WEATHER_HOME_EN.search(text) if not re.search(r"\b(?:over\s+)?there\b", text, re.I)
        else None)  # "it's raining in Paris again, glad I'm not there"
    if m is None or m.group("place").split()[0] in _NOT_NAMES or m.group("place") in _NOT_PLACES:
        return []
    return [Hit("lives", "self", m.group("place"), confidence=0.7)]


_NOT_PLACES = frozenset(
    """Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April
    May June July August September October November December Christmas Easter Victorian
    Georgian Edwardian Tudor Airbnb""".split())


_NAME_THE_PET_EN = re.compile(
    rf"(?<![\w'])(?P<name>{_NAME_EN})\s+the\s+(?:[a-z]+\s+)?(?P<species>{_SPECIES})\b")
_MINE_EN = re.compile(r"\b(?:my|our|we|I|me|us)\b", re.I)
_THEIR_PET_EN = re.compile(
    rf"(?:\w['’]s|\b(?:his|her|their|your))\s+(?:[a-z]+\s+){{0,2}}?{_SPECIES}\b", re.I)


def pets_in_passing_en(text: str, found: Found) -> list[Hit]:
    """``pet`` and ``allergy`` hits for the pets and allergies an English sentence names in
    passing."""
    out: list[Hit] = []
    said = {h.obj.casefold() for _, _, hits in found for h in hits}
    pets_said = any(h.kind in ("pet", "pet_gone") for _, _, hits in found for h in hits) \
        or any(h.kind == "pet" for h in out)
    if not _PET_GONE_EN.search(text) and not pets_said:
        for m in _NAME_THE_PET_EN.finditer(text):  # "Clover the bunny chewed my charger"
            if m.group("name").split()[0] in _NOT_NAMES or not _MINE_EN.search(text) \
                    or _THEIR_PET_EN.search(text) \
                    or any(m.group("name").casefold() in x for x in said):
                continue  # "my neighbour's dog Rex the terrier", "Garfield the cat is my..."
            species = m.group("species").lower()
            out.append(Hit("pet", "self", m.group("name"), species.removesuffix("s")
                           if species.endswith("s") and not species.endswith(("ss", "us"))
                           else species, confidence=0.8))
            break
        for m in _MY_PET_EN.finditer(text):
            species = re.sub(r"^(?:new|little|pet|baby|rescue|old|senior|young|cute|two|three)\s+",
                             "", m.group("species").lower())
            species = species[:-1] if species.endswith("s") and not species.endswith(
                ("ss", "us")) else species
            names = _names(m.group("name") or m.group("after"))
            obj = names[0] if names else species
            if obj.casefold() in said or species in said or any(h.obj == obj for h in out):
                continue
            out.append(Hit("pet", "self", obj, species, confidence=0.8))
    for m in _SYMPTOM_ALLERGY_EN.finditer(text):
        obj = re.sub(r"^(?:the|a|an|some|any|"
                     r"anything\s+with)\s+", "", m.group("obj").strip().lower())
        if obj and obj not in said and obj not in _NOT_ALLERGEN_EN and len(obj.split()) <= 3 \
                and not re.match(r"(?:it|this|that|he|she|they|work|my\s+\w+)$", obj):
            out.append(Hit("allergy", "self", obj, confidence=0.8))
            said.add(obj)
    for m in _NOT_ALONG_EN.finditer(text):
        obj = re.sub(r"^(?:the|a|an|some)\s+", "", m.group("obj").strip().lower())
        if obj and obj not in said and len(obj.split()) <= 3 and not re.match(
                r"(?:it|this|that|he|she|they|we|you|(?:my|our|his|her|their)\s+.*)$", obj) \
                and not _KIN_OR_PEOPLE_EN.search(obj):  # "my boss and I": a person
            symptom = _SYMPTOM_EN.search(text) is not None
            if not symptom and re.fullmatch(r"[A-Z][a-z]+", m.group("obj").strip()):
                continue  # "Jake and I don't get along": maybe a person
            kind = "allergy" if symptom else "dislike"
            out.append(Hit(kind, "self", obj, confidence=0.8))
            said.add(obj)
    for m in _NOUN_ALLERGY_EN.finditer(text):
        obj = (m.group("obj") or m.group("obj2")).strip().lower()
        if obj in _NOT_ALLERGEN_EN or obj in said:
            continue
        out.append(Hit("allergy", "self", obj, confidence=0.8))
    return out


# a job taken: "my new gig as a data engineer at Klarna", "I got hired as a nurse at St Mary's"
_ORG_EN = r"(?P<org>(?-i:[A-Z0-9])[\w&'.-]*(?:\s+(?-i:[A-Z0-9&])[\w&'.-]*){0,3})"
_JOB_AS_EN = re.compile(
    r"\b(?:my\s+(?:new\s+|first\s+)?(?:gig|job|role|position|post|shift|day|week)\s+as|"
    # "run my first design crit as a lead": a first thing done in a new post
    r"my\s+first\s+(?:[\w-]+\s+){1,3}?as|(?:started|start|starting)"
    r"\s+(?:out\s+|work\s+|working\s+)?as|(?:got\s+)?hired\s+as|took\s+(?:a|the)\s+(?:job|role|"
    r"position)\s+as|(?:got|been|was)\s+promoted\s+to|got\s+a\s+(?:job|gig)\s+as|"
    r"(?:the|my)\s+promotion\s+to|(?:got\s+)?bumped\s+up\s+to|moved\s+up\s+to)\s+"
    r"(?:an?\s+|the\s+)?(?P<role>[a-z][a-z -]{1,30}?)"
    rf"(?:\s+(?:at|for|with)\s+{_ORG_EN})?(?=\s*(?:[,.;!?]|$)|\s+(?:on|in|since|from|last|this|"
    r"next|and|but|so|today|yesterday|tomorrow|recently|is|was|starts?|started|begins?|I)\b)",
    re.I)


# "as a junior designer I never get to present": the speaker's role, opening the sentence
_AS_ROLE_EN = re.compile(
    rf"^\s*as\s+an?\s+(?P<role>[a-z][a-z -]{{1,30}}?)(?:\s+(?:at|for)\s+{_ORG_EN})?"
    r"(?:\s*,?\s+I\b|\s*,\s*(?:how|what|which|should|can|could|is|are|do|any)\b|\s*$)", re.I)
# where the speaker works, said by their people there: "my team at Shopify", "my boss at
# Deloitte" (not "my friend at Google")
_MY_WORKPLACE_EN = re.compile(
    rf"\bmy\s+(?:(?:whole|new|old)\s+)?(?:team|teammates|colleagues|coworkers|co-workers|manager|"
    rf"boss|office|department|desk)\s+(?:over\s+)?at\s+{_ORG_EN}", re.I)
# a job begun: "Orientation at Mayo Clinic was intense"
_JOB_BEGUN_EN = re.compile(
    rf"\b(?:orientation|onboarding|induction|(?:another|one\s+more)\s+(?:monday|day|shift|week|"
    rf"night\s+shift|double)|(?:my\s+)?(?:shift|desk|cubicle)\s+(?:today\s+)?)\s+at\s+{_ORG_EN}",
    re.I)


_OWN_BUSINESS_EN = re.compile(
    r"(?:^|\bI\s+|\bI'm\s+|\bI\s+am\s+|\bnow\s+)(?:now\s+|also\s+|basically\s+)?(?:run|own|running|"
    r"owning)\s+(?:my\s+own|my|a)\s+(?:little\s+|small\s+|tiny\s+|own\s+)*(?P<biz>bakery|caf[eé]|"
    r"coffee\s+shop|shop|store|restaurant|bar|pub|salon|studio|business|company|agency|"
    r"practice|clinic|firm|consultancy|startup|gym|bookshop|bookstore|boutique|food\s+truck|"
    r"farm|nursery|daycare|kennel|garage|bistro|brewery|florist|hair\s+salon)\b", re.I)
_MADE_ROLE_EN = re.compile(
    r"(?:^|\bI\s+|\bI've\s+|\bI\s+have\s+)(?:just\s+|finally\s+|recently\s+)?(?:got|been|was)\s+"
    r"made\s+(?:(?:an?|the)\s+)?(?P<role>[a-z]+(?:\s+[a-z]+){0,2}?)(?=\s+(?:in|at|on|for|of)\b|"
    r"[,.;!]|$)", re.I)


def jobs_in_passing_en(text: str, found: Found) -> list[Hit]:
    """``role`` / ``works`` hits for a job said as taken ("my new gig as X at Y")."""
    said = {h.kind for _, _, hits in found for h in hits}
    out: list[Hit] = []
    for m in _JOB_AS_EN.finditer(text):
        lead = text[: m.start()]
        if re.search(r"\b(?:he|she|they|his|her|their|if|would|could|might|wish|want)\b[^,;.]*$",
                      lead, re.I):
            continue
        role = m.group("role").strip()
        if "role" not in said and is_role_en(role):
            out.append(Hit("role", "self", role, confidence=0.8))
        if m.group("org") and "works" not in said:
            out.append(Hit("works", "self", clean_edges(m.group("org")), confidence=0.8))
            said.add("works")
    for m in _AS_ROLE_EN.finditer(text):
        if "role" not in said and is_role_en(m.group("role")):
            out.append(Hit("role", "self", m.group("role").strip(), confidence=0.8))
            said.add("role")
            if m.group("org") and "works" not in said:
                out.append(Hit("works", "self", clean_edges(m.group("org")), confidence=0.8))
                said.add("works")
    for m in _MY_WORKPLACE_EN.finditer(text):
        if "works" not in said and m.group("org").split()[0] not in _NOT_NAMES:
            out.append(Hit("works", "self", clean_edges(m.group("org")), confidence=0.8))
            said.add("works")
    for m in _OWN_BUSINESS_EN.finditer(text):  # "I run my own little bakery"
        if "role" not in said:
            out.append(Hit("role", "self", f"{m.group('biz').lower()} owner", confidence=0.8))
            said.add("role")
    for m in _MADE_ROLE_EN.finditer(text):  # "just got made charge nurse"
        role = m.group("role").strip()
        if "role" not in said and is_role_en(role) and not re.search(
                r"\b(?:he|she|they|his|her|their|your|you)\b", text[: m.start()], re.I):
            out.append(Hit("role", "self", role, confidence=0.8))
            said.add("role")
    for m in _JOB_BEGUN_EN.finditer(text):
        if "works" not in said and not re.search(
                r"\b(?:he|she|they|his|her|their|your|you)\b", text[: m.start()], re.I):
            out.append(Hit("works", "self", clean_edges(m.group("org")), confidence=0.8))
            said.add("works")
    return out


# a plan said in the present with a time to come: "I'm running the Lisbon half marathon next
# March", "Next summer we're finally doing the Hokkaido trip"
_MONTHS = (r"January|February|March|April|May|June|July|August|September|October|November|"
           r"December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday")
_TO_COME = (rf"(?:next\s+(?:week|month|year|spring|summer|autumn|fall|winter|weekend|{_MONTHS})|"
            rf"this\s+(?:coming\s+)?(?:spring|summer|autumn|fall|winter|weekend|{_MONTHS})|"
            rf"in\s+(?:{_MONTHS})|on\s+(?:{_MONTHS})|tomorrow|later\s+this\s+(?:year|month))")
_PLAN_NOW_EN = re.compile(
    rf"(?:(?P<when0>{_TO_COME})\s*,?\s+)?\b(?:I\s+am|we\s+are|I'm|we're)\s+(?:finally\s+|officially\s+|"
    rf"definitely\s+|actually\s+|totally\s+|also\s+)?(?P<verb>[a-z]+ing)\s+(?P<rest>[^,.;!?]{{2,60}}?)"
    rf"(?:\s+(?P<when>{_TO_COME}))?(?=\s*(?:[,.;!?]|$))", re.I)
_NOT_A_PLAN_VERB = frozenset(
    "being feeling thinking getting having looking trying wondering hoping going working "
    "loving enjoying struggling dealing using reading watching listening waiting".split())
_E_BASE = frozenset("tak mak hav mov leav driv giv com hik bik rid writ danc bak celebrat "
                    "rac skat serv retir chang stor sav us shar hom escap receiv prepar".split())


def _base(verb: str) -> str:
    stem = verb[:-3]
    if stem in _E_BASE:
        return stem + "e"
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]  # running -> run
    return stem


_SOMEONE_BOOKED_EN = re.compile(r"\b(?:he|she|they|my\s+\w+|his|her|their)\s*(?:just\s*)?$",
                                re.I)
# "Booked flights to Oaxaca for Día de los Muertos!!": a trip to come
_BOOKED_TRIP_EN = re.compile(
    rf"\b(?:I\s+|we\s+)?(?:just\s+|finally\s+)?(?:booked|bought)\s+(?:my\s+|our\s+|the\s+)?"
    rf"(?:flights?|(?:plane|train|return|one-way)\s+tickets?|a\s+trip|a\s+flight)\s+"
    rf"(?:back\s+)?to\s+(?P<place>{_NAME_EN})\b", re.I)


def plans_in_passing_en(text: str, found: Found) -> list[Hit]:
    """``plan`` hits for a plan said in the present tense with a time to come, or a trip
    booked."""
    if any(h.kind in ("plan", "goal") for _, _, hits in found for h in hits):
        return []
    out: list[Hit] = []
    trip = _BOOKED_TRIP_EN.search(text)
    if trip and not _SOMEONE_BOOKED_EN.search(text[: trip.start()]):
        out.append(Hit("plan", "self", f"travel to {trip.group('place')}", confidence=0.8))
    for m in _PLAN_NOW_EN.finditer(text):
        verb = m.group("verb").lower()
        if not (m.group("when0") or m.group("when")) or verb in _NOT_A_PLAN_VERB:
            continue
        rest = m.group("rest").strip()
        if re.match(r"(?:at|with|for|as|in|on|to)\b", rest, re.I):
            continue  # "I'm starting at Spotify in May": a job, read by the work rules
        out.append(Hit("plan", "self", f"{_base(verb)} {rest}".strip(), confidence=0.8))
    return out
