"""Products said in passing, English and Chinese: the last pass of the rule extractor.

The tool rules of ``_english`` / ``_chinese`` read "I use X", "I switched to X" and the
lexicon's names. People name their apps and devices in many more shapes: "I keep all my
notes in Obsidian and sync the vault with Syncthing", "my mornings run on a Kindle Scribe",
"here's my Figma API token", 代码托管在Gitee, 写代码用Cursor, 记账用鲨鱼记账. What these
share is a name shaped like a product (capitalised, camel-cased or with a model number; in
a Chinese sentence any Latin-script word) right after a word of use (use, on, in, with,
through; 用, 在…里, 装, 带着), in a clause whose subject is the speaker and that does
something with it (track, sync, write, shoot; 记, 写, 存, 剪). Each such name is a ``use``
hit with a lower confidence (0.7) than a rule's, added only where no rule read that name.

What is not a product: a weekday, a month, a place ("in Bristol", "in Lisbon"), a person
("with Sarah"), an employer ("at Boots", 在Google工作), anything said of someone else
("my neighbour Dave uses Arch"), and secrets (the engine never stores a key or password).
"""

from __future__ import annotations

import re

from graphmem.extract._lexicon import APP_NAMES_ZH, APPS_ZH, canonicalize
from graphmem.extract._text import Hit, already_named, someone_else_zh

Found = list[tuple[int, int, list[Hit]]]

# --------------------------------------------------------------------------- English

# One to three words shaped like a product: "Obsidian", "iPad", "X100V", "Kindle Scribe",
# "Fujifilm X100V", "Framework 13", "Backblaze B2", "Arch Linux".
_PRODUCT_EN = re.compile(
    r"(?<![\w'’-])(?P<name>(?:[A-Z][\w.+#-]*|[a-z]{1,3}[A-Z][\w.+#-]*|[A-Z][A-Z0-9]+[\w.+#-]*)"
    r"(?:\s+(?:[A-Z][\w.+#-]*|\d[\w.+-]*)){0,2})")
# the word of use right before the name (articles and "my" may come between)
_USE_WORD_EN = re.compile(
    r"(?:\b(?P<plain>use|uses|using|used|run|runs|running|got|bought|rocking|sporting|installed|"
    r"pay\s+for|paying\s+for|subscribe\s+to|subscribed\s+to|"
    r"put|rely\s+on|relies\s+on|"
    r"swear\s+by|all\s+in\s+on|switched\s+to|switching\s+to|moved\s+(?:over\s+)?to|stick\s+with|stuck\s+with|"
    r"it\s+has\s+been|it\s+is\s+been|been\s+on|am\s+on)"
    r"|\b(?P<prep>on|in|into|with|via|through|to|onto|from))"
    r"\s+(?:(?:a|an|my|our|the|some)\s+)?(?:(?:little|tiny|old|new|trusty|cheap|spare|used|"
    r"second-hand|refurbished|self-hosted|battered|ancient|shiny)\s+)?$", re.I)
# what the speaker does with it, for the loose prepositions (on, in, with, to...)
_DOING_EN = re.compile(
    r"\b(?:track\w*|sync\w*|keep\w*|kept|log\w*|writ\w*|wrote|edit\w*|cut\w*|record\w*|shoot\w*|"
    r"shot|manag\w*|plan\w*|organi[sz]\w*|stor\w*|sav\w*|back\w*\s+up|backup|cod\w*|program\w*|"
    r"build\w*|built|draw\w*|sketch\w*|design\w*|draft\w*|read\w*|listen\w*|stream\w*|watch\w*|"
    r"host\w*|deploy\w*|pay\w*|paid|budget\w*|journal\w*|notes?|tickets?|pairing|ship\w*|"
    r"photos?|files?|podcasts?|music|runs|sleep|workouts?|vault|mornings?|clicking|tasks?|"
    r"to-?dos?|calendar|video\w*|edits?|everything|all\s+my)\b", re.I)
# "to" names a product only after a verb that sends things somewhere: "back up my photos to
# Backblaze", "push it to GitHub" (not "report to Aisha", "talk to Sam", "moved to Leeds")
_SEND_TO_EN = re.compile(
    r"\b(?:back(?:ed|ing|s)?\s+up|sync\w*|upload\w*|export\w*|sav\w*|push\w*|deploy\w*|"
    r"migrat\w*|post\w*|stream\w*|publish\w*|import\w*|send(?:s|ing)?\s+(?:it|them|everything))"
    r"(?:\s+[\w'-]+){0,4}\s+(?:to|onto|into)\s+(?:(?:a|an|my|our|the)\s+)?$", re.I)
