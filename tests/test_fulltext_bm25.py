"""The full-text stage: analysed terms (stemmed English, segmented Chinese) ranked by Okapi
BM25, on both stores, and the upgrade of graphs indexed before terms existed."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from graphmem.store import _fulltext
from graphmem.store._fulltext import rank
from graphmem.store._text_terms import analyse, index_terms, query_terms, query_weights
from graphmem.store.base import NodeWrite, WritePlan
from graphmem.store.falkor import FalkorStore, tenant_graph

DIM = 64


def _episodes(store, user: str, texts: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    plan = WritePlan(user_id=user, at=1)
    for node_id, text in texts.items():
        plan.episodes.append(NodeWrite(f"{user}-{node_id}", {
            "id": f"{user}-{node_id}", "userId": user, "content": text, "createdAt": 1,
            "occurredAt": 1}, [0.1] * DIM))
    store.apply(plan)


def _ids(hits, user: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [h.id.removeprefix(f"{user}-") for h in hits]


# --------------------------------------------------------------------------- analysis


def test_english_is_stemmed_and_function_words_dropped() -> None:
    assert analyse("She runs; they were running. The runner RAN!") == [
        "run", "run", "runner", "ran"]
    assert query_terms("runs running run") == ["run"]
    assert analyse("Caroline's 2 cats, R2D2") == ["carolin", "2", "cat", "r2d2"]


def test_chinese_is_segmented_without_spaces() -> None:
    terms = analyse("我很喜欢喝乌龙茶，去年在阿里巴巴工作")
    assert "喜欢" in terms and "乌龙茶" in terms and "阿里巴巴" in terms
    assert "我" not in terms and "很" not in terms  # particles and pronouns carry no topic
    assert {"python", "分析", "订单"} <= set(analyse("我用Python分析订单"))


def test_terms_hold_no_query_syntax() -> None:
    text = 'Hugo (editor) | "hugo" -Vim* AND @x:[1 2] ~fuzzy% 名字？'
    for term in analyse(text):
        assert term.isalnum(), term
    assert index_terms("?? !! ::") == ""


def test_bm25_weighs_rare_terms_and_short_documents() -> None:
    docs = {"a": Counter(["tea", "common"]), "b": Counter(["common", "word"]),
            "c": Counter(["common"] + ["filler"] * 8)}
    hits = rank(docs, {"tea": 1, "common": 3}, n=3, avg=4.0, k=3)
    assert [h.id for h in hits] == ["a", "b", "c"]
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    common = math.log(1 + (3 - 3 + 0.5) / (3 + 0.5))
    norm = 1.2 * (1 - 0.75 + 0.75 * 2 / 4.0)
    assert hits[0].score == pytest.approx((idf + common) * 2.2 / (1 + norm), abs=1e-5)


# --------------------------------------------------------------------------- both stores


def test_stemming_finds_running_for_runs(store, user: str) -> None:  # type: ignore[no-untyped-def]
    _episodes(store, user, {"1": "I was running along the river this morning",
                            "2": "We cooked pasta for dinner"})
    assert _ids(store.fulltext_search("Episode", user, "who runs?", 5), user) == ["1"]


def test_chinese_word_found_in_unspaced_text(store, user: str) -> None:  # type: ignore[no-untyped-def]
    _episodes(store, user, {"1": "我特别喜欢周末去西湖边骑自行车",
                            "2": "今天公司开会开到很晚", "3": "我不吃香菜"})
    assert _ids(store.fulltext_search("Episode", user, "喜欢", 5), user) == ["1"]
    assert _ids(store.fulltext_search("Episode", user, "小林周末喜欢做什么？", 5), user) == ["1"]


def test_a_character_of_a_longer_word_counts_less_than_the_word() -> None:
    weights = query_weights("我的上级是谁")
    assert weights["上级"] == 1.0
    assert weights["上"] < 1.0 and weights["级"] < 1.0  # pieces of 上级 only
    assert query_weights("我归谁管")["管"] == 1.0  # a word of its own in the question


def test_the_message_naming_the_word_outranks_ones_sharing_its_characters(
        store, user: str) -> None:  # type: ignore[no-untyped-def]
    # what recall sends for 我现在归谁管: the question and its facet's words (上级, 领导...);
    # everyday messages hold their common characters (上, 级, 老, 经, 理, 主, 报...)
    query = "我现在归谁管 上级 领导 老板 经理 主管 汇报"
    said = ("能帮我排个行程吗？我们有三天，想要走走逛逛也想放松。"
            "赵敏调去别的组了，我的新上级是孙浩。")
    pool = ["老师经常在上课前整理主要的报告", "上周导师让我们理一理现有的板书",
            "经过级别评审，主要的报表已经导出", "现场管理有点乱，老同事上午来整理",
            "主题报告的板块要理顺，导语上移"]
    _episodes(store, user, {"word": said, **{f"n{i}": f"{pool[i % 5]}，第{i}次"
                                              for i in range(20)}})
    hits = _ids(store.fulltext_search("Episode", user, query, 5), user)
    assert hits[0] == "word"


def test_rare_term_match_ranks_above_common_term_match(store, user: str) -> None:  # type: ignore[no-untyped-def]
    texts = {f"c{i}": f"meeting notes number {i} about the project" for i in range(8)}
    texts["rare"] = "quarterly meeting about the llama sanctuary"
    texts["common"] = "project meeting"
    _episodes(store, user, texts)
    hits = _ids(store.fulltext_search("Episode", user, "project llama", 10), user)
    # "llama" is in one node, "project" in nine: the llama node comes first even though
    # the short "project meeting" matches its word more densely.
    assert hits[0] == "rare"
    assert hits[1] == "common"
    assert set(hits) == {"rare", "common", *(f"c{i}" for i in range(8))}


def test_scores_match_bm25_over_the_same_terms(store, user: str) -> None:  # type: ignore[no-untyped-def]
    texts = {"1": "Ann moved to Berlin and works at Acme", "2": "Ann likes tea",
             "3": "Berlin is cold in winter; Ann bought a coat", "4": "Tea and cake at Acme"}
    _episodes(store, user, texts)
    docs = {i: Counter(analyse(t)) for i, t in texts.items()}
    terms = query_terms("Ann Berlin tea")
    df = {t: sum(1 for d in docs.values() if d[t]) for t in terms}
    avg = sum(sum(d.values()) for d in docs.values()) / len(docs)
    want = rank(docs, df, len(docs), avg, 10)
    got = store.fulltext_search("Episode", user, "Ann Berlin tea", 10)
    assert _ids(got, user) == [h.id for h in want]
    assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)


def test_a_small_users_terms_are_read_in_one_round_trip(  # type: ignore[no-untyped-def]
        store, user: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to ``FULL_SCAN_MAX`` nodes no term is capped: every term's nodes come in one query
    (the size and the average length aside), with the scores of one query per term."""
    texts = {"1": "Ann moved to Berlin and works at Acme", "2": "Ann likes tea",
             "3": "Berlin is cold in winter; Ann bought a coat", "4": "Tea and cake at Acme"}
    _episodes(store, user, texts)
    name = "_query" if isinstance(store, FalkorStore) else "_run"
    sent: list[str] = []
    real = getattr(store, name)

    def counting(text: str, params: dict, *a, **kw):  # type: ignore[no-untyped-def]
        sent.append(text)
        return real(text, params, *a, **kw)

    monkeypatch.setattr(store, name, counting)
    query = "Ann Berlin tea cake winter coat"
    batched = store.fulltext_search("Episode", user, query, 10)
    assert len(query_terms(query)) == 6
    assert sum("queryNodes" in t for t in sent) == 1
    # the same hits and scores as one query per term
    monkeypatch.setattr(store._q, "has", lambda name: False)
    sent.clear()
    per_term = store.fulltext_search("Episode", user, query, 10)
    assert sum("queryNodes" in t for t in sent) == 6
    assert [(h.id, h.score) for h in per_term] == [(h.id, h.score) for h in batched]


