"""Facets of a person: groups of words for one personal fact (where they live, who they work
for, who their manager is, what they drink, what they pay in rent...).

A question and the message that answers it often name the fact in other words: "Who do I
report to now?" where the user wrote "my new boss is Hannah Kim", "Which city am I based
in?" where they wrote "we've moved to Toronto", 我现在归谁管 where they wrote 我的新上级是孙浩.
Full text matches words and a small embedder barely links such paraphrases (MiniLM: .17 and
.25 for the first two). So recall reads which facets a question asks about and:

* its full-text search also looks for the other words of each facet (``synonyms``);
* for a question about now, the episodes among the first ones found that state something
  on that facet (a first-person sentence naming one of its words, ``on_facet``) are most
  likely versions of the same fact, and come newest first (``graphmem.recall``).

The groups are general vocabulary of everyday personal facts, written for the product
(English and Chinese), not learned from any data. They are deliberately specific: a word
common in any chat ("work", "time", "day") does not make a facet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from graphmem._passages import SENTENCE_END, first_person
from graphmem.extract._text import someone_else_helps

_HAN = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True, slots=True)
class Facet:
    name: str
    words: tuple[str, ...]  # what a question names the fact by
    values: tuple[str, ...]  # usual values of it (coffee, tea): a message may name only one
    asked: re.Pattern[str]  # where a question names the fact (its words)
    said: re.Pattern[str]  # where a message names the fact (its words or a value)
    value: re.Pattern[str]  # where a message names one of its values


def _words(listed: str) -> tuple[str, ...]:
    sep = "," if "," in listed else None
    return tuple(w.strip() for w in listed.split(sep) if w.strip())


def _en(name: str, words: str, values: str = "", extra: str = "") -> Facet:
    """An English facet: ``words`` and ``values`` separated by commas (phrases allowed),
    each matched as whole words with a plural or verb ending (after a doubled consonant
    too: submitted); ``extra``, more ways a question or message names it (a regex)."""
    def alts(listed: tuple[str, ...]) -> list[str]:
        return [r"\s+".join(re.escape(p) for p in w.split()) + r"(?:s|es|d|\w?ed|\w?ing)?"
                for w in listed]

    ws, vs = _words(words), _words(values)
    asked = alts(ws) + ([extra] if extra else [])
    return Facet(name, ws, vs, re.compile(r"\b(?:" + "|".join(asked) + r")\b", re.I),
                 re.compile(r"\b(?:" + "|".join(asked + alts(vs)) + r")\b", re.I),
                 re.compile(r"\b(?:" + "|".join(alts(vs) or ["(?!)"]) + r")\b", re.I))


def _zh(name: str, words: str, values: str = "", extra: str = "") -> Facet:
    """A Chinese facet: ``words`` and ``values`` separated by spaces; ``extra``, more ways a
    question or message names it (a regex)."""
    ws, vs = _words(words), _words(values)
    asked = [re.escape(w) for w in ws] + ([extra] if extra else [])
    return Facet(name, ws, vs, re.compile("|".join(asked)),
                 re.compile("|".join(asked + [re.escape(w) for w in vs])),
                 re.compile("|".join(re.escape(w) for w in vs) or "(?!)"))


#: facets whose value is a time: a when-question asks for their value
TIMED_FACETS = frozenset({"deadline"})


def lifted_by(facets: tuple[Facet, ...], when: bool) -> tuple[Facet, ...]:
    """The facets whose messages a question lifts: all of them, but for a when-question
    only those whose value is a time ("When was my interview for the new job?" asks for a
    time, not for the employer; "When is my grant due now?" asks for the deadline)."""
    return tuple(f for f in facets if not when or f.name in TIMED_FACETS)


EN_FACETS: tuple[Facet, ...] = (
    # "I work at", "she works for"; not "that would work for S1s", "it works for me"
    _en("employer", "employer, company, job, firm, workplace, employed, hired, joined",
        extra=r"(?<!\bit\s)(?<!that\s)(?<!this\s)(?<!which\s)(?<!would\s)(?<!could\s)"
              r"(?<!should\s)(?<!might\s)(?<!will\s)(?<!\bcan\s)(?<!\bdoes\s)"
              r"work(?:s|ing|ed)?\s+(?:at|for)|where\s+(?:do|does)\s+\w+\s+work"),
    # what the user does for work, asked in other words than the employer
    _en("role", "occupation, profession, job title, do for a living, line of work, career",
        "nurse, engineer, developer, designer, teacher, researcher, analyst, accountant, "
        "lawyer, doctor, consultant, electrician, architect, pharmacist, product manager",
        extra=r"work(?:s|ing|ed)?\s+as"),
    _en("manager", "boss, manager, supervisor, team lead, line manager",
        extra=r"report(?:s|ing)?\s+(?:to|directly)|whom?\s+do\s+i\s+report"),
    # "my landlady here in Porto": where the user lives, said in passing
    _en("home", "live, home, city, town, based, moved, relocated, settled, address, "
                "neighborhood, neighbourhood, hometown", extra=r"living\s+in|here\s+in"),
    _en("rent", "rent, landlord, lease, apartment, flat, mortgage, housing"),
    _en("savings", "savings, put aside, set aside, put away, emergency fund, rainy day, "
                   "rainy-day, nest egg",
        extra=r"sav(?:e|es|ed|ing)"),
    _en("income", "salary, paycheck, income, wage, earn, pay raise"),
    _en("deadline", "deadline, due, hand in, turn in, submit, submission, cutoff"),
    _en("drink", "drink, beverage", "coffee, tea, espresso, latte, cappuccino, matcha, "
                                    "hot chocolate, cocoa, juice, smoothie"),
    _en("diet", "diet, eat, food, cuisine, breakfast, lunch, dinner",
        "vegetarian, vegan, pescatarian, keto, gluten-free, plant-based"),
    _en("editor", "editor, IDE, coding setup, write code, writing code, code editor",
        "vim, neovim, emacs, vs code, vscode, "
                  "visual studio, zed, helix, sublime, intellij, pycharm"),
    _en("device", "phone, smartphone, handset, cellphone, cell phone, mobile phone, laptop, "
                  "computer, tablet", "iphone, android, macbook, "
                  "pixel, galaxy, ipad, thinkpad, chromebook, oneplus, xiaomi, huawei"),
    _en("commute", "commute, get to work", "car, drive, bike, bicycle, scooter, train, bus, "
                                           "public transport"),
    _en("carrier", "mobile carrier, phone carrier, mobile network, phone plan, mobile plan, "
                   "phone contract, sim"),
    _en("pet", "pet", "dog, cat, puppy, kitten, rabbit, bunny, hamster, guinea pig, parrot, "
                      "budgie, tortoise, turtle, goldfish, gecko, ferret, pup"),
    _en("partner", "partner, wife, husband, girlfriend, boyfriend, spouse, fiance, fiancee, "
                   "married, anniversary, dating, date night"),
    # what the user drives or rides (a car, a bike), named by its make as often as not
    _en("car", "car, vehicle, bike, bicycle, e-bike, motorbike, motorcycle",
        "toyota, honda, ford, tesla, kia, hyundai, volkswagen, bmw, audi, subaru, mazda, "
        "nissan, volvo, byd, surly, trek, specialized, cannondale, kona, brompton"),
    _en("children", "kid, son, daughter, child, children, baby"),
    _en("exercise", "exercise, workout, sport, gym", "running, jog, swim, yoga, climbing, "
                    "cycling, marathon, personal best, pilates, tennis, badminton, squash, "
                    "padel, football, soccer, basketball, volleyball, frisbee, hiking, "
                    "boxing, rowing, skiing, surfing, golf, bouldering"),
    # how far the user runs, swims or rides these days: a number with its unit
    _en("distance", "how far, distance, long run, long runs, mileage, lengths, laps",
        extra=r"\d+(?:\.\d+)?\s?(?:k|km|kms|kilometres|kilometers|miles|mi)\b"),
    _en("language", "language, foreign language", "spanish, french, german, italian, "
                    "japanese, korean, mandarin, cantonese, portuguese, russian, arabic, "
                    "dutch, greek, turkish, hindi, swedish"),
    _en("health", "allergy, allergic, medication, medicine, doctor, diagnosed"),
    _en("weight", "weigh, weight, kg, kilos, pounds"),
    _en("study", "school, university, college, degree, course, studying, major"),
    _en("hobby", "hobby, hobbies, pastime, free time, spare time"),
    _en("budget", "budget, spend, spending, expenses"),
    # the tool the user keeps their accounts in (the books of a small business, a budget)
    _en("bookkeeping", "bookkeeping, accounting software, accounting app, budgeting app, "
                       "expense tracker, expense app, invoicing",
        "quickbooks, xero, freshbooks, wave, ynab, goodbudget, spreadsheet, google sheet",
        extra=r"(?:keep|keeping|do|doing)\s+(?:the\s+|my\s+|our\s+)?(?:business\s+)?books"),
    # household machines, named by their brand as often as by what they are
    _en("washer", "washer, washing machine, laundry machine, dryer, tumble dryer",
        "bosch, miele, whirlpool, maytag, electrolux, beko, hotpoint, zanussi, lg, samsung"),
    _en("vacuum", "vacuum, vacuum cleaner, hoover, robot vacuum, robovac",
        "dyson, roomba, irobot, shark, roborock, ecovacs, eufy, dreame, miele"),
)

ZH_FACETS: tuple[Facet, ...] = (
    # 汇报 alone is also presenting ("下周我要汇报团队的季度成果"): reporting to someone
    _zh("manager", "上级 领导 老板 经理 主管 归谁管 管我",
        extra=r"向[^，。,？?！!]{0,8}汇报|汇报给|汇报对象"),
    # not 新家: "新家宽带装哪家" and the like name the new home in passing
    _zh("home", "住在 定居 搬到 搬家 城市 居住 老家 安家 安了家 住处 住址 住哪 租了 搬进 搬去"),
    _zh("rent", "房租 租金 月租 房东 房贷 房子"),
    _zh("employer", "公司 单位 任职 入职 上班 跳槽 工作单位 离职 干了 换工作 新工作 新公司",
        # 我在北辰医疗做后端; not 我在厨房做饭, 我在家上班 (where, not for whom)
        extra=r"我在(?![^，。,；;！!？?]{0,10}?(?:家|厨房|客厅|卧室|阳台|路上|车上|床上|网上|楼下|"
              r"外面|健身房|图书馆))[^，。,；;！!？?]{2,10}?"
              r"(?:做(?!饭|菜|作业|家务|运动|瑜伽|手工|蛋糕|早餐|午饭|晚饭)|干(?!活)|工作|上班|当)"),
    _zh("savings", "存钱 存下 储蓄 存款 攒 定存"),
    _zh("income", "工资 薪水 收入 月薪 年薪 涨薪"),
    # 交 as handing something in (什么时候交, 交材料, 提交), not 交了学费, 交通, 社交
    _zh("deadline", "截止 最晚 期限 到期",
        extra=r"(?:什么时候|哪天|几号|要|得|该|需要|提|上)交(?![通流友往易际费钱])|"
              r"交(?:稿|作业|材料|报告|论文|申请|方案)"),
    _zh("drink", "饮料 喝", "咖啡 茶 拿铁 可可 豆浆 牛奶 果汁"),
    _zh("diet", "饮食 忌口 早餐 午饭 晚饭", "吃素 素食 吃鱼 吃肉"),
    _zh("editor", "编辑器 写代码 写程序",
        "IDE, Vim, vim, Neovim, Emacs, VS Code, VSCode, PyCharm, Sublime, Helix, IntelliJ"),
    _zh("device", "手机 电脑 笔记本 平板",
        "iPhone, 华为, 小米, 荣耀, OPPO, vivo, 一加, 三星, Mate, Pixel, iPad, MacBook, ThinkPad"),
    _zh("commute", "通勤", "开车 地铁 公交 骑车 自行车"),
    _zh("car", "开什么车 开的车 我的车 车子 座驾 新车 买车 换车 提车 啥车 什么车", "一辆 辆车"),
    _zh("carrier", "运营商 手机号 号码 携号转网 话费 套餐", "移动 联通 电信"),
    _zh("pet", "宠物", "猫 狗 兔子 仓鼠 鹦鹉 乌龟 金鱼 豚鼠"),
    _zh("partner", "对象 老婆 老公 妻子 丈夫 男朋友 女朋友 结婚 纪念日 约会"),
    _zh("children", "孩子 儿子 女儿 宝宝"),
    _zh("exercise", "运动 健身", "跑步 游泳 瑜伽 攀岩 马拉松 羽毛球 乒乓球 网球 篮球 足球 "
                           "排球 飞盘 骑行 徒步 爬山 登山 滑雪 冲浪 拳击 普拉提 跳绳 划船"),
    _zh("distance", "多远 距离 公里 千米 长距离 多少米", extra=r"\d+(?:\.\d+)?\s?(?:[kK]|km|圈)"),
    _zh("language", "外语 语言", "英语 法语 德语 日语 韩语 西班牙语 意大利语 俄语 葡萄牙语 "
                              "阿拉伯语 粤语"),
    _zh("role", "职务 职位 岗位 头衔 担任 当上 升职 职业 做什么工作 干什么工作 干什么的",
        "组长 经理 主管 总监 工程师 设计师 架构师 产品经理 负责人"),
    _zh("health", "过敏 吃药 医生 确诊"),
    _zh("weight", "体重 公斤"),
    _zh("study", "学校 大学 专业 课程 学位"),
    _zh("hobby", "爱好 业余"),
    _zh("budget", "预算 花销 开销 花费"),
    _zh("bookkeeping", "记账 账本 记账软件 记账app 记账App",
        "随手记 钱迹 鲨鱼记账 挖财 网易有钱 口袋记账 Excel 表格"),
    _zh("washer", "洗衣机 烘干机 洗烘", "海尔 小天鹅 美的 西门子 博世 松下 LG 三星 米家"),
    _zh("vacuum", "扫地机 扫地机器人 吸尘器 扫拖", "科沃斯 石头 追觅 戴森 米家 云鲸 iRobot"),
)


_EN_BY_NAME = {f.name: f for f in EN_FACETS}


@lru_cache(maxsize=4096)
def facets_of(question: str) -> tuple[Facet, ...]:
    """The facets a question names: Chinese ones when it has Han characters, else English."""
    table = ZH_FACETS if _HAN.search(question) else EN_FACETS
    return tuple(f for f in table if f.asked.search(question))


def synonyms(question: str) -> list[str]:
    """The other words of the facets the question names (by their words: "How often do I
    swim?" names no facet, it asks about swimming, not every sport), and their usual
    values unless it names one itself ("How often do I drink tea?" is about tea)."""
    folded = question.casefold()
    out: list[str] = []
    for facet in facets_of(question):
        named_value = facet.said.pattern != facet.asked.pattern and \
            facet.said.search(facet.asked.sub(" ", question)) is not None
        # a Chinese question also looks for the English words of its facet: relations are
        # stated in English ("user has a boyfriend named 周屿") whatever the language said
        also = _EN_BY_NAME[facet.name].words \
            if _HAN.search(question) and facet.name in _EN_BY_NAME else ()
        for w in facet.words + (() if named_value else facet.values) + also:
            if w.casefold() not in folded and w not in out:
                out.append(w)
    return out


# a number, or a word written with a capital that does not open the sentence; not a
# weekday in the plural, a habit ("a dashboard the managers look at on Mondays")
_VALUE = re.compile(r"\d|\b(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days\b)[A-Z][a-z]+")
# a Chinese sentence carries a value of the user's when it speaks of the user (我), holds a
# number or a Latin name, or says a change of state (了: "张经理调走了", "二宝出生了"): its
# names have no capitals, and "领导希望在计划会之前把这个弄完", "他的老板不太好说话",
# "两个产品经理" name a facet in passing
_VALUE_ZH = re.compile(r"[我咱了\dA-Za-z]")
# what opens a sentence before its first word: brackets, quotes, a lead-in ("Side note:",
# "Some background in case it matters:")
_OPENING = re.compile(r"^[\s(\[\"'“]*(?:[A-Za-z][\w ,']{0,40}:\s*)?[\s(\[\"'“]*")
_ASKS = re.compile(r"[?\uff1f]\s*[)\"”]?\s*$|[吗呢]\s*[。.!！]?\s*$")


def asks(sentence: str) -> bool:
    """Is ``sentence`` a question (it states no value of anything)?"""
    return _ASKS.search(sentence) is not None


# A question often tells a fact on its way to asking ("My rent went up to 1450 last month,
# is that normal?", 房租一个月4300，押二付一，这次我一次性先掏了多少？): its clauses before the
# one that asks, each of which neither asks nor requests, are told.
_CLAUSE = re.compile(r"\s*[,;，；]\s*|\s+[-–—]\s+")
_CLAUSE_ASKS = re.compile(
    r"(?i)^\s*(?:(?:and|but|so|or|also|then)\s+)?(?:what|which|who|whom|whose|when|where|why|"
    r"how|is|are|am|was|were|do|does|did|can|could|would|will|should|shall|may|might|any|"
    r"please|help|tell|give|write|draft|suggest|recommend|explain)\b|"
    # "you" asks, but not as what the speaker told or thanks ("I told you I moved", "I took
    # your advice", 我跟你说过, 谢谢你)
    r"(?<!\btold\s)(?<!\bthank\s)(?<!\btell\s)(?<!\bto\s)(?<!\bwith\s)(?<!\bshowed\s)"
    r"\byou\b|\byour\b(?!\s+(?:advice|suggestions?|tips?|recommendations?|help)\b)|"
    r"[吗呢么]\s*$|什么|怎么|怎样|如何|为什么|为啥|哪|谁|多少|几[个点号月天年岁次]|"
    r"是不是|要不要|能不能|可不可以|有没有|帮我|帮忙|麻烦|请你|求|"
    r"(?<![跟和对给告诉谢])你(?![说讲的])")


def told(sentence: str) -> list[str]:
    """The parts of ``sentence`` that state something: all of it when it does not ask;
    of a question, its clauses before the last that neither ask nor request."""
    if not asks(sentence):
        return [sentence]
    return [c for c in _CLAUSE.split(sentence)[:-1] if c.strip() and not _asks_clause(c)]


# a clause that only leads up to the question ("I was wondering", 我想问一下) tells nothing
_LEAD_UP = re.compile(
    r"(?i)^\s*(?:(?:so|and|but|ok|okay|hi|hey)\s+)*(?:I\s+(?:was|am|'m)\s+wondering|I\s+wonder|"
    r"I\s+(?:want(?:ed)?|would\s+like|'d\s+like)\s+to\s+(?:know|ask|check)|I\s+have\s+a\s+question|"
    r"quick\s+question)\b|^\s*(?:我)?(?:想问|想请教|想知道|想了解|想咨询|请问|问一下|问个)")


def tells_on_the_way(text: str) -> bool:
    """Does a question in ``text`` tell something of the speaker's on its way to asking
    (我这人从来不喝奶茶，但最近…有什么健康点的夜宵推荐？, "I never drink bubble tea, but lately
    I crave sweets, any snack ideas?"): a clause before the asking one, in the first person,
    that neither asks nor requests nor only leads up to the question?"""
    for s in SENTENCE_END.split(text):
        if not asks(s):
            continue
        if any(first_person(c) and not _LEAD_UP.search(c) for c in told(s)):
            return True
    return False


# a request to the assistant about something of the user's ("Can you help me write a
# message to my landlady here in Porto"): what it names of theirs is told, unless it asks
_REQUEST_OPENING = re.compile(
    r"(?i)^\s*(?:(?:so|and|also|ok|okay)\s+)?(?:(?:can|could|would|will)\s+you|please|help\s+me)\b")
_MINE = re.compile(r"(?i)\b(?:my|our)\b")
_WH = re.compile(r"(?i)\b(?:what|which|who|whom|whose|when|where|why|how|whether|if)\b")


def _asks_clause(clause: str) -> bool:
    if _REQUEST_OPENING.match(clause) and _MINE.search(clause) and not _WH.search(clause):
        return False
    m = _CLAUSE_ASKS.search(clause)
    return m is not None and not (someone_else_helps(m[0], clause[: m.start()])
                                  and not _CLAUSE_ASKS.search(clause, m.end()))


def _opened(sentence: str) -> int:
    """Where a sentence's first word starts, after its brackets and lead-in."""
    m = _OPENING.match(sentence)
    return m.end() if m else 0


_KIN_EN = {"mom": "mother", "mum": "mother", "mother": "mother", "dad": "father",
           "father": "father", "parents": "parents", "sister": "sister", "brother": "brother",
           "wife": "wife", "husband": "husband", "partner": "partner",
           "boyfriend": "boyfriend", "girlfriend": "girlfriend", "son": "son",
           "daughter": "daughter", "kids": "kids", "children": "kids", "friend": "friend",
           "roommate": "roommate", "flatmate": "roommate", "cousin": "cousin", "aunt": "aunt",
           "uncle": "uncle", "niece": "niece", "nephew": "nephew", "grandma": "grandmother",
           "grandmother": "grandmother", "grandpa": "grandfather", "grandfather": "grandfather"}
_KIN_ZH = {"爸妈": "parents", "父母": "parents", "妈妈": "mother", "妈": "mother",
           "爸爸": "father", "爸": "father", "妹妹": "sister", "姐姐": "sister",
           "哥哥": "brother", "弟弟": "brother", "老婆": "wife", "妻子": "wife",
           "老公": "husband", "丈夫": "husband", "儿子": "son", "女儿": "daughter",
           "孩子": "kids", "朋友": "friend", "室友": "roommate", "奶奶": "grandmother",
           "外婆": "grandmother", "爷爷": "grandfather", "外公": "grandfather"}
_KIN_WORDS_EN = "|".join(sorted(_KIN_EN, key=len, reverse=True))
_KIN_WORDS_ZH = "|".join(sorted(_KIN_ZH, key=len, reverse=True))
_KIN_NAMED = re.compile(
    rf"(?i)\b(?:my|our)\s+(?:(?:older|younger|little|big|baby|eldest|oldest|youngest|best|"
    rf"twin)\s+)?({_KIN_WORDS_EN})s?\b|我(?:的|们的|们家)?({_KIN_WORDS_ZH})(?!圈)")  # 朋友圈
_KIN_LEAD = re.compile(r"(?i)(?:(?:by the way|also|anyway|btw|oh|so|and|well),?\s+)?")
# the one close to the user gives the user something: the thing is the user's now ("my
# brother got me a Pixel 8a", 我妈送了我一台Kindle)
_GIVES_ME = re.compile(
    r"(?:\s+[A-Z][\w'’-]+)?,?\s+(?:\w+\s+)?(?:got|gave|bought|sent|lent|handed|gifted|passed|"
    r"left)\s+(?:me|us)\b|[^，。！？,.!?]{0,8}?(?:送了我|送我|送给我|给了我|给我买|借给我|留给我)")


def kin_of(text: str, *, subject: bool = False) -> str | None:
    """The person close to the user whom ``text`` names ("my older sister", 我妈妈), as one
    word ("sister", "mother"); with ``subject``, only as what the sentence opens with, its
    subject ("My sister Anna lives in Berlin"), not "I visited my sister"."""
    if subject:
        start = _opened(text)
        start = _KIN_LEAD.match(text, start).end()  # type: ignore[union-attr]
        m = _KIN_NAMED.match(text, start)
        if m is not None and _GIVES_ME.match(text, m.end()):
            return None
    else:
        m = _KIN_NAMED.search(text)
    if m is None:
        return None
    return _KIN_EN[m[1].lower()] if m[1] else _KIN_ZH[m[2]]


def of_another(text: str, kin: str | None = None) -> bool:
    """Does every statement of ``text`` open with someone close to the user other than
    ``kin`` ("My sister Anna lives in Berlin.")? Such a message is no version of a fact of
    the user's own."""
    said = [s for s in SENTENCE_END.split(text) if s.strip() and not asks(s)]
    return bool(said) and all(
        (who := kin_of(s, subject=True)) is not None and who != kin for s in said)


# the facet that names someone close to the user: "What does my husband do for a living?"
# asks about his work, not about who he is
_KIN_FACET = {"husband": "partner", "wife": "partner", "partner": "partner",
              "boyfriend": "partner", "girlfriend": "partner", "son": "children",
              "daughter": "children", "kids": "children"}


def of_kin(facets: tuple[Facet, ...], kin: str | None) -> tuple[Facet, ...]:
    """The facets a question about ``kin`` asks about: without the one naming the kin
    when another is named too ("我老公是做什么工作的": the role, not the partner)."""
    own = _KIN_FACET.get(kin or "")
    rest = tuple(f for f in facets if f.name != own)
    return rest if own and rest and len(rest) < len(facets) else facets


# what the user has, named right before a facet's value: my (new) Pixel, 我的华为
_MY = re.compile(r"(?i)\b(?:my|our)\s+(?:(?:new|old|current|trusty)\s+)?$|"
                 r"(?:我的|我们的|我这台|我那台|我这部|我那部|我这辆|我那辆|我家的?)$")


def stated(text: str) -> tuple[Facet, ...]:
    """The facets of which ``text`` states a value (``on_facet``), in its language's table."""
    table = ZH_FACETS if _HAN.search(text) else EN_FACETS
    return tuple(f for f in table if f.said.search(text) and on_facet(text, (f,)))


def on_facet(text: str, facets: tuple[Facet, ...], kin: str | None = None) -> bool:
    """Does ``text`` state a value of one of ``facets``: a sentence, not a question, that
    names the facet and carries a value (a number, a name written with a capital, one of
    the facet's usual values; in Chinese, whose names have no capitals, a sentence speaking of
    the user, holding a number or a Latin name or saying a change: ``_VALUE_ZH``)? Not only
    first-person sentences: "Update on the grant: the submission date moved to May 30" is
    the user's deadline too. A sentence naming the facet in passing ("the managers look
    at it on Mondays") states no version of it, nor does one about someone close to the
    user ("My sister Anna lives in Berlin", ``kin_of``) unless the question asks about
    that one (``kin``: "Where does my sister live?")."""
    for sentence in (part for s in SENTENCE_END.split(text) for part in told(s)):
        said = kin_of(sentence, subject=True)
        if said is not None and said != kin:
            continue
        for f in facets:
            if f.said.search(sentence) and (
                    _HAN.search(sentence) and _VALUE_ZH.search(sentence)
                    or _VALUE.search(sentence, _opened(sentence) + 1)
                    or (f.values and f.value.search(sentence))):
                return True
    # a question names what the user has on its way ("How do I make Do Not Disturb on my
    # Pixel follow my roster?", 我的华为怎么截长图？): the phone is the user's
    return kin is None and any(
        f.values and _MY.search(q[max(0, m.start() - 24):m.start()])
        for q in SENTENCE_END.split(text) if asks(q) and kin_of(q, subject=True) is None
        for f in facets for m in f.value.finditer(q))