# the name said as one's own thing: "my Figma API token", "my Synology NAS admin password"
_OWNED_EN = re.compile(
    r"^\s*(?:admin\s+|api\s+|login\s+|account\s+|master\s+)?(?:password|passcode|token|key|"
    r"account|login|subscription|membership|licen[cs]e|app|settings|library|vault|workspace|"
    r"integration|plugin|credentials|secret|"
    r"streak|premium|plan|playlists?|profile|feed|watchlist)\b",
    re.I)
_SUBJECT_EN = re.compile(
    r"\b(?P<me>I|I'm|I've|I'd|I'll|me|my|we|our|us)\b|\b(?P<other>he|she|they|his|her|their|"
    r"you|your|let's|let\s+us|"
    r"him|them|friend|friends|neighbou?r|colleague|coworker|co-worker|boss|roommate|flatmate|"
    r"sister|brother|mum|mom|dad|wife|husband|partner|boyfriend|girlfriend|son|daughter|kids?|"
    r"everyone|people|someone|team\s?mates?)\b", re.I)
# someone named doing the using: "Tahlia just bought", "Priya from work uses" (a word that
# opens a chat line, "Just bought", "Honestly got", is no one: _NOT_PRODUCT_EN, _OPENERS_EN)
_NAMED_SUBJECT_EN = re.compile(
    r"^\s*(?P<name>[A-Z][a-z]+)(?:\s+(?:from|at|in|on|of)\s+(?:[\w&'-]+\s+){0,3}?)?\s*"
    r"(?:(?:just|also|finally|recently|now|already)\s+)*"
    r"(?:bought|buys|got|gets|uses|used|has|had|picked\s+up|ordered|switched\s+to|runs|drives|owns|"
    r"swears\s+by|installed|rocks)\b")
_OPENERS_EN = frozenset(
    """Just Tonight Last Well Oh Yeah Anyway Still Already Update Welp Haha Soon Once Only Really
    Finally Honestly Recently Literally Actually Apparently Eventually Basically Seriously
    Luckily Sadly Hopefully Thankfully Fortunately Unfortunately Lately Currently Obviously
    Suddenly Originally Probably Totally Definitely""".split()
)
_NOT_PRODUCT_EN = frozenset(
    """I I'm I've I'd I'll OK Ok Okay Yes No Hi Hey Thanks Lol LOL Btw BTW Also And But So The A
    An My Our It This That Then Now Today Tomorrow Yesterday Monday Mondays Tuesday Tuesdays
    Wednesday Wednesdays Thursday Thursdays Friday Fridays Saturday Saturdays Sunday Sundays
    January February March April May June July August September October November December
    Christmas Easter Halloween Thanksgiving Ramadan Diwali English Spanish French German Chinese
    Japanese Italian Portuguese Korean Mandarin Cantonese Dutch Russian Arabic Hindi God
    AM PM UTC GMT CEO CTO PhD MBA AI ML UI UX HR PR QA IT US USA UK EU NYC LA SF""".split()
)
# Not products: where one lives or goes. Only the names a chat is likely to drop after "in"
# or "to"; a place missing here is still dropped when the clause says moving or living.
_PLACES_EN = frozenset(
    """London Paris Berlin Madrid Lisbon Porto Rome Milan Amsterdam Brussels Vienna Prague
    Dublin Edinburgh Glasgow Manchester Leeds Bristol Cardiff Liverpool Birmingham Oxford
    Cambridge Brighton York Bath Belfast Copenhagen Stockholm Oslo Helsinki Reykjavik Zurich
    Geneva Munich Hamburg Barcelona Seville Valencia Athens Istanbul Warsaw Krakow Budapest
    Bucharest Tokyo Kyoto Osaka Seoul Beijing Shanghai Shenzhen Hangzhou Chengdu Taipei
    Singapore Bangkok Hanoi Manila Jakarta Bali Mumbai Delhi Bangalore Dubai Sydney Melbourne
    Brisbane Perth Auckland Wellington Toronto Vancouver Montreal Calgary Ottawa Boston Chicago
    Seattle Portland Denver Austin Dallas Houston Atlanta Miami Phoenix Brooklyn Queens
    Manhattan Detroit Philadelphia Nashville Minneapolis Pittsburgh Baltimore Oakland
    California Texas Florida Oregon Washington Colorado Mexico Canada France Germany Spain
    Italy Portugal Japan China Korea India Brazil Argentina Chile Peru Australia England
    Scotland Wales Ireland Europe Asia Africa America Iceland Norway Sweden Denmark Finland
    Greece Turkey Vietnam Thailand Hokkaido Kenya Egypt Morocco Nigeria Hawaii Alaska""".split()
)
PLACES_EN = _PLACES_EN
_MOVING_EN = re.compile(r"\b(?:live|lives|lived|living|moved|move|moving|relocat\w*|based|born|"
                        r"grew\s+up|visit\w*|trip|travel\w*|flight|fly\w*|stay\w*|holiday|"
                        r"vacation|work\w*\s+(?:at|for)|job|hired|joined)\b", re.I)