def test_a_term_capped_still_counts_its_frequency(store, user: str,  # type: ignore[no-untyped-def]
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A big user's common term is read for at most ``cap`` nodes (200 here), and its
    document frequency is still counted exactly."""
    monkeypatch.setattr(_fulltext, "FULL_SCAN_MAX", 100)  # 231 nodes count as big
    texts = {f"c{i}": f"coffee order {i}" for i in range(230)}
    texts["x"] = "coffee with oat milk"
    _episodes(store, user, texts)
    hits = store.fulltext_search("Episode", user, "oat coffee", 1)
    assert _ids(hits, user) == ["x"]
    docs = {"x": Counter(analyse(texts["x"]))}
    avg = sum(len(analyse(t)) for t in texts.values()) / len(texts)
    want = rank(docs, {"oat": 1, "coffe": 231}, len(texts), avg, 1)
    assert hits[0].score == pytest.approx(want[0].score, abs=1e-5)


def test_a_term_known_to_be_common_is_not_read_beside_a_rarer_one(  # type: ignore[no-untyped-def]
        store, user: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a big user's term is counted in more than COMMON_FACTOR x cap nodes, a question
    with a rarer term reads only the rarer one: the common term still weighs in the nodes
    found (same score as exact BM25 over them), nodes holding only it are not looked at; a
    question of common terms alone still reads the rarest of them."""
    monkeypatch.setattr(_fulltext, "FULL_SCAN_MAX", 100)
    monkeypatch.setattr(_fulltext, "COMMON_FACTOR", 1)  # above 200 nodes is common
    texts = {f"c{i}": f"coffee order {i}" for i in range(230)}
    texts["x"] = "coffee with oat milk"
    _episodes(store, user, texts)
    first = store.fulltext_search("Episode", user, "oat coffee", 5)
    assert _ids(first, user)[0] == "x" and len(first) == 5  # coffee read: its nodes too
    second = store.fulltext_search("Episode", user, "oat coffee", 5)
    assert _ids(second, user) == ["x"]  # coffee now known to be common: not read
    assert second[0].score == pytest.approx(first[0].score, abs=1e-5)
    alone = store.fulltext_search("Episode", user, "coffee", 5)
    assert len(alone) == 5


def test_other_users_do_not_change_scores(store, user: str) -> None:  # type: ignore[no-untyped-def]
    other = f"{user}-other"
    _episodes(store, user, {"1": "tea with Ann", "2": "coffee with Ann"})
    before = store.fulltext_search("Episode", user, "tea Ann", 5)
    _episodes(store, other, {f"o{i}": "tea tea tea" for i in range(20)})
    assert store.fulltext_search("Episode", user, "tea Ann", 5) == before


# --------------------------------------------------------------------------- upgrade


def test_graph_indexed_before_terms_is_upgraded_on_open(tmp_path: Path) -> None:
    """A graph from before ``terms``: its index over ``content`` (Chinese analyser) and
    nodes without terms; opening the store remakes the index and fills the terms."""
    store = FalkorStore(tmp_path, dim=DIM)
    store.open()
    try:
        _episodes(store, "ann", {"1": "placeholder"})
        graph = store._handle(tenant_graph("graphmem", "ann"))
        # The label's indexes as the schema before terms made them (Chinese analyser).
        for statement in ("CALL db.idx.fulltext.drop('Episode')",
                          "DROP INDEX FOR (n:Episode) ON (n.id)",
                          "DROP INDEX FOR (n:Episode) ON (n.userId)",
                          "DROP VECTOR INDEX FOR (n:Episode) ON (n.embedding)",
                          "CALL db.idx.fulltext.createNodeIndex("
                          "{label: 'Episode', language: 'chinese'}, 'content')",
                          "CREATE INDEX FOR (n:Episode) ON (n.id)",
                          "CREATE INDEX FOR (n:Episode) ON (n.userId)",
                          "CREATE VECTOR INDEX FOR (n:Episode) ON (n.embedding) "
                          f"OPTIONS {{dimension: {DIM}, similarityFunction: 'cosine'}}"):
            graph.query(statement)
        graph.query("MATCH (n:Episode) DELETE n")
        graph.query("MATCH (t:Tenant) REMOVE t.termsVersion")
        graph.query("CREATE (:Episode {id: 'ann-2', userId: 'ann', content: $c, "
                    "embedding: vecf32($v)}), (:Episode {id: 'ann-3', userId: 'ann', "
                    "content: '我喜欢跑步', embedding: vecf32($v)})",
                    {"c": "She was running late", "v": [0.1] * DIM})
        assert graph.ro_query("CALL db.indexes() YIELD label, language WHERE label = "
                              "'Episode' RETURN language").result_set[0][0] == "chinese"
    finally:
        store.close()
    store = FalkorStore(tmp_path, dim=DIM)
    store.open()
    try:
        assert _ids(store.fulltext_search("Episode", "ann", "runs", 5), "ann") == ["2"]
        assert _ids(store.fulltext_search("Episode", "ann", "喜欢", 5), "ann") == ["3"]
        graph = store._handle(tenant_graph("graphmem", "ann"))
        rows = graph.ro_query("CALL db.indexes() YIELD label, types "
                              "RETURN label, types").result_set
        fields = {label: sorted(f for f, kinds in types.items() if "FULLTEXT" in kinds)
                  for label, types in rows}
        assert fields["Episode"] == ["terms"]
        assert {label: lang for label, _, lang in graph.ro_query(
            "CALL db.indexes() YIELD label, types, language "
            "RETURN label, types, language").result_set}["Episode"] == "english"
        vec = [0.1] * DIM  # the vector index was made again and answers
        assert store.vector_search("Episode", "ann", vec, 5)
        assert graph.ro_query("MATCH (t:Tenant) RETURN t.termsVersion").result_set[0][0]
    finally:
        store.close()


def test_read_rows_do_not_carry_terms(store, user: str) -> None:  # type: ignore[no-untyped-def]
    _episodes(store, user, {"1": "tea with Ann"})
    row = store.nodes("Episode", user, [f"{user}-1"])[0]
    assert row["content"] == "tea with Ann"
    assert row.get("terms") is None
