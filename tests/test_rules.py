"""The offline rule extractor: pattern families in English and Chinese, the output
conventions the service relies on, time resolution, and the corpus score."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from graphmem.extract import Message
from graphmem.extract._dates import resolve_time
from graphmem.extract.rules import RuleExtractor
from graphmem.model import CURRENT_OBJECT, ExtractedRelation, Extraction, normalize

AT = datetime(2025, 6, 15, 10, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent


def run(text: str, *, speaker: str | None = None, role: str = "user",
        at: datetime | None = AT) -> Extraction:
    return RuleExtractor().extract([Message(text, role=role, speaker=speaker, occurred_at=at)])


def rels(text: str, **kw: object) -> list[ExtractedRelation]:
    return run(text, **kw).relations  # type: ignore[arg-type]


def keys(text: str, **kw: object) -> set[tuple[str, str, str, bool]]:
    return {(r.subject, r.predicate, r.object, r.stop) for r in rels(text, **kw)}


def one(text: str, predicate: str, **kw: object) -> ExtractedRelation:
    found = [r for r in rels(text, **kw) if r.predicate == predicate and not r.stop]
    assert len(found) == 1, (text, rels(text, **kw))
    return found[0]


# --------------------------------------------------------------------------- families

FAMILIES = [
    # preferences
    ("I like Vue.", ("user", "prefers", "Vue", False)),
    ("我喜欢 Vue。", ("user", "prefers", "Vue", False)),
    ("I love hiking.", ("user", "likes", "hiking", False)),
    ("我对机器学习很感兴趣。", ("user", "likes", "机器学习", False)),
    ("I hate YAML.", ("user", "dislikes", "YAML", False)),
    ("I don't like meetings.", ("user", "dislikes", "meetings", False)),
    ("我讨厌写文档。", ("user", "dislikes", "写文档", False)),
    ("我不喜欢开会。", ("user", "dislikes", "开会", False)),
    ("These days I prefer React.", ("user", "prefers", "React", False)),
    ("我现在更喜欢 React。", ("user", "prefers", "React", False)),
    ("我偏好深色模式。", ("user", "prefers", "dark mode", False)),
    ("My favorite editor is Helix.", ("user", "prefers", "Helix", False)),
    ("我最喜欢的编辑器是 Neovim。", ("user", "prefers", "Neovim", False)),
    ("I no longer like Angular.", ("user", "prefers", "Angular", True)),
    ("我已经不喝咖啡了。", ("user", "prefers", "coffee", True)),
    # identity and work
    ("My name is Caroline.", ("user", "name_is", "Caroline", False)),
    ("Call me Sam.", ("user", "name_is", "Sam", False)),
    ("我叫王芳。", ("user", "name_is", "王芳", False)),
    ("I live in Berlin.", ("user", "lives_in", "Berlin", False)),
    ("I moved to Lisbon.", ("user", "lives_in", "Lisbon", False)),
    ("我住在杭州。", ("user", "lives_in", "杭州", False)),
    ("我去年搬到了成都。", ("user", "lives_in", "成都", False)),
    ("I work at Shopify.", ("user", "works_at", "Shopify", False)),
    ("I joined Datadog last month.", ("user", "works_at", "Datadog", False)),
    ("我在阿里巴巴工作。", ("user", "works_at", "阿里巴巴", False)),
    ("我入职了字节跳动。", ("user", "works_at", "字节跳动", False)),
    ("I'm a nurse.", ("user", "has_role", "nurse", False)),
    ("I work as a freelance translator.", ("user", "has_role", "freelance translator", False)),
    ("我是一名前端工程师。", ("user", "has_role", "前端工程师", False)),
    ("I used to work at IBM.", ("user", "works_at", "IBM", True)),
    # tools and stack
    ("I use tmux.", ("user", "uses", "tmux", False)),
    ("The project uses FastAPI.", ("project", "uses", "FastAPI", False)),
    ("Our backend is written in Go.", ("project", "uses", "Go", False)),
    ("我用 Obsidian 记笔记。", ("user", "uses", "Obsidian", False)),
    ("项目使用 pnpm 管理依赖。", ("project", "uses", "pnpm", False)),
    ("我们的技术栈是 Nuxt、Drizzle 和 SQLite。", ("project", "uses", "SQLite", False)),
    # lessons
    ("The nightly build failed because the disk was full.",
     ("nightly build", "failed_because", "disk was full", False)),
    ("部署失败是因为内存不够。", ("部署", "failed_because", "内存不够", False)),
    ("Docker needs the proxy to pull images.", ("Docker", "requires", "proxy", False)),
    ("You need a VPN for the staging cluster.", ("staging cluster", "requires", "VPN", False)),
    ("Docker 构建需要使用 proxy-env 代理。", ("Docker 构建", "requires", "proxy-env 代理", False)),
    # plans and goals
    ("I plan to move to Lisbon next spring.", ("user", "plans_to", "move to Lisbon", False)),
    ("I want to learn Rust.", ("user", "plans_to", "learn Rust", False)),
    ("My goal is to run a marathon.", ("user", "goal", "run a marathon", False)),
    ("I'm learning Rust.", ("user", "learning", "Rust", False)),
    ("我打算明年考研。", ("user", "plans_to", "考研", False)),
    ("我计划下个月去日本旅游。", ("user", "plans_to", "去日本旅游", False)),
    ("我想要换一台电脑。", ("user", "plans_to", "换一台电脑", False)),
    ("我的目标是跑完一次马拉松。", ("user", "goal", "跑完一次马拉松", False)),
    ("我在学日语。", ("user", "learning", "日语", False)),
]


@pytest.mark.parametrize(("text", "expected"), FAMILIES, ids=[t for t, _ in FAMILIES])
def test_pattern_family(text: str, expected: tuple[str, str, str, bool]) -> None:
    assert expected in keys(text)


def test_english_and_chinese_changes_emit_stop_and_new() -> None:
    for text in ("I switched from Vim to VS Code.", "我从 Vim 换到了 VS Code。"):
        got = keys(text)
        assert ("user", "prefers", "Vim", True) in got
        assert ("user", "uses", "Vim", True) in got
        assert ("user", "prefers", "VS Code", False) in got
        assert ("user", "uses", "VS Code", False) in got
        by = {(r.predicate, r.object): r for r in rels(text)}
        # the stop lands in the same slot as the new value, so the service can close it
        assert by[("prefers", "Vim")].category == by[("prefers", "VS Code")].category
        assert by[("uses", "Vim")].category == "tool:editor"


def test_no_longer_emits_stop_only() -> None:
    for text in ("I no longer use Windows.", "I stopped using Windows.", "我不再用 Windows 了。"):
        got = rels(text)
        assert got and all(r.stop for r in got), text
        assert {r.object for r in got} == {"Windows"}


def test_no_longer_x_only_y_now_closes_x_and_states_y() -> None:
    got = keys("I no longer drink coffee, only tea now.")
    assert ("user", "prefers", "coffee", True) in got
    assert ("user", "prefers", "tea", False) in got
    assert not any("only" in o.lower() for _, _, o, _ in got)
    got = keys("I quit Slack, just Discord these days.")
    assert ("user", "uses", "Slack", True) in got
    assert ("user", "uses", "Discord", False) in got


def test_outside_the_lexicon_a_switch_is_about_uses() -> None:
    assert keys("We replaced Jenkins with GitHub Actions.") == {
        ("project", "uses", "Jenkins", True), ("project", "uses", "GitHub Actions", False)}


def test_moving_between_cities_closes_the_old_home() -> None:
    for text in ("I moved from London to Manchester.", "我从上海搬到了深圳。"):
        got = [r for r in rels(text) if r.predicate == "lives_in"]
        assert [r.stop for r in got] == [True, False]


def test_used_to_and_past_clause_stop_the_old_value() -> None:
    assert keys("I used to love Angular but now I prefer Svelte.") == {
        ("user", "prefers", "Angular", True), ("user", "prefers", "Svelte", False)}
    got = keys("我以前用 Vue，现在改用 React 了。")
    assert ("user", "uses", "Vue", True) in got and ("user", "prefers", "React", False) in got


# --------------------------------------------------------------------------- conventions


def test_known_preference_is_an_exclusive_domain_slot() -> None:
    first, later = one("I like Vue.", "prefers"), one("I now prefer React.", "prefers")
    assert first.category == later.category == "preference:frontend_framework"
    assert first.exclusive and later.exclusive
    assert one("我喜欢 Vue。", "prefers").category == first.category


def test_unknown_preference_is_a_plain_like() -> None:
    r = one("I love hiking.", "likes")
    assert (r.category, r.exclusive) == ("preference", False)
    d = one("I hate Java.", "dislikes")
    assert (d.category, d.exclusive) == ("preference", False)


def test_tools_get_a_domain_when_known() -> None:
    known, unknown = one("I use Neovim.", "uses"), one("I use tmux.", "uses")
    assert (known.category, known.exclusive) == ("tool:editor", True)
    assert (unknown.category, unknown.exclusive) == ("tool", False)


def test_tastes_are_preferences_not_tools() -> None:
    assert keys("I drink coffee every morning.") == {("user", "prefers", "coffee", False)}


def test_identity_and_work_are_exclusive() -> None:
    cases = {
        "My name is Ana.": ("name_is", "identity"), "I live in Oslo.": ("lives_in", "identity"),
        "I work at Stripe.": ("works_at", "work"), "I'm a teacher.": ("has_role", "work"),
    }
    for text, (predicate, category) in cases.items():
        r = one(text, predicate)
        assert (r.category, r.exclusive) == (category, True), text


def test_plans_lessons_categories() -> None:
    assert one("I plan to learn Go.", "plans_to").category == "plan"
    assert one("My goal is to ship v2.", "goal").category == "goal"
    assert one("I'm learning Go.", "learning").category == "learning"
    assert one("Docker requires a proxy.", "requires").category == "lesson"
    assert one("The build failed because of a typo.", "failed_because").category == "lesson"


def test_a_list_of_one_domain_is_not_a_dispute() -> None:
    got = rels("I like both Go and Rust.")
    assert {r.object for r in got} == {"Go", "Rust"}
    assert all(r.predicate == "prefers" and not r.exclusive for r in got)


def test_alias_canonicalisation() -> None:
    for text in ("I like TS.", "I like typescript.", "i like ts", "我喜欢 ts。"):
        assert one(text, "prefers").object == "TypeScript", text
    assert one("We use postgres.", "uses").object == "PostgreSQL"
    assert one("I use vue.js", "uses").object == "Vue"
    ts = next(e for e in run("I like ts.").entities if e.name == "TypeScript")
    assert ts.type == "programming_language" and "TS" in ts.aliases


def test_subject_is_the_speaker_else_user_else_nothing() -> None:
    assert one("I live in Berlin.", "lives_in", speaker="Caroline").subject == "Caroline"
    assert one("I live in Berlin.", "lives_in").subject == "user"
    assert rels("I live in Berlin.", role="assistant") == []
    assert one("We use Redis.", "uses", role="assistant").subject == "project"


def test_third_person_is_not_attributed_to_the_speaker() -> None:
    for text in ("He works at Google.", "我朋友喜欢 Angular。", "他在腾讯工作。"):
        assert rels(text) == [], text
    # a relative's facts are the relative's; the speaker only has the relative
    assert keys("My sister lives in Paris.") == {("user", "has_sister", "sister", False)}
    assert keys("My dad loves fishing.") == {("user", "has_father", "father", False)}


def test_statement_message_index_and_entities() -> None:
    out = RuleExtractor().extract([
        Message("Hello there!", occurred_at=AT),
        Message("I now prefer React.", speaker="Bob", occurred_at=AT),
    ])
    assert out.engine == "rules" and out.error is None
    prefers = next(r for r in out.relations if r.predicate == "prefers")
    assert prefers.message_index == 1
    assert prefers.statement == "Bob prefers React"
    entities = {e.name: e for e in out.entities}
    assert entities["Bob"].type == "person"
    assert entities["React"].type == "frontend_framework"
    assert entities["React"].message_index == 1
    stop = rels("I no longer live in Paris.")[0]
    assert stop.statement == "user no longer lives in Paris"


# --------------------------------------------------------------------------- confidence


def test_confidence_plain_hedged_and_dropped_subject() -> None:
    assert one("I like Svelte.", "prefers").confidence == 0.9
    for text in ("I think I like Svelte.", "Maybe I prefer Svelte.", "我可能更喜欢 Svelte。",
                 "我觉得我更喜欢 Svelte。"):
        c = one(text, "prefers").confidence
        assert 0.6 <= c < 0.9, text
    assert one("最近在学日语。", "learning").confidence < 0.9


QUESTIONS_AND_HYPOTHETICALS = [
    "Do you like Python?", "What editor do you use?", "Why do you prefer Rust?",
    "Could you remind me what I said about Vue?", "If I used Go, the service would be faster.",
    "I would use Rust if I had more time.", "You should use Postgres.", "Sounds good, thanks!",
    "That's a great idea, I love it!", "Let's use SQLite for the prototype.",
    "你喜欢什么编程语言？", "如果我用 Rust 重写会不会更快？", "你们用什么数据库？",
    "要是我住在上海就好了。", "你用过 Rust 吗？", "哈哈好的，谢谢！", "我可能会换到 Linux。",
]


@pytest.mark.parametrize("text", QUESTIONS_AND_HYPOTHETICALS)
def test_questions_and_hypotheticals_produce_nothing(text: str) -> None:
    assert rels(text) == []


def test_a_tag_question_keeps_the_statement() -> None:
    assert keys("I use Vim, what about you?") == {("user", "uses", "Vim", False)}
    assert ("user", "prefers", "React", False) in keys("我更喜欢 React，你呢？")


# --------------------------------------------------------------------------- time


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I've lived in Berlin since 2019.", datetime(2019, 1, 1, tzinfo=UTC)),
        ("I moved to Berlin last year.", datetime(2024, 1, 1, tzinfo=UTC)),
        ("我去年搬到了北京。", datetime(2024, 1, 1, tzinfo=UTC)),
        ("I moved to Berlin in March 2021.", datetime(2021, 3, 1, tzinfo=UTC)),
        ("I joined Stripe two weeks ago.", datetime(2025, 6, 1, tzinfo=UTC)),
        ("I switched to Vim yesterday.", datetime(2025, 6, 14, tzinfo=UTC)),
        ("我三年前开始用 Rust。", datetime(2022, 6, 15, tzinfo=UTC)),
        ("我2020年开始用 Rust。", datetime(2020, 1, 1, tzinfo=UTC)),
        ("I've used Emacs for 10 years.", datetime(2015, 6, 15, tzinfo=UTC)),
        ("Since 2019, I have lived in Berlin.", datetime(2019, 1, 1, tzinfo=UTC)),
        ("I joined Stripe on 2023-04-12.", datetime(2023, 4, 12, tzinfo=UTC)),
        ("I live in Berlin.", None),
        ("我叫李明，今年三十岁。", None),  # 今年 is about the age, not the name
    ],
)
def test_valid_from(text: str, expected: datetime | None) -> None:
    got = [r for r in rels(text) if not r.stop]
    assert got, text
    assert all(r.valid_from == expected for r in got), [r.valid_from for r in got]


def test_plans_have_no_valid_from_and_future_is_dropped() -> None:
    assert one("I plan to learn Rust next year.", "plans_to").valid_from is None
    assert resolve_time("in 2030", AT) is None


def test_time_keeps_the_message_zone_and_needs_an_anchor_for_relative() -> None:
    tz = timezone(timedelta(hours=8))
    when = resolve_time("去年", datetime(2025, 1, 10, 9, 0, tzinfo=tz))
    assert when == datetime(2024, 1, 1, tzinfo=tz)
    assert resolve_time("last year", None) is None
    assert resolve_time("since 2019", None) == datetime(2019, 1, 1, tzinfo=UTC)
    assert resolve_time("last week", AT) == datetime(2025, 6, 2, tzinfo=UTC)  # a Monday
    assert resolve_time("上个月", AT) == datetime(2025, 5, 1, tzinfo=UTC)
    assert resolve_time("3 months ago", datetime(2025, 5, 31, tzinfo=UTC)) == datetime(
        2025, 2, 28, tzinfo=UTC)


# --------------------------------------------------------------------------- robustness


def test_deterministic() -> None:
    text = ("I switched from Vue to React last year. 我们项目用的是 Drizzle ORM + SQLite。"
            "The deploy broke because of a missing env variable. I'm learning Rust.")
    a = RuleExtractor().extract([Message(text, occurred_at=AT)]).model_dump()
    b = RuleExtractor().extract([Message(text, occurred_at=AT)]).model_dump()
    assert a == b and a["relations"]


def test_empty_and_run_on_input() -> None:
    assert RuleExtractor().extract([]).relations == []
    assert rels("") == []
    run_on = "I like Vue and " + "some more words without any punctuation " * 400
    assert ("user", "prefers", "Vue", False) in keys(run_on)


def test_extractor_shape() -> None:
    ex = RuleExtractor()
    assert ex.name == "rules"
    assert isinstance(ex.extract([Message("I use Vim.")]), Extraction)


# --------------------------------------------------------------------------- corpus


def _bench() -> object:
    spec = importlib.util.spec_from_file_location("rules_eval", ROOT / "bench" / "rules_eval.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_corpus_shape() -> None:
    bench = _bench()
    rows = bench.load_corpus(bench.DEFAULT_CORPUS)  # type: ignore[attr-defined]
    assert len(rows) >= 80
    assert sum(bench.language(r["text"]) == "zh" for r in rows) >= 30  # type: ignore[attr-defined]
    assert sum(not r["expected"] for r in rows) >= 10
    for r in rows:
        for e in r["expected"]:
            assert normalize(e["object"]) and e["predicate"]


def test_corpus_precision_and_recall() -> None:
    bench = _bench()
    report = bench.evaluate(bench.load_corpus(bench.DEFAULT_CORPUS))  # type: ignore[attr-defined]
    # Measured 0.99 / 0.95 on the whole corpus and 0.94 / 0.73 on the held-out second half
    # before it was looked at; the floors leave room for the corpus to grow harder.
    assert report.overall.precision >= 0.9, report.false_positives
    assert report.overall.recall >= 0.85, report.misses
    for lang, score in report.by_language.items():
        assert score.precision >= 0.85 and score.recall >= 0.75, lang


@pytest.mark.parametrize(("text", "lesson"), [
    ("教训：升级前一定要备份。", "升级前一定要备份"),
    ("我学到了：部署前先跑测试。", "部署前先跑测试"),
    ("我学到了一个道理：先写测试。", "先写测试"),
])
def test_chinese_lessons_after_a_colon(text: str, lesson: str) -> None:
    rel = one(text, "learned")
    assert (rel.subject, rel.object, rel.category) == ("user", lesson, "lesson")


@pytest.mark.parametrize(("text", "obj", "category"), [
    ("I go climbing every Tuesday.", "climbing", "habit"),
    ("I usually go swimming on Sundays.", "swimming", "habit"),
    ("I went bouldering with Sam.", "bouldering", "event"),
    ("我每周二去攀岩。", "攀岩", "habit"),
    ("我周末去游泳。", "游泳", "habit"),
    ("我去攀岩了。", "攀岩", "event"),
    ("我每周四去练瑜伽。", "练瑜伽", "habit"),
    ("我周末去打篮球。", "打篮球", "habit"),
    ("I go to yoga on Thursdays.", "to yoga", "habit"),
])
def test_recurring_activities_are_habits_or_events(text: str, obj: str, category: str) -> None:
    rel = one(text, "goes")
    assert (rel.subject, rel.object, rel.category) == ("user", obj, category)


@pytest.mark.parametrize("text", ["你周末去游泳吗？", "我去北京出差。", "Do you go climbing?",
                                  "She goes running every day.", "我学到了很多。"])
def test_no_habit_or_lesson_where_none_is_said(text: str) -> None:
    assert not [r for r in rels(text) if r.predicate in ("goes", "learned")]


# --------------------------------------------------------------------------- changes of mind

CHANGES = [
    # English endings of work, and the employer that follows
    ("My last day at Barclays was Friday.", {("user", "works_at", "Barclays", True)}),
    ("I handed in my notice at Ikea and I'm starting at Spotify in May.",
     {("user", "works_at", "Ikea", True), ("user", "works_at", "Spotify", False)}),
    ("I was laid off from Intel.", {("user", "works_at", "Intel", True)}),
    ("I got a new job at Canonical.", {("user", "works_at", "Canonical", False)}),
    ("Friday was my final day at Acme; I'm at Figma now.",
     {("user", "works_at", "Acme", True), ("user", "works_at", "Figma", False)}),
    # tastes and habits given up, and what replaced them
    ("I quit smoking.", {("user", "likes", "smoking", True)}),
    ("I gave up playing chess.", {("user", "likes", "chess", True)}),
    ("I love playing chess.", {("user", "likes", "chess", False)}),
    ("I cut out sugar, it's honey for me now.",
     {("user", "likes", "sugar", True), ("user", "uses", "sugar", True),
      ("user", "likes", "honey", False)}),
    ("I've moved on from Vim, it's Helix now.",
     {("user", "prefers", "Vim", True), ("user", "uses", "Vim", True),
      ("user", "prefers", "Helix", False), ("user", "uses", "Helix", False)}),
    ("I'm not into opera anymore.", {("user", "likes", "opera", True)}),
    ("I'm no longer into crosswords.", {("user", "likes", "crosswords", True)}),
    ("I've always been a big fan of Agatha Christie novels.",
     {("user", "likes", "Agatha Christie novels", False)}),
    ("My browser is Firefox.", {("user", "uses", "Firefox", False)}),
    ("We sold the house and moved down to Devon.", {("user", "lives_in", "Devon", False)}),
    # break-ups and pets that are gone
    ("My husband and I separated.", {("user", "has_husband", "husband", True)}),
    ("My cat Mittens passed away.", {("user", "has_pet", "Mittens", True)}),
    ("We had to put our old dog down.", {("user", "has_pet", "dog", True)}),
    # Chinese
    ("以前我喜欢看动漫，现在更喜欢看纪录片。",
     {("user", "likes", "动漫", True), ("user", "likes", "纪录片", False)}),
    ("我对围棋已经没兴趣了。", {("user", "likes", "围棋", True)}),
    ("我对围棋不感兴趣。", {("user", "dislikes", "围棋", False)}),
    ("我把奶茶戒了。", {("user", "prefers", "milk tea", True)}),
    ("我戒了可乐，改喝豆浆了。",
     {("user", "likes", "可乐", True), ("user", "likes", "豆浆", False)}),
    ("我不在美团干了，跳到了快手。",
     {("user", "works_at", "美团", True), ("user", "works_at", "快手", False)}),
    ("下周我去京东报到。", {("user", "works_at", "京东", False)}),
    # a new trade: the role, and whatever employer was current ends
    ("我转行当了律师。", {("user", "has_role", "律师", False),
                    ("user", "works_at", CURRENT_OBJECT, True)}),
    ("我是一名公务员。", {("user", "has_role", "公务员", False)}),
    ("我换了iPhone。", {("user", "prefers", "iPhone", False), ("user", "uses", "iPhone", False)}),
    ("我们全家搬到了青岛。", {("user", "lives_in", "青岛", False)}),
    ("我和女朋友分手了。", {("user", "has_girlfriend", "女朋友", True)}),
    ("我家的狗去世了。", {("user", "has_pet", "狗", True)}),
    ("我平时用的工具有飞书和Notion。",
     {("user", "uses", "飞书", False), ("user", "uses", "Notion", False)}),
]


@pytest.mark.parametrize(("text", "expected"), CHANGES, ids=[t for t, _ in CHANGES])
def test_changes_of_mind_and_new_values(text: str, expected: set[tuple[str, str, str, bool]],
                                        ) -> None:
    assert keys(text) == expected


def test_a_break_up_by_name_ends_whichever_partner_slot_holds_the_name() -> None:
    got = keys("Maya and I broke up last month.")
    assert {p for _, p, o, stop in got if o == "Maya" and stop} == {
        "has_boyfriend", "has_girlfriend", "has_partner", "has_fiance", "has_wife",
        "has_husband", "has_spouse"}
    assert {p for _, p, o, stop in keys("我和小李分手了。") if o == "小李" and stop} == {
        "has_boyfriend", "has_girlfriend", "has_partner", "has_fiance", "has_wife",
        "has_husband", "has_spouse"}


ROLE_VERBS = [
    ("I teach biology at a secondary school.", {("user", "has_role", "biology teacher", False)}),
    ("I teach at Oakwood Primary.", {("user", "has_role", "teacher", False),
                                     ("user", "works_at", "Oakwood Primary", False)}),
    ("These days I freelance.", {("user", "has_role", "freelancer", False)}),
    ("I tutor maths.", {("user", "has_role", "maths tutor", False)}),
]


@pytest.mark.parametrize(("text", "expected"), ROLE_VERBS, ids=[t for t, _ in ROLE_VERBS])
def test_a_role_said_as_a_verb(text: str, expected: set[tuple[str, str, str, bool]]) -> None:
    assert keys(text) == expected


PRONOUNS = [
    ("Shellfish makes me break out in hives, I'm allergic to it.",
     {("user", "allergic_to", "shellfish", False)}),
    ("Wasp stings are scary for me, I'm allergic.",
     {("user", "allergic_to", "wasp stings", False)}),
    ("Licorice tastes awful to me, I can't stand it.", {("user", "dislikes", "Licorice", False)}),
    ("香菜我是真的受不了。", {("user", "dislikes", "香菜", False)}),
    ("榴莲我很喜欢。", {("user", "likes", "榴莲", False)}),
]


@pytest.mark.parametrize(("text", "expected"), PRONOUNS, ids=[t for t, _ in PRONOUNS])
def test_the_thing_named_before_its_pronoun_or_as_the_topic(
        text: str, expected: set[tuple[str, str, str, bool]]) -> None:
    assert keys(text) == expected


NOT_A_CHANGE = [
    # split / separated in other senses, other people's break-ups and pets, questions
    "My sister and I split the bill.", "My friend broke up with her boyfriend.",
    "Did you and Anna break up?", "If Anna and I broke up, I would be sad.",
    "My neighbour's dog died.",
    # give-up verbs with everyday objects
    "I dropped my phone.", "I kicked the ball.", "I stopped at the bakery.", "I quit.",
    # a role verb that is no job, a pronoun with nothing named before it
    "I love it.",
    "My boss gave me a laptop, I love it.", "The weather is awful, I hate it.",
    # a new value with no ending before it, a room that is no town
    "I'm at Heathrow now.", "It is Friday now.", "We moved down to the basement.",
    "My phone is dead.",
    # Chinese: a colleague is no partner, a walk is no death, a time is no topic
    "我和同事分手了。", "他和小李分手了。", "朋友家的狗去世了。", "我的狗狗今天走了好多路。",
    "周末我喜欢。", "这个我不喜欢。", "我买了一枚戒指。",
    "我只吃了一碗饭。", "明天去公司上班。", "我跳到了水里。", "我换了衣服。", "我是会员。",
    "我对他不感兴趣。",
]


@pytest.mark.parametrize("text", NOT_A_CHANGE)
def test_no_change_where_none_is_said(text: str) -> None:
    assert rels(text) == [], text


def test_a_pet_moved_about_is_had_not_ended() -> None:
    assert keys("We put our dog in the car.") == {("user", "has_pet", "dog", False)}


@pytest.mark.parametrize(("text", "kin"), [("I teach my kids at home.", "child"),
                                           ("I coach my son's football team.", "son")])
def test_a_role_verb_over_a_relative_is_no_job(text: str, kin: str) -> None:
    assert keys(text) == {("user", f"has_{kin}", kin, False)}


# --------------------------------------------------------------------------- through the service

def _say_all(service: object, user: str, texts: list[str]) -> set[str]:
    from graphmem.inputs import EpisodeIn

    for n, text in enumerate(texts):
        service.add_episode(EpisodeIn(  # type: ignore[attr-defined]
            user_id=user, content=text, role="user", source_ref=f"m{n}",
            occurred_at=datetime(2025, 1, 10, tzinfo=UTC) + timedelta(days=30 * n)))
    return {r.statement for r in service.relations(user)}  # type: ignore[attr-defined]


@pytest.mark.parametrize(("texts", "now"), [
    (["I love jazz.", "I can't stand jazz these days."], {"user dislikes jazz"}),
    (["I hate olives.", "I have come to love olives."], {"user likes olives"}),
    (["I like Vue.", "I really dislike Vue now."], {"user dislikes Vue"}),
    (["My girlfriend Emma is a chef.", "Emma and I broke up."], set()),
    (["I have a dog named Rex.", "My dog Rex passed away."], set()),
    (["I work at Stripe.", "My last day at Stripe was Friday. I'm at Notion now."],
     {"user works at Notion"}),
    (["我男朋友叫小王。", "我和小王分手了。"], set()),
    # a taste given up ends the plain like that names it in more words, not another one
    (["I'm obsessed with oat milk lattes.", "I've gone right off oat milk."], set()),
    (["I'm obsessed with oat milk lattes. I love matcha.", "I've gone right off oat milk."],
     {"user prefers matcha"}),
    (["Horror movies are my comfort genre.", "I used to be all about horror but not now."],
     set()),
    (["I'm a nurse at St. Vincent's.", "Orientation at Mayo Clinic was intense."],
     {"user works as nurse", "user works at Mayo Clinic"}),
])
def test_a_change_of_mind_ends_the_old_fact(service: object, user: str, texts: list[str],
                                            now: set[str]) -> None:
    assert _say_all(service, user, texts) == now


def test_a_taste_stated_once_ends_nothing(service: object, user: str) -> None:
    assert _say_all(service, user, ["I like olives.", "I love jazz."]) == {
        "user likes olives", "user likes jazz"}


# --------------------------------------------------------------------------- Chinese words

# A Chinese object starts and ends where jieba's words do: 和 inside 协和医院 or 和平区 is no
# list, 比 inside 比赛 or 比亚迪 no comparison; the verb before an allergen and the modal after
# it are not the allergen; a plan's opening time words are its date, not its content.
ZH_BOUNDARIES = [
    ("我在协和医院上班。", {("user", "works_at", "协和医院", False)}),
    ("我在中国和平出版社工作。", {("user", "works_at", "中国和平出版社", False)}),
    ("我住在和平区。", {("user", "lives_in", "和平区", False)}),
    ("我在比亚迪上班。", {("user", "works_at", "比亚迪", False)}),
    ("我喜欢看足球比赛。", {("user", "likes", "足球比赛", False)}),
    ("我喜欢比特币。", {("user", "likes", "比特币", False)}),
    ("我吃芒果会过敏。", {("user", "allergic_to", "芒果", False)}),
    ("我喝牛奶就过敏。", {("user", "allergic_to", "牛奶", False)}),
    ("我吃了虾以后过敏了。", {("user", "allergic_to", "虾", False)}),
    ("我对花生和芒果过敏。", {("user", "allergic_to", "花生", False),
                          ("user", "allergic_to", "芒果", False)}),
    ("我对虾和蟹过敏。", {("user", "allergic_to", "虾", False),
                      ("user", "allergic_to", "蟹", False)}),
    ("我喜欢猫和狗。", {("user", "likes", "猫", False), ("user", "likes", "狗", False)}),
    ("我喜欢吃和牛。", {("user", "likes", "和牛", False)}),
    ("我对和声学很感兴趣。", {("user", "likes", "和声学", False)}),
    ("我喜欢和朋友一起打篮球。", {("user", "likes", "篮球", False)}),
    ("我老婆叫张和平。", {("user", "has_wife", "张和平", False)}),
    ("我计划明年下半年学日语。", {("user", "plans_to", "学日语", False)}),
    ("我不在美团干了，跳到了快手。", {("user", "works_at", "美团", True),
                              ("user", "works_at", "快手", False)}),
]


@pytest.mark.parametrize(("text", "expected"), ZH_BOUNDARIES, ids=[t for t, _ in ZH_BOUNDARIES])
def test_chinese_objects_are_cut_on_word_boundaries(
        text: str, expected: set[tuple[str, str, str, bool]]) -> None:
    assert keys(text) == expected


# A verb that runs on into a longer word (住院, 生活费) closes no object; a modal, a time or a
# placeholder is no allergen.
@pytest.mark.parametrize("text", ["我在北京住院了。", "我在上海生活费很高。", "我会过敏。",
                                  "我今天过敏了。", "我吃东西会过敏。"])
def test_no_chinese_fact_from_a_word_cut_in_half(text: str) -> None:
    assert rels(text) == []


def test_word_aware_cutting_leaves_text_without_chinese_alone() -> None:
    import re

    from graphmem.extract._text import cut_at_words, split_at_words, word_bounds

    sep = re.compile(r"\s*(?:,|\band\b)\s*")
    text = "Python, Go and Rust"
    assert split_at_words(sep, text) == sep.split(text)
    m = cut_at_words(re.compile(r"and"), "Python and Go")
    assert m is not None and m.start() == 7
    assert word_bounds("协和医院上班") == frozenset({0, 4, 6})