_CLAUSE_EN = re.compile(r"[,;:.!?()]|\s[-–—]\s|\b(?:and|but|so|because|while|although|though)\s",
                        re.I)
_TRAILING_EN = re.compile(r"(?:\s+(?:API|ID|PIN|SDK|CLI|URL))+$")
_LIST_ON = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+or\s+|\s*&\s*)"
                      r"(?:(?:a|an|my|the|some)\s+)?", re.I)
_NOT_SO_EN = re.compile(r"\b(?:would|could|should|might|may|wish|want\s+to|wanted\s+to|going\s+to|"
                        r"plan\w*\s+to|thinking|considering|if|unless|rather|not|never|no\s+longer|"
                        r"stopped|quit|n't|nor|without|instead\s+of|used\s+to|anymore)\b|'d\b",
                        re.I)
_SECRET_GLUE = frozenset("!@#$%^&*=/\\|~`")
_PERSON_AFTER = re.compile(r"^(?:'s|’s|\s+and\s+I\b|\s+(?:said|says|told|asked|thinks|and\s+me))")


def _clause_start(text: str, pos: int) -> int:
    starts = [m.end() for m in _CLAUSE_EN.finditer(text, 0, pos)]
    return starts[-1] if starts else 0


def _speaker_says(text: str, upto: int) -> bool:
    """Whether the words before ``upto`` make the speaker the one who uses: the last person
    named is "I / my / we", or none is named in the clause but the sentence is the speaker's."""
    clause = text[_clause_start(text, upto):upto]
    people = list(_SUBJECT_EN.finditer(clause))
    if people:
        return people[-1].group("me") is not None
    named = _NAMED_SUBJECT_EN.match(clause)
    if named and named["name"] not in _NOT_PRODUCT_EN and named["name"] not in _OPENERS_EN:
        return False  # "Tahlia from ICU just bought a Tesla": hers, not the speaker's
    before = list(_SUBJECT_EN.finditer(text[:upto]))
    return not before or before[-1].group("me") is not None


