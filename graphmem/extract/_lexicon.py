"""Word lists for the rule extractor: known things by domain, role words, places.

A *domain* names an exclusive preference / tool slot: "I like Vue" and later "I now prefer
React" both land in ``preference:frontend_framework``, so the second supersedes the first.
The lexicon is deliberately modest; anything outside it is still extracted, just without a
domain (and so without exclusivity).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.model import normalize


@dataclass(frozen=True, slots=True)
class Term:
    """A known thing: its canonical spelling, domain and the other names it goes by."""

    canonical: str
    domain: str
    aliases: tuple[str, ...] = ()


# canonical -> aliases, per domain. Aliases are matched after ``normalize`` and also with
# spaces removed, so "vue.js" / "VueJS" / "vue js" all hit "Vue".
_DOMAINS: dict[str, dict[str, tuple[str, ...]]] = {
    "frontend_framework": {
        "React": ("React.js", "ReactJS", "React 18", "React 19"),
        "Vue": ("Vue.js", "VueJS", "Vue 3", "Vue3", "Vue 2", "Vue2"),
        "Angular": ("AngularJS", "Angular.js"),
        "Svelte": (),
        "SolidJS": ("Solid.js", "Solid"),
        "Preact": (),
        "jQuery": (),
    },
    "meta_framework": {
        "Next.js": ("NextJS", "Next"),
        "Nuxt": ("Nuxt.js", "Nuxt 3", "Nuxt 4"),
        "Remix": (),
        "SvelteKit": (),
        "Astro": (),
    },
    "backend_framework": {
        "Django": (),
        "Flask": (),
        "FastAPI": (),
        "Express": ("Express.js", "ExpressJS"),
        "Ruby on Rails": ("Rails",),
        "Spring Boot": (),
        "Laravel": (),
        "NestJS": ("Nest.js",),
    },
    "programming_language": {
        "Python": ("py", "python3", "Python 3"),
        "TypeScript": ("TS",),
        "JavaScript": ("JS", "ECMAScript"),
        "Rust": ("rustlang",),
        "Go": ("Golang",),
        "Java": (),
        "Kotlin": (),
        "Swift": (),
        "C++": ("cpp",),
        "C#": ("csharp",),
        "Ruby": (),
        "PHP": (),
        "Scala": (),
        "Elixir": (),
        "Haskell": (),
        "Zig": (),
        "Lua": (),
        "Dart": (),
        "Clojure": (),
        "OCaml": (),
    },
    "runtime": {
        "Node.js": ("Node", "NodeJS"),
        "Deno": (),
        "Bun": (),
    },
    "editor": {
        "Vim": ("vi",),
        "Neovim": ("nvim",),
        "VS Code": ("VSCode", "Visual Studio Code"),
        "Emacs": (),
        "Sublime Text": ("Sublime",),
        "IntelliJ IDEA": ("IntelliJ",),
        "PyCharm": (),
        "WebStorm": (),
        "Cursor": (),
        "Zed": (),
        "Helix": (),
        "Nano": (),
        "Xcode": (),
    },
    "database": {
        "PostgreSQL": ("Postgres", "PG", "psql"),
        "MySQL": (),
        "MongoDB": ("Mongo",),
        "SQLite": ("SQLite3",),
        "Redis": (),
        "MariaDB": (),
        "Neo4j": (),
        "DynamoDB": (),
        "ClickHouse": (),
        "Elasticsearch": (),
    },
    "os": {
        "macOS": ("Mac", "MacOS", "OS X", "OSX", "Mac OS"),
        "Windows": ("Windows 10", "Windows 11", "Win11"),
        "Linux": (),
        "Ubuntu": (),
        "Arch Linux": ("Arch",),
        "Fedora": (),
        "Debian": (),
        "NixOS": (),
    },
    "cloud": {
        "AWS": ("Amazon Web Services",),
        "Google Cloud": ("GCP", "Google Cloud Platform", "谷歌云"),
        "Azure": ("Microsoft Azure",),
        "Alibaba Cloud": ("阿里云", "Aliyun"),
        "Tencent Cloud": ("腾讯云",),
        "Huawei Cloud": ("华为云",),
        "DigitalOcean": (),
        "Vercel": (),
        "Netlify": (),
        "Cloudflare": (),
        "Heroku": (),
    },
    "package_manager": {
        "npm": (),
        "pnpm": (),
        "Yarn": (),
        "pip": (),
        "Poetry": (),
        "uv": (),
        "Conda": ("Anaconda", "Miniconda"),
        "Homebrew": ("brew",),
    },
    # one laptop, one password manager, one reader and one watch at a time, as with
    # phones: a new one replaces the old
    "laptop": {
        "MacBook Pro": (),
        "MacBook Air": (),
        "MacBook": (),
        "ThinkPad": ("Lenovo ThinkPad",),
        "ThinkPad X1": ("ThinkPad X1 Carbon", "X1 Carbon"),
        "Dell XPS": ("XPS", "戴尔XPS"),
        "Surface Laptop": ("Microsoft Surface Laptop",),
        "Framework Laptop": (),
        "MateBook": ("Huawei MateBook", "华为MateBook"),
    },
    "password_manager": {
        "1Password": (),
        "Bitwarden": (),
        "LastPass": (),
        "KeePassXC": ("KeePass",),
        "Dashlane": (),
        "Proton Pass": (),
    },
    # one reader and one watch at a time, as with phones: a new one replaces the old
    "e_reader": {
        "Kindle": ("Amazon Kindle",),
        "Kindle Paperwhite": ("Paperwhite",),
        "Kindle Oasis": (),
        "Kindle Scribe": (),
        "Kobo": ("Kobo e-reader",),
        "Kobo Libra": ("Kobo Libra 2", "Kobo Libra Colour"),
        "Kobo Clara": ("Kobo Clara 2E", "Kobo Clara HD"),
        "PocketBook": (),
        "Boox": ("Onyx Boox",),
        "reMarkable": ("reMarkable 2", "reMarkable Paper Pro"),
        "iReader": ("掌阅", "掌阅阅读器"),
    },
    "smartwatch": {
        "Apple Watch": (),
        "Garmin": ("Garmin watch", "佳明", "佳明手表"),
        "Garmin Forerunner": (),
        "Garmin Fenix": (),
        "Coros": ("Coros watch", "高驰"),
        "Coros Pace": (),
        "Fitbit": (),
        "Galaxy Watch": ("Samsung Galaxy Watch",),
        "Pixel Watch": ("Google Pixel Watch",),
        "Huawei Watch": ("华为手表",),
        "Amazfit": ("华米",),
    },
    "phone": {
        "iPhone": (),
        "Pixel": ("Google Pixel", "Pixel phone"),
        "Samsung Galaxy": ("Galaxy", "Samsung phone", "三星手机"),
        "OnePlus": (),
        "Android phone": ("安卓手机", "Android", "安卓"),
        "Xiaomi phone": ("小米手机",),
        "Huawei phone": ("华为手机",),
        "OPPO": ("OPPO手机",),
        "vivo": ("vivo手机",),
        "Honor": ("荣耀", "荣耀手机"),
        "Meizu": ("魅族",),
        "Nothing Phone": (),
    },
    "browser": {
        "Chrome": ("Google Chrome", "谷歌浏览器"),
        "Firefox": (),
        "Safari": (),
        "Edge": ("Microsoft Edge",),
        "Arc": (),
        "Brave": (),
    },
    "shell": {"Bash": (), "Zsh": (), "fish shell": ()},
    "css_framework": {
        "Tailwind CSS": ("Tailwind", "TailwindCSS"),
        "Bootstrap": (),
    },
    "orm": {
        "Drizzle ORM": ("Drizzle",),
        "Prisma": (),
        "SQLAlchemy": (),
        "TypeORM": (),
    },
    "container": {"Docker": (), "Podman": ()},
    "orchestration": {"Kubernetes": ("K8s",), "Nomad": ()},
    "note_app": {
        "Obsidian": (),
        "Notion": (),
        "Evernote": ("印象笔记",),
        "Logseq": (),
        "OneNote": ("Microsoft OneNote",),
        "Bear Notes": (),
        "Apple Notes": (),
        "Joplin": (),
        "语雀": ("Yuque",),
        "有道云笔记": ("Youdao Note",),
        "为知笔记": ("WizNote",),
        "flomo": ("浮墨笔记",),
    },
    # one of each at a time is the usual case: a new one replaces the old
    "map_app": {
        "Google Maps": (),
        "Apple Maps": (),
        "Waze": (),
        "高德地图": ("Amap", "高德"),
        "百度地图": ("Baidu Maps",),
        "腾讯地图": ("Tencent Maps",),
    },
    "video_app": {
        "Netflix": (),
        "Disney+": ("Disney Plus",),
        "Prime Video": ("Amazon Prime Video",),
        "HBO Max": (),
        "YouTube": (),
        "爱奇艺": ("iQIYI",),
        "优酷": ("Youku",),
        "腾讯视频": ("Tencent Video",),
        "芒果TV": (),
        "哔哩哔哩": ("B站", "Bilibili"),
    },
    "podcast_app": {
        "Pocket Casts": (),
        "Overcast": (),
        "Apple Podcasts": (),
        "小宇宙": ("Xiaoyuzhou",),
        "喜马拉雅": ("Ximalaya",),
    },
    "fitness_app": {
        "Strava": (),
        "Nike Run Club": ("NRC",),
        "Runkeeper": (),
        "Keep": (),
        "小米运动": ("Mi Fitness", "Zepp Life", "小米运动健康"),
        "悦跑圈": ("Joyrun",),
        "咕咚": ("Codoon",),
    },
    "todo_app": {
        "Todoist": (),
        "TickTick": ("滴答清单",),
        "Things 3": (),
        "Microsoft To Do": (),
        "OmniFocus": (),
        "番茄ToDo": (),
    },
    "language_app": {
        "Duolingo": ("多邻国",),
        "Babbel": (),
        "italki": (),
        "Busuu": (),
        "扇贝单词": (),
        "百词斩": (),
    },
    # one streaming service is the usual case: a new one replaces the old
    "music_app": {
        "Spotify": (),
        "Apple Music": (),
        "YouTube Music": (),
        "Amazon Music": (),
        "Tidal": (),
        "Deezer": (),
        "QQ音乐": ("QQ Music",),
        "网易云音乐": ("NetEase Cloud Music", "网易云"),
        "酷狗音乐": ("Kugou Music", "酷狗"),
    },
    # one main video editor, design tool and issue tracker is the usual case
    "video_editor": {
        "Premiere Pro": ("Premiere", "Adobe Premiere", "Adobe Premiere Pro", "PR"),
        "Final Cut Pro": ("Final Cut", "FCPX", "Final Cut Pro X"),
        "DaVinci Resolve": ("DaVinci", "Resolve", "达芬奇"),
        "iMovie": (),
        "CapCut": ("剪映",),
        "必剪": (),
    },
    "design_tool": {
        "Figma": (),
        "Sketch": (),
        "Adobe XD": ("XD",),
        "Penpot": (),
        "即时设计": (),
        "MasterGo": (),
    },
    "issue_tracker": {
        "Jira": ("Jira Software",),
        "Linear": (),
        "Asana": (),
        "Trello": (),
        "ClickUp": (),
        "YouTrack": (),
    },
    "cloud_storage": {
        "Dropbox": (),
        "Google Drive": (),
        "OneDrive": ("Microsoft OneDrive",),
        "iCloud Drive": ("iCloud",),
        "百度网盘": ("Baidu Netdisk", "百度云盘"),
        "阿里云盘": ("Aliyun Drive",),
        "夸克网盘": ("Quark Drive",),
    },
    "programming_paradigm": {
        "functional programming": ("FP", "函数式编程", "函数式"),
        "object-oriented programming": ("OOP", "面向对象", "面向对象编程"),
    },
    "indentation": {"tabs": ("tab", "制表符"), "spaces": ("空格",)},
    "color_theme": {
        "dark mode": ("dark theme", "深色模式", "暗色模式", "暗黑模式", "夜间模式", "深色主题"),
        "light mode": ("light theme", "浅色模式", "亮色模式", "浅色主题"),
    },
    # one car and one meal-kit box at a time, as with phones. A car is mostly named by its
    # make and model ("a silver 2015 Ford Fiesta"): see ``_MAKES`` below.
    "car": {
        "Tesla": (),
        "Toyota Prius": ("Prius",),
        "Toyota Corolla": ("Corolla",),
        "Toyota Yaris": ("Yaris",),
        "Toyota RAV4": ("RAV4",),
        "Honda Civic": ("Civic",),
        "Honda Jazz": (),
        "Honda CR-V": ("CR-V",),
        "Ford Fiesta": ("Fiesta",),
        "Nissan Qashqai": ("Qashqai",),
        "Tesla Model 3": ("Model 3",),
        "Tesla Model Y": ("Model Y",),
    },
    "meal_kit": {
        "HelloFresh": ("Hello Fresh",),
        "Gousto": (),
        "Blue Apron": (),
        "Mindful Chef": (),
        "Green Chef": (),
        "Home Chef": (),
        "Marley Spoon": (),
        "EveryPlate": (),
        "Dinnerly": (),
        "SimplyCook": ("Simply Cook",),
    },
    "drink": {
        "coffee": ("咖啡",),
        "tea": ("茶",),
        "green tea": ("绿茶",),
        "black tea": ("红茶",),
        "milk tea": ("奶茶",),
        "matcha": ("抹茶",),
        "latte": ("拿铁",),
        # English only: a Chinese drink stays as said (我改喝豆浆了 -> 豆浆)
        "espresso": (),
        "black coffee": (),
        "hot chocolate": ("cocoa",),
        "milk": ("regular milk", "cow's milk"),
        "oat milk": (),
        "soy milk": ("soymilk",),
        "almond milk": (),
        "juice": (),
    },
}

# Domains that are tastes rather than tools: "I use dark mode" is a preference, and a
# ``uses`` slot for coffee would be odd.
NON_TOOL_DOMAINS = frozenset({"drink", "color_theme", "indentation", "programming_paradigm"})

# Words naming a domain, for "my favourite editor is Helix" with Helix unknown.
DOMAIN_WORDS: dict[str, str] = {
    "editor": "editor", "ide": "editor", "编辑器": "editor",
    "language": "programming_language", "programming language": "programming_language",
    "编程语言": "programming_language", "语言": "programming_language",
    "framework": "frontend_framework", "frontend framework": "frontend_framework",
    "前端框架": "frontend_framework", "框架": "frontend_framework",
    "database": "database", "db": "database", "数据库": "database",
    "os": "os", "operating system": "os", "操作系统": "os", "系统": "os",
    "browser": "browser", "浏览器": "browser",
    "shell": "shell", "cloud": "cloud", "云": "cloud",
    "drink": "drink", "饮料": "drink",
}

# Trailing nouns dropped before a lookup: "the React framework", "Windows 系统".
_GENERIC_TAIL = re.compile(
    r"\s*(?:framework|library|language|editor|ide|database|db|os|browser|app|sub|"
    r"subscription|membership|account|premium|family\s+plan|plan|"
    r"框架|语言|编辑器|数据库|系统|浏览器|会员|账号)$",
    re.IGNORECASE,
)
_VERSION_TAIL = re.compile(r"^(?P<base>.*?\S)\s*(?P<ver>v?\d+(?:\.\d+)*)$")


def _keys(name: str) -> set[str]:
    norm = normalize(name)
    keys = {name.strip().casefold(), norm, norm.replace(" ", "")}
    # normalize("C++") is "c": never let a symbol-bearing name claim its stripped form.
    if any(ch in name for ch in "+#"):
        keys = {name.strip().casefold(), name.strip().casefold().replace(" ", "")}
    return {k for k in keys if k}


def _build() -> dict[str, Term]:
    table: dict[str, Term] = {}
    for domain, terms in _DOMAINS.items():
        for canonical, aliases in terms.items():
            term = Term(canonical, domain, aliases)
            for name in (canonical, *aliases):
                for key in _keys(name):
                    table.setdefault(key, term)
    return table


_TABLE = _build()


# Car makes, matched as said (capitalised) at the start of a name: "Kia EV6", "a used
# Volkswagen Golf", "2015 Ford Fiesta". Only makes whose name is no common word or first name.
_MAKES = frozenset(
    """Toyota Honda Ford Kia Hyundai Tesla Volkswagen VW BMW Audi Mercedes Mercedes-Benz Nissan
    Mazda Subaru Volvo Skoda Škoda Peugeot Renault Citroen Citroën Fiat Vauxhall Opel Chevrolet
    Chevy Lexus Porsche Mitsubishi Suzuki Dacia Cupra Polestar BYD Rivian Buick Cadillac Acura
    Infiniti Saab Alfa Land Range Aston""".split()
)
_TWO_WORD_MAKES = frozenset({"Alfa Romeo", "Land Rover", "Range Rover", "Aston Martin"})
# what may come before the make: "a silver 2015 Ford Fiesta", "our new electric Kia"
_CAR_LEAD = re.compile(
    r"^(?:(?:19|20)\d\d|'\d\d|new|used|old|second-hand|secondhand|electric|hybrid|little|"
    r"silver|black|white|grey|gray|red|blue|green|yellow|orange|dark|light|bright|battered|"
    r"trusty|leased|rented)$", re.I)


def _car(text: str) -> Term | None:
    """A car named by its make ("2015 Ford Fiesta" -> "Ford Fiesta"), else None."""
    words = text.split()
    while words and _CAR_LEAD.match(words[0]):
        words.pop(0)
    if not words or len(words) > 4:
        return None
    two = " ".join(words[:2])
    if words[0] in _MAKES and (words[0] not in ("Alfa", "Land", "Range", "Aston")
                                or two in _TWO_WORD_MAKES):
        return Term(" ".join(words), "car")
    return None


# A phone named by its brand and model number: 华为P40, 小米14, 红米K70 Pro, Galaxy S24 Ultra.
_PHONE_MODEL = re.compile(
    r"^(?:华为|小米|荣耀|红米|OPPO|vivo|三星|一加|魅族|Huawei|Xiaomi|Redmi|Honor|Samsung(?:\s+Galaxy)?|"
    r"Galaxy|OnePlus)\s?(?:[A-Za-z]{1,5}\s?)?\d{1,3}[A-Za-z+]*(?:\s?(?:Pro|Max|Ultra|Plus|mini|"
    r"Lite|FE|s|e))*$")


def lookup(text: str) -> Term | None:
    """The known term ``text`` names, trying a trailing generic noun and version off, then a
    car's make and a phone's model."""
    text = text.strip()
    if not text:
        return None
    for candidate in (text, _GENERIC_TAIL.sub("", text)):
        for key in _keys(candidate):
            if key in _TABLE:
                return _TABLE[key]
    if _PHONE_MODEL.match(text):
        return Term(text, "phone")
    return _car(text)


def canonicalize(text: str) -> tuple[str, Term | None]:
    """``(display name, term)``: the lexicon's spelling when known ("ts" -> "TypeScript").

    A version suffix is kept on the canonical base ("python 3.12" -> "Python 3.12") so the
    domain is still known while the version is not lost.
    """
    term = lookup(text)
    if term is not None:
        return term.canonical, term
    m = _VERSION_TAIL.match(text.strip())
    if m:
        base = lookup(m.group("base"))
        if base is not None:
            return f"{base.canonical} {m.group('ver')}", base
    return text.strip(), None


def domain_of_word(word: str) -> str | None:
    """The domain a category word names ("editor", "编程语言"), if any."""
    return DOMAIN_WORDS.get(normalize(word)) or DOMAIN_WORDS.get(word.strip())


# Chinese names of apps and companies the loose verbs (用X, 进了X) may take: outside the
# domains above (several at once are normal), so only recognised, never exclusive.
APPS_ZH = frozenset(
    """飞书 钉钉 微信 企业微信 支付宝 淘宝 小红书 抖音 快手 B站 哔哩哔哩 知乎 微博 剪映 美图秀秀 WPS
    石墨文档 语雀 腾讯文档 有道云笔记 网易云音乐 QQ音乐 高德地图 百度地图 随手记 Keep 滴滴 豆瓣 得到
    幕布 滴答清单 番茄ToDo 金山文档 腾讯会议 微信支付 云闪付 微信读书""".split()
)
# Every app name said in Chinese script (the list above and the app domains' Chinese names:
# B站, 喜马拉雅, 小宇宙...), for "追番一般在B站", "听书就开喜马拉雅".
APP_NAMES_ZH = APPS_ZH | frozenset(
    name for domain, terms in _DOMAINS.items() if domain.endswith("_app") or domain in (
        "cloud_storage",)
    for canonical, aliases in terms.items() for name in (canonical, *aliases)
    if re.search(r"[\u4e00-\u9fff]", name))
COMPANIES_ZH = frozenset(
    """腾讯 阿里巴巴 阿里 百度 字节跳动 字节 华为 小米 美团 京东 网易 拼多多 滴滴 快手 蚂蚁集团 携程
    比亚迪 大疆 蔚来 理想 小鹏 商汤 旷视 科大讯飞 联想 中兴 OPPO vivo 荣耀 哔哩哔哩 B站 知乎 新浪
    搜狐 360 招商银行 平安 中信 宁德时代 米哈游 网易游戏 腾讯游戏 阿里云 华为云 顺丰 顺丰速运
    京东物流 中通 圆通 韵达 饿了么 盒马 中国移动 中国联通 中国电信 国家电网
    工商银行 建设银行 农业银行 中国银行 交通银行
    海尔 格力 美的 海康威视 TCL 吉利 长城汽车 长安汽车 上汽 蒙牛 伊利 万科 链家 贝壳 瑞幸
    星巴克 喜茶 蜜雪冰城 海底捞 中石化 中石油 中国平安 小红书 得物 华为终端 荣耀 传音 立讯精密
    富士康 药明康德 恒瑞 迈瑞 顺丰科技 货拉拉 满帮 菜鸟 大疆创新""".split()
)


# --------------------------------------------------------------------------- roles

ROLE_WORDS_EN = frozenset(
    """engineer developer dev programmer coder designer teacher student manager doctor nurse
    scientist researcher writer artist lawyer consultant founder cofounder co-founder cto ceo
    cfo coo pm analyst architect freelancer intern professor lecturer accountant chef
    photographer journalist editor marketer musician entrepreneur tester sre devops admin
    administrator recruiter therapist pharmacist dentist pilot mechanic electrician librarian
    translator tutor coach lead director vp officer specialist technician postdoc phd
    candidate undergrad undergraduate maintainer contractor economist physicist chemist
    biologist mathematician statistician counselor counsellor worker cashier baker farmer
    soldier firefighter paramedic veterinarian vet barista waiter waitress clerk assistant
    secretary receptionist driver homemaker retiree nanny caregiver plumber carpenter
    psychologist psychiatrist surgeon physician dietitian nutritionist cook midwife bartender
    cleaner courier porter butcher florist hairdresser barber beautician optician radiologist
    sonographer auditor banker broker actuary paralegal solicitor barrister judge planner
    producer director animator illustrator copywriter reporter presenter sailor fisherman
    gardener landscaper builder welder machinist electrician roofer decorator painter
    sculptor dancer singer actor actress comedian streamer youtuber influencer salesperson
    rep representative associate ranger guard officer constable detective ambassador
    diplomat minister priest pastor rabbi imam carer supervisor foreman operator dispatcher
    controller navigator curator archivist engineer attorney attendant steward stewardess
    owner proprietor hygienist technologist strategist trainee apprentice instructor trainer
    lifeguard chauffeur housekeeper janitor custodian realtor agent""".split()
)
# Role words by their ending (radiographer, cardiologist, technician, auctioneer); the
# shortest ones stay out ("list", "career").
_ROLE_ENDING_EN = re.compile(r"^[a-z]{3,}(?:grapher|ologist|ician|iatrist|ographer|eer)$")
_NOT_A_ROLE_EN = frozenset({"career", "peer", "beer", "deer", "steer", "sneer", "cheer"})

ROLE_SUFFIX_ZH = re.compile(
    r"(?:工程师|程序员|开发者|开发|设计师|老师|教师|教授|讲师|学生|研究生|博士生|本科生|医生|"
    r"护士|经理|总监|主管|研究员|作家|律师|架构师|分析师|创始人|实习生|会计|厨师|摄影师|记者|"
    r"编辑|顾问|科学家|翻译|销售|运营|测试|博主|主播|CTO|CEO|PM|负责人|合伙人|主编|数据科学家|"
    # a work function said as the job (我在蔚来做售后)
    r"售后|产品|市场|研发|设计|人力|HR|采购|物流|法务|公关|质检|风控|客服|财务|行政|人事)$"
)


def is_role_en(phrase: str) -> bool:
    """Whether an English noun phrase ends in a role word ("senior backend engineer")."""
    words = normalize(phrase).split()
    if not words or len(words) > 5:
        return False
    last = words[-1]
    return last in ROLE_WORDS_EN or (last not in _NOT_A_ROLE_EN
                                     and bool(_ROLE_ENDING_EN.match(last)))


# Jobs said with a generic ending: 理发师, 咨询师 (…师); 公务员, 快递员 (…员), but not a
# member of something (会员, 成员, 人员, 党员, 团员, 队员, 学员).
_ROLE_ENDING_ZH = re.compile(
    r"(?:[\u4e00-\u9fff]师|(?<!会|成|人|党|团|队|学|官)员|司机|保安|警察|军人|农民|画家|作家|艺术家|"
    r"音乐家|专家|自由职业者|个体户|全职妈妈|家庭主妇|财务|人事|行政|客服|文员|前台|导游|空姐|空乘|"
    r"店长|老板|保姆|护工|HR|策划|助理|经纪人|自由职业|主持人|骑手|码农|中介|专员|组长|主任|校长|院长|"
    r"部长|处长|科长|厂长|队长|总裁|董事长|副总|领班)$")
_NOT_A_ROLE_ZH = frozenset({"大师", "老师傅", "牧师"})


def is_role_zh(phrase: str) -> bool:
    """Whether a Chinese phrase ends in a role word ("前端工程师", "公务员")."""
    if len(phrase) > 14 or phrase in _NOT_A_ROLE_ZH:
        return False
    return bool(ROLE_SUFFIX_ZH.search(phrase) or _ROLE_ENDING_ZH.search(phrase))


# --------------------------------------------------------------------------- places

# Only used to tell a workplace from a city in 我在X工作 and to type entities; not a gazetteer.
PLACES = frozenset(
    """北京 上海 深圳 广州 杭州 成都 南京 武汉 西安 重庆 天津 苏州 厦门 香港 台北 澳门 东京 大阪
    纽约 伦敦 巴黎 柏林 新加坡 硅谷 旧金山 西雅图 美国 中国 日本 英国 德国 法国 加拿大 澳洲
    澳大利亚 韩国 首尔 国内 国外 海外 家 家里 老家 本地 远程 这里 那里 这儿 那儿 外地
    北美 欧洲 长沙 青岛 大连 昆明 合肥 郑州 济南 沈阳 哈尔滨 长春 福州 宁波 无锡 珠海 东莞 佛山
    贵阳 南宁 南昌 太原 石家庄 兰州 乌鲁木齐 拉萨 海口 三亚 大理 丽江 桂林 温州 常州 徐州 扬州
    绍兴 嘉兴 烟台 泉州 洛阳 呼和浩特 银川 西宁 台湾 新疆 西藏 云南 四川 广东 浙江 江苏 福建
    山东 湖南 湖北 河南 河北 东北 悉尼 墨尔本 多伦多 温哥华 洛杉矶 芝加哥 波士顿 曼谷
    清迈""".split()
)


def is_place_zh(text: str) -> bool:
    """A known place, or something shaped like one (ends in 市/省/区/县)."""
    return text in PLACES or bool(re.fullmatch(r"[\u4e00-\u9fff]{1,6}[市省区县州]", text))
