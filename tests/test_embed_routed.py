"""``minilm+use``: MiniLM for Latin script, USE for Chinese, one 384-d space; and Chinese
names that an English model cannot read never merge by their vectors.

The recall and entity cases run through the real app under uvicorn, with the real models,
on a real embedded store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from graphmem._embed_multi import USEEmbedder
from graphmem._embed_routed import DIM, RoutedEmbedder, _Projection, reads_as_cjk
from graphmem.bootstrap import build_service
from graphmem.client import EpisodeInput, GraphMemClient
from graphmem.embed import MiniLMEmbedder, build_embedder, reads_cjk
from graphmem.settings import Settings

from .test_client import LiveApp

EN = ["I love green tea in the morning.", "I moved to Lisbon last spring.",
      "My cat is called Doudou.", "I work at Northwind Labs as a data engineer."]
ZH = ["我喜欢喝茶", "我每天早上喝绿茶", "我在字节跳动工作", "我现在在腾讯上班",
      "我养了一只猫，叫豆豆", "我家的宠物是一只小猫", "我住在北京", "我搬到上海了",
      "下周三要交报告", "今天天气很好", "我最近开始学日语", "我的钢琴老师姓王"]

# short first-person Chinese memories, and questions that share (almost) no word with
# their source: full text cannot find them, the vectors must
MEMORIES = ["我养了一只猫，叫豆豆。", "我在一家银行做数据分析。", "周末我经常去爬山。",
            "我对花生过敏。", "我姐姐是医生。", "我最近在学弹钢琴。", "我每天早上喝一杯绿茶。",
            "我开一辆白色的特斯拉。", "我住在杭州西湖附近。", "我的生日是五月三号。",
            "我女儿今年上小学了。", "我下个月要去日本旅行。"]
ASKED = [("家里有什么宠物？", 0), ("有哪些食物不能碰？", 3), ("休息日喜欢做什么运动？", 2),
         ("我开什么车？", 7), ("我在学什么乐器？", 5), ("最近有什么出行计划？", 11),
         ("孩子读几年级？", 10)]


@pytest.fixture(scope="module")
def routed() -> RoutedEmbedder:
    return RoutedEmbedder()


def test_english_texts_get_minilms_own_vectors(routed: RoutedEmbedder) -> None:
    assert routed.embed(EN) == MiniLMEmbedder().embed(EN)
    # in one call with Chinese texts too, each keeps its place
    mixed = routed.embed([EN[0], ZH[0], EN[1]])
    assert mixed[0] == routed.embed([EN[0]])[0] and mixed[2] == routed.embed([EN[1]])[0]
    assert all(len(v) == DIM for v in mixed)


def test_chinese_texts_keep_uses_likeness(routed: RoutedEmbedder) -> None:
    use = np.array(USEEmbedder().embed(ZH))
    ours = np.array(routed.embed(ZH))
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0)
    upper = np.triu_indices(len(ZH), 1)
    before, after = (use @ use.T)[upper], (ours @ ours.T)[upper]
    assert np.abs(after - before).max() < 0.12
    assert np.corrcoef(before, after)[0, 1] > 0.95
    # each text's nearest other text is the same as with USE itself
    np.fill_diagonal(use_sim := use @ use.T, -1)
    np.fill_diagonal(our_sim := ours @ ours.T, -1)
    assert (use_sim.argmax(axis=1) == our_sim.argmax(axis=1)).mean() >= 0.9


def test_the_projection_is_a_fixed_orthogonal_map() -> None:
    a, b = _Projection().matrix, _Projection().matrix
    assert a.shape == (DIM, 512) and np.array_equal(a, b)
    assert np.allclose(a @ a.T, np.eye(DIM))


def test_pairs_across_the_two_halves_are_unrelated(routed: RoutedEmbedder) -> None:
    en = np.array(routed.embed(["I love tea.", "My cat is called Doudou."]))
    zh = np.array(routed.embed(["我喜欢茶。", "我的猫叫豆豆。"]))
    assert np.abs(en @ zh.T).max() < 0.2


@pytest.mark.parametrize(("text", "cjk"), [
    ("我在Google工作", True), ("一个 Notion 页面", True), ("東京に住んでいます", True),
    ("서울에 살아요", True), ("I had dinner at 鼎泰丰", False), ("Café au lait", False),
    ("", False), ("2024", False)])
def test_a_text_goes_to_the_model_that_reads_most_of_it(text: str, cjk: bool) -> None:
    assert reads_as_cjk(text) is cjk


def test_settings_and_factory_know_it() -> None:
    emb = build_embedder("minilm+use")
    assert isinstance(emb, RoutedEmbedder) and emb.dim == DIM and reads_cjk(emb)
    assert Settings(embedder="minilm+use").vector_dim == DIM
    assert emb.model_id == "all-MiniLM-L6-v2-int8+use-multilingual-v3-srht384"


# --------------------------------------------------------------------------- real server


@contextmanager
def _client(data_dir: Path, embedder: str) -> Iterator[GraphMemClient]:
    """The real app with the real embedder on its own embedded store, and a client."""
    settings = Settings(data_dir=data_dir, embedder=embedder,  # type: ignore[arg-type]
                        reflect_every=0)
    service = build_service(settings)
    service.open()
    try:
        with LiveApp(service, settings) as app, GraphMemClient(app.url) as client:
            yield client
    finally:
        service.close()


def _episodes(user: str, day: str, texts: list[str]) -> list[EpisodeInput]:
    return [EpisodeInput(user_id=user, occurred_at=f"{day}-{i + 1:02d}T10:00:00Z",  # type: ignore[arg-type]
                         content=text, role="user", source_ref=f"m{i}")
            for i, text in enumerate(texts)]


@pytest.fixture(scope="module")
def routed_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GraphMemClient]:
    with _client(tmp_path_factory.mktemp("routed"), "minilm+use") as client:
        yield client


def test_chinese_questions_in_other_words_find_their_memory(
        routed_app: GraphMemClient) -> None:
    user = "zh-user"
    routed_app.add_episodes(_episodes(user, "2025-03", MEMORIES))
    for question, source in ASKED:
        top = [item.text or "" for item in routed_app.recall(user, question, limit=3).items]
        assert any(MEMORIES[source].rstrip("。") in t for t in top), (question, top)


def test_english_memories_beside_chinese_ones_are_found_as_before(
        routed_app: GraphMemClient) -> None:
    user = "mixed-user"
    routed_app.add_episodes(_episodes(user, "2025-04", EN + ZH[:4]))
    top = routed_app.recall(user, "What pet do I have?", limit=1).items
    assert top and "Doudou" in (top[0].text or "")
    top = routed_app.recall(user, "我在哪家公司上班？", limit=2).items
    assert any("腾讯" in (i.text or "") or "字节跳动" in (i.text or "") for i in top)


@pytest.mark.parametrize("embedder", ["minilm", "minilm+use"])
def test_two_chinese_teas_stay_two_things(tmp_path: Path, embedder: str) -> None:
    # MiniLM reads 绿茶 and 红茶 as the same unknown pieces (cosine 1.0): linking by
    # vectors made "user likes 红茶" a duplicate of "user likes 绿茶" and lost it
    with _client(tmp_path / "data", embedder) as gm:
        green = gm.add_relation("tea", "user", "likes", "绿茶", exclusive=False)
        black = gm.add_relation("tea", "user", "likes", "红茶", exclusive=False)
        assert green.id != black.id and black.object == "红茶"
        names = {e.name: e for e in gm.entities("tea", limit=10).items}
        assert {"绿茶", "红茶"} <= set(names)
        assert not names["绿茶"].aliases and not names["红茶"].aliases


# Japanese and Korean go to USE by the same rule
KANA = ["猫を二匹飼っています。", "毎朝コーヒーを飲みます。", "大阪の銀行で働いています。",
        "来月ハワイに旅行します。", "ピアノを習っています。", "ピーナッツアレルギーがあります。"]
HANGUL = ["고양이 두 마리를 키우고 있어요.", "매일 아침 커피를 마셔요.",
          "서울에 있는 은행에서 일해요.", "다음 달에 하와이로 여행 가요.",
          "피아노를 배우고 있어요.", "땅콩 알레르기가 있어요."]


@pytest.mark.parametrize(("memories", "asked"), [
    (KANA, [("ペットはいますか？", 0), ("仕事は何ですか？", 2), ("食べられないものは？", 5),
            ("休暇の予定は？", 3)]),
    (HANGUL, [("반려동물이 있나요?", 0), ("직업이 뭐예요?", 2), ("못 먹는 음식이 있나요?", 5),
              ("휴가 계획이 있어요?", 3)])], ids=["japanese", "korean"])
def test_japanese_and_korean_questions_in_other_words_find_their_memory(
        routed_app: GraphMemClient, memories: list[str], asked: list[tuple[str, int]]) -> None:
    user = "user-ja" if memories is KANA else "user-ko"
    routed_app.add_episodes(_episodes(user, "2025-05", memories))
    for question, source in asked:
        top = [item.text or "" for item in routed_app.recall(user, question, limit=3).items]
        assert any(memories[source].rstrip("。.") in t for t in top), (question, top)