def products_en(text: str, found: Found) -> list[Hit]:
    """``use`` hits for the products of an English sentence no rule has read."""
    out: list[Hit] = []
    last_end = 0
    for m in _PRODUCT_EN.finditer(text):
        name = _TRAILING_EN.sub("", m.group("name")).strip(".-")
        words = name.split()
        at = m.start()
        if len(words) > 1 and words[0] in ("My", "Our"):  # "My Synology NAS admin password"
            at = m.start() + len(words[0]) + 1
            words.pop(0)
        while len(words) > 1 and words[-1] in _NOT_PRODUCT_EN:  # "my Duolingo Spanish streak"
            words.pop()
        name = " ".join(words)
        if not name or at == 0 or words[0] in _NOT_PRODUCT_EN:
            continue
        if any(w in _PLACES_EN for w in words) or len(name) < 2:
            continue
        before, after = text[:at], text[m.end():]
        if sum(before.count(q) for q in '"“”') % 2:
            continue  # inside a quoted title: "A Dance with Dragons"
        if _PERSON_AFTER.match(after) or after[:1] in _SECRET_GLUE:
            continue  # "Sunflower!Drift93": part of a password, not a name
        use = _USE_WORD_EN.search(before[-40:])
        owned = (re.search(r"\b(?:[Mm]y|[Oo]ur|the)\s+$", before) and _OWNED_EN.match(after)) or (
            re.search(r"\b[Mm]y\s+(?:new\s+|old\s+|trusty\s+)?$", before)
            and re.search(r"\d|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]", name)
            and not _PERSON_AFTER.match(after))  # "my iPhone 12", "my MacBook"
        if out and _LIST_ON.fullmatch(text[last_end: at]):
            # "on a Kindle Scribe and a Boox Palma": the list goes on
            if not already_named(found, name, second_too=True) and all(h.obj != name for h in out):
                out.append(Hit("use", "self", name, confidence=0.7))
                last_end = m.end()
            continue
        fan = re.search(r"(?i)\b(?:am|I'm|been|was)\s+(?:a|an)\s+$", before) and re.match(
            r"^\s+(?:guy|girl|person|user|man|woman|kid|household|family)\b", after)
        # "Been a Windows guy my whole life"
        if fan and not already_named(found, name, second_too=True):
            out.append(Hit("use", "self", name, confidence=0.7))
            last_end = m.end()
            continue
        if not (use or owned) or not _speaker_says(text, at):
            continue
        if use and re.match(r"(?i)got|bought|put|stick|stuck", use.group("plain") or "") and \
                not re.search(r"(?i)\b(?:a|an|the|my|our)\s+(?:\S+\s+)?$", before) and \
                not re.search(r"\d|[a-z][A-Z]", name) and not (
                    (use.group("plain") or "").lower() == "put"
                    and re.match(r"\s+on(?:to)?\s+(?:it|my|the|our|a)\b", after)):
            continue  # "I got Sarah a gift", "stuck with Dave": a person, not a thing
        start = _clause_start(text, at)
        if _NOT_SO_EN.search(text[start: at]):
            continue  # "I would use Rust", "I'd rather not use Java"
        clause = text[start: m.end() + 40]
        if use and use.group("prep") and use.group("prep").lower() in ("to", "onto") and \
                not _SEND_TO_EN.search(before):
            continue  # "I report to Aisha Okafor"
        if use and use.group("prep"):
            if use.group("prep").lower() in ("in", "to", "from", "into") and \
                    _MOVING_EN.search(clause):
                continue  # "we live in Leeds", "moved to Montreal"
            if not (_DOING_EN.search(clause) or re.search(r"\d|[a-z][A-Z]", name)):
                continue  # "with Sarah", "in Bristol": nothing done with a product
        if already_named(found, name, second_too=True) or any(h.obj == name for h in out):
            continue
        out.append(Hit("use", "self", name, confidence=0.7))
        last_end = m.end()
    return out


# --------------------------------------------------------------------------- owned things

# Kinds one has one of at a time (a new one replaces the old): named in passing, with no
# word of use, they still say which one the speaker has now: "Charging the Kia EV6 overnight
# costs a fraction of what petrol did", "This week's Gousto box had a katsu the kids
# finished", "the new Kobo arrived".
ONE_AT_A_TIME = frozenset({"car", "phone", "laptop", "e_reader", "smartwatch", "meal_kit"})
_OWN_BEFORE_EN = re.compile(
    r"(?:\b(?:my|our)\s+(?:[\w'-]+\s+){0,3}"
    r"|\b(?:this|last|next)\s+(?:week|month)'s\s+"
    r"|\b(?:drive|drives|drove|driving|charg\w*|park\w*|servic\w*|insur\w*|wash\w*|"
    r"lease\w*|leasing|financ\w*|top(?:ping|ped)?\s+up|fill(?:ing|ed)?\s+up|picked\s+up|"
    r"collected|got|bought|ordered|order|shares?|sharing|"
    r"unboxed|unboxing|set\s+up|setting\s+up|upgraded\s+to|switched\s+to)"
    r"\s+(?:(?:a|an|the|my|our)\s+)?(?:[\w'-]+\s+){0,3})$", re.I)
_OWN_AFTER_EN = re.compile(
    r"^(?:'s|’s)?\s+(?:arrived|came|turned\s+up|got\s+delivered|was\s+delivered|"
    r"is\s+charging|box|boxes|delivery|order|battery|charger)\b", re.I)
# someone else's, or not had: "my sister's Kia", "a Tesla overtook me", "cheaper than a
# Prius", "test-drove a Kia", "instead of the Fiesta", "the hire car, a Fiat"
_NOT_OWN_EN = re.compile(
    r"\b(?:than|like|vs\.?|versus|instead\s+of|test[- ]?dr\w*|hire\w*|rent\w*|borrow\w*|"
    r"loan\w*|courtesy|taxi|uber|his|her|their|your|'s|’s|sold|selling|trade\w*\s+in|"
    r"traded|ditch\w*|got\s+rid|scrap\w*|old|former|previous|used\s+to)\s+"
    r"(?:(?:a|an|the|my|our)\s+)?(?:[\w'-]+\s+){0,3}$", re.I)
_THIS_WEEKS = re.compile(r"\b(?:this|last|next)\s+(?:week|month)['’]s\s+$", re.I)


def owned_en(text: str, found: Found) -> list[Hit]:
    """``use`` hits for the car, phone, laptop, e-reader, watch or meal-kit box an English
    sentence names as the speaker's with no word of use ("Charging the Kia EV6 overnight"),
    where no rule read it: each of those kinds is held one at a time, so it is the one the
    speaker has now."""
    out: list[Hit] = []
    for m in _PRODUCT_EN.finditer(text):
        name = m.group("name").strip(".-")
        words = name.split()
        at = m.start()
        while words and words[0] in _NOT_PRODUCT_EN:  # "My Garmin says..."
            at = text.index(words[1], at + len(words[0])) if len(words) > 1 else m.end()
            words.pop(0)
        while words and words[-1] in _NOT_PRODUCT_EN:
            words.pop()
        if not words:
            continue
        obj, term = canonicalize(" ".join(words))  # "Pixel 8": the Pixel, version kept
        if term is None or term.domain not in ONE_AT_A_TIME:
            continue
        before, after = text[:at], text[m.end():]
        start = _clause_start(text, at)
        if not (_OWN_BEFORE_EN.search(before[-60:]) or _OWN_AFTER_EN.match(after)):
            continue
        if (_NOT_OWN_EN.search(before[-60:]) and not _THIS_WEEKS.search(before)) \
                or _NOT_SO_EN.search(text[start:at]) or not _speaker_says(text, at):
            continue
        if sum(before.count(q) for q in '"“”') % 2 or _PERSON_AFTER.match(after):
            continue
        if already_named(found, obj, second_too=True) or already_named(
                found, " ".join(words), second_too=True) or any(h.obj == obj for h in out):
            continue
        out.append(Hit("use", "self", obj, confidence=0.7))
    # "my kindle stopped syncing": a device the lexicon knows, written in lower case
    for m in _MY_LOWER_EN.finditer(text):
        words = m.group("name").split()
        while words:
            obj, term = canonicalize(" ".join(words))
            if term is not None:
                break
            words.pop()
        if not words or term is None or term.domain not in ONE_AT_A_TIME \
                or not _speaker_says(text, m.start()) or already_named(found, obj) \
                or any(h.obj == obj for h in out):
            continue
        out.append(Hit("use", "self", obj, confidence=0.7))
    return out


_MY_LOWER_EN = re.compile(r"\bmy\s+(?:new\s+)?(?P<name>[a-z][\w+-]*(?:\s+[a-z0-9][\w+-]*){0,2})")


# --------------------------------------------------------------------------- Chinese

# A Latin-script name in a Chinese sentence (Procreate, iPad, flomo, Pocket 3, Mate 60), with
# the Chinese brand right before it when there is one (大疆Pocket 3, 华为Mate 60).
_LATIN_ZH = re.compile(
    r"(?<![A-Za-z0-9_])(?P<name>[A-Za-z][A-Za-z0-9.+#_-]*(?:\s?[A-Z0-9][A-Za-z0-9.+-]*){0,2})")
_USE_ZH = re.compile(
    r"(?:用|使用|在|装了?|开着?|带着|靠|托管在|扔在|放在|存在|存到|记在|写在|换成了?|换了|入手了?|"
    r"入了|买了|下载了?|订阅了?|登录|登|上|我的|我们|通过|拿|丢|扔|"
    r"(?:终端|编辑器|浏览器|输入法|手机|电脑|系统|笔记本|耳机|相机|手表|车)(?:是|用的是|用的))"
    r"(?:的是|的|着|了)?(?:个|一个|台|一台|部|一部)?\s*$")
# a Latin name followed by what only a product has: Notion集成的密钥, GitHub账号
_PRODUCT_AFTER_ZH = re.compile(
    r"^\s*(?:的)?(?:账号|账户|密码|密钥|会员|集成|插件|订阅|工作区|token|Token)")
# the Chinese app names the lexicon knows, longest first, as one alternation
_APP_NAMES_ZH_RE = "|".join(re.escape(n) for n in sorted(APP_NAMES_ZH, key=len, reverse=True))
# a known app held as the speaker's own: 我支付宝的支付密码, 我的微信账号, 我们飞书的工作区
_OWNED_APP_ZH = re.compile(
    r"我(?:们)?(?:的)?(?P<name>"
    + _APP_NAMES_ZH_RE
    + r")(?:的)?(?:[\u4e00-\u9fff]{0,2})?(?:账号|账户|密码|会员|工作区|订阅|余额|额度)")
_NOT_USE_AFTER_ZH = re.compile(r"^(?:工作|上班|实习|任职|当|做|读书|上学|念书|公司|总部|面试)")
_OTHER_ZH = someone_else_zh(kin=True, you=True)
_CLAUSE_ZH = re.compile(r"[，,。；;！!？?：:、]")
# A Chinese app named clause-finally after 用: 记账用鲨鱼记账, 随手记点东西就用锤子便签
# (用 opening a word is no verb: 宠物用品, 用户, 用途).
_USE_FINAL_ZH = re.compile(
    r"(?:^|[^应费信作利运通实适引套功享公专常日商民试占重录任启停禁续借调动选不别])(?:用(?![品户途法处力具料餐量语词心])|全靠|都靠)(?:的是|的)?"
    r"(?P<name>(?!是|的)[\u4e00-\u9fff]{2,8})$")
_ON_APP_ZH = re.compile(
    r"(?:在|开|上|刷|打开|用)(?P<name>"
    + _APP_NAMES_ZH_RE
    + r")(?![\u4e00-\u9fff]{0,2}(?:工作|上班|实习|面试|公司|总部))")
_INTO_APP_ZH = re.compile(
    r"(?:丢|扔|放|存|记|写|塞)(?:在|进|到)?(?P<name>[\u4e00-\u9fffA-Za-z]{2,8}?)里")
_NOT_SO_ZH = re.compile(r"应用|项目|网站|程序|服务|产品|[Aa]pp|建议|推荐|应该|要不|"
                        r"如果|要是|假如|想用|想要|打算|准备|考虑|不用|没用|别用|"
                        r"不再|不想|以前|之前|曾经|本来|原来|换掉|卸了|删了|戒了|退订|吗|呢|旧|"
                        r"给我[妈爸]|送人|送给|卖了|二手|试试|不妨|可以用|退了|没续|不续|取消了|"
                        r"到期|卸载|不用了")
_NOT_PRODUCT_ZH = frozenset(
    "api sdk key accesskey secretkey token id pin app wifi wi-fi ok ip url cpu gpu ai".split())
_DOING_ZH = re.compile(
    r"^(?P<name>[\u4e00-\u9fff]{2,}?)(?:存|放|记|写|看|听|拍|做|传|备份|管理|剪|编辑|整理|买|点)"
    r"(?:图片|照片|文件|视频|代码|文档|东西|资料|数据|笔记|歌|音乐|电影|剧|外卖|菜)$")
_GENERIC_ZH = re.compile(
    r"^(?:手机|电脑|笔记本|平板|现金|筷子|勺子|脑子|时间|力气|眼睛|"
    r"软件|工具|应用|程序|系统|网盘|表格|本子|纸笔|微波炉|烤箱|空调|这个|那个|什么|"
    r"别的|其他|自己|一下|一样|多久|完了?|光了?|不了|得着|不着"
    # one character is generic alone, not as the start of a name (钱迹, 水滴)
    r"|(?:刀|笔|钱|心|手|脚|嘴|电|水|火|纸|它)(?![\u4e00-\u9fff]))")


_MY_OTHER_ZH = re.compile(r"我(?:的)?(?:爸|妈|哥|姐|弟|妹|老公|老婆|朋友|同事)")


def _speaker_says_zh(clause: str) -> bool:
    other = [m.start() for m in _OTHER_ZH.finditer(clause)]
    if not other:
        return True
    tail = clause[max(other[-1] - 2, 0):]
    return clause.rfind("我") > other[-1] and not _MY_OTHER_ZH.search(tail)


# 刚入手了佳明265, 家里装了个小爱音箱: a device got, named by its model or its kind
_GOT_DEVICE_ZH = re.compile(
    r"(?:^|(?<=[我，,家]))(?:里)?(?:刚|新|最近|前两天|上周|终于|刚刚)*(?:入手了?|入了|装了|添了|买了)"
    r"(?:一台|一个|一块|一副|个|台|块|副)?(?P<name>(?![个台块副一])[\u4e00-\u9fffA-Za-z]{1,6}(?:\s?\d{2,4}[A-Za-z]*"
    r"|音箱|路由器|扫地机(?:器人)?|投影仪|手表|耳机|平板|电纸书|阅读器|相机|无人机))"
    r"(?![\u4e00-\u9fff])")


def products_zh(text: str, found: Found) -> list[Hit]:
    """``use`` hits for the products of a Chinese sentence no rule has read."""
    out: list[Hit] = []
    starts = [0] + [m.end() for m in _CLAUSE_ZH.finditer(text)]
    ends = [m.start() for m in _CLAUSE_ZH.finditer(text)] + [len(text)]
    for start, end in zip(starts, ends, strict=True):
        clause = text[start:end]
        if not clause or not _speaker_says_zh(clause) or _NOT_SO_ZH.search(clause):
            continue
        for m in _GOT_DEVICE_ZH.finditer(clause):
            name = m.group("name")
            if not already_named(found, name) and all(h.obj != name for h in out) \
                    and not _GENERIC_ZH.match(name):
                out.append(Hit("use", "self", name, confidence=0.7))
        for m in _LATIN_ZH.finditer(clause):
            name = m.group("name").strip(" .-_")
            before, after = clause[: m.start()], clause[m.end():]
            if name in _NOT_PRODUCT_EN or name.casefold() in _NOT_PRODUCT_ZH or \
                    after[:1] in _SECRET_GLUE or re.match(r"的[A-Za-z]", after):
                continue  # JetBrains的IDEA: the maker, the product is the second
            brand = re.search(r"([\u4e00-\u9fff]{2})(\s?)$", before)  # 华为 Mate 40
            if brand and brand.group(1) in _BRANDS_ZH:
                name = brand.group(1) + brand.group(2) + name
                before = before[: brand.start()]
            lower = not re.search(r"[A-Z0-9]", name)
            use = _USE_ZH.search(before) or _PRODUCT_AFTER_ZH.match(after)
            if not use or _NOT_USE_AFTER_ZH.match(after) or len(name) < 2:
                continue
            if lower and not re.search(r"(?:里|"
                                       r"上)", after[:3]) and not before.rstrip().endswith("用"):
                continue  # a lower-case word only right after 用 or before 里/上 (flomo)
            if already_named(found, name) or already_named(found, m.group("name")) or \
                    any(h.obj == name for h in out):
                continue
            out.append(Hit("use", "self", name, confidence=0.7))
        for m in (*_ON_APP_ZH.finditer(clause), *_OWNED_APP_ZH.finditer(clause)):
            # 追番一般在B站, 听书就开喜马拉雅, 我支付宝的支付密码
            name = m.group("name")
            if not already_named(found, name) and all(h.obj != name for h in out):
                out.append(Hit("use", "self", name, confidence=0.7))
        for m in _INTO_APP_ZH.finditer(clause):
            name = m.group("name")
            if name in APPS_ZH and not already_named(found, name) \
                    and all(h.obj != name for h in out):
                out.append(Hit("use", "self", name, confidence=0.7))
        final = _USE_FINAL_ZH.search(clause)
        if final and not _GENERIC_ZH.match(final.group("name")):
            name = final.group("name")
            doing = _DOING_ZH.match(name)  # 用七牛云存图片: the app, then what it is for
            name = re.sub(r"[了啦呢吧的哈呀]+$", "", doing.group("name") if doing else name)
            if not already_named(found, name) and all(h.obj != name for h in out):
                out.append(Hit("use", "self", name, confidence=0.7))
    return out


_BRANDS_ZH = frozenset(
    "大疆 华为 小米 苹果 荣耀 三星 索尼 佳能 尼康 富士 联想 戴尔 惠普 罗技 任天堂".split())


# --------------------------------------------------------------------------- how-to questions

# A question on how to do something in a product is asked by someone who uses it: "How do I
# make a rollup property in Notion?", "In Linear, is there a way to auto-assign issues?",
# "Cursor 里怎么让它只改选中的几行", "用剪映剪vlog的时候怎么加关键帧". Only about doing
# something there (a feature, a setting, a file...), so "How do I make friends in Leeds?"
# or "How do I talk with Sam?" name no product.
_HOW_EN = re.compile(
    r"^\s*(?:(?:so|ok|okay|hey|quick question|also|and|but)[,:]?\s+)*(?:how\s+(?:do|can|would|"
    r"should)\s+(?:i|we)|how\s+to|is\s+there\s+(?:a|any)\s+way\s+to|any\s+way\s+to|"
    r"can\s+(?:i|we)|what'?s\s+the\s+(?:best|easiest|fastest)\s+way\s+to)\b", re.I)
_HOW_IN_EN = re.compile(
    r"^\s*(?i:in|on|with|using)\s+(?P<name>[A-Z][\w.+#-]*(?:\s+[A-Z0-9][\w.+#-]*){0,2})\s*,")
# where the product is: "in Notion", "on Shopify"; "with", "from", "to" also name people
# ("share it with Sam", "messages from Tom"), so there only a name shaped like a product
# (iCloud, X100V, AWS) or one the lexicon knows
_THERE_EN = re.compile(
    r"\b(?:(?P<in>in|on|inside|within|using|via|through)|with|from|to|into)\s+"
    r"(?:(?:my|our|the)\s+)?$", re.I)
_FEATURE_EN = re.compile(
    r"\b(?:settings?|features?|plugins?|extensions?|propert(?:y|ies)|columns?|rows?|databases?|"
    r"tables?|files?|folders?|export\w*|import\w*|sync\w*|shortcuts?|notifications?|tabs?|"
    r"buttons?|pages?|templates?|formulas?|layers?|keyframes?|issues?|tickets?|tasks?|"
    r"projects?|boards?|channels?|workspaces?|accounts?|profiles?|backups?|scripts?|macros?|"
    r"filters?|views?|tags?|labels?|notes?|vaults?|playlists?|widgets?|theme|dark\s+mode|"
    r"font|layout|reminders?|calendar|invoices?|reports?|dashboards?|queries|query|"
    r"branch(?:es)?|commits?|repos?|pipelines?|builds?|deploy\w*|auto-?\w+|set\s+up|"
    r"turn\s+(?:on|off)|enable|disable|install|uninstall|update|upgrade|reset|delete|rename|"
    r"merge|undo|share|embed|highlights?|bookmarks?|subtitles?|captions?)\b", re.I)


def how_to_en(sentence: str) -> list[Hit]:
    """``use`` hits for the products an English how-to question asks about doing something
    in (the question itself tells nothing else)."""
    lead = _HOW_IN_EN.match(sentence)
    names: list[str] = []
    if lead and _FEATURE_EN.search(sentence, lead.end()):
        names.append(lead.group("name"))
    elif _HOW_EN.match(sentence) and _FEATURE_EN.search(sentence):
        for m in _PRODUCT_EN.finditer(sentence):
            there = _THERE_EN.search(sentence[: m.start()])
            if there and (there.group("in") or canonicalize(m.group("name"))[1] is not None
                          or re.search(r"\d|[a-z][A-Z]|^[A-Z]{2,}", m.group("name"))):
                names.append(m.group("name"))
    out: list[Hit] = []
    for raw in names:
        words = _TRAILING_EN.sub("", raw).strip(".-").split()
        while len(words) > 1 and words[-1] in _NOT_PRODUCT_EN:
            words.pop()
        name = " ".join(words)
        if len(name) < 2 or not words or words[0] in _NOT_PRODUCT_EN \
                or any(w in _PLACES_EN for w in words) or any(h.obj == name for h in out):
            continue
        out.append(Hit("use", "self", name, confidence=0.7))
    return out


_HOW_ZH = re.compile(r"怎么(?!样)|怎样(?=[\u4e00-\u9fff])|如何|咋(?!样)")  # 怎么样: an opinion
# the product right before where the question asks: Cursor 里怎么, 飞书多维表格怎么设置,
# 用剪映剪vlog的时候怎么, 在Notion里能不能
_HOW_AT_ZH = re.compile(
    r"(?:^|[用在])\s*(?P<name>[A-Za-z][A-Za-z0-9.+#_-]*(?:\s?[A-Z0-9][A-Za-z0-9.+-]*){0,2}|"
    + _APP_NAMES_ZH_RE
    + r")\s*(?:里|上|中|里面|上面)?")


def how_to_zh(sentence: str) -> list[Hit]:
    """``use`` hits for the product a Chinese how-to question asks about doing something in:
    named first in the clause that asks, or after 用 / 在 in it."""
    out: list[Hit] = []
    for clause in re.split(r"[，,。；;！!？?]", sentence):
        how = _HOW_ZH.search(clause)
        if how is None or _OTHER_ZH.search(clause) or _NOT_SO_ZH.search(clause):
            continue
        for m in _HOW_AT_ZH.finditer(clause, 0, how.start()):
            name = m.group("name").strip()
            if name.casefold() in _NOT_PRODUCT_ZH or name in _NOT_PRODUCT_EN or len(name) < 2 \
                    or any(h.obj == name for h in out):
                continue
            out.append(Hit("use", "self", name, confidence=0.7))
    return out
