"""Reflection: how long ``reflect`` takes on a big user, and what it draws from a chat history.

Two parts, both on the embedded store with the offline rule extractor (no LLM):

* **speed** - one user with ``--relations`` relations written through ``addRelations``
  (preferences that repeat within their topic, tastes, tools, visits and filler facts, each
  with its own source), then ``reflect`` timed once from cold (every pattern new) and once
  more with nothing new (it must write nothing);
* **drawn** - a six-month history per language (EN, ZH: ``HISTORY``, preferences restated
  in other words, one that changes, tastes, a lesson, small talk), and the single-user chat
  corpus (``bench/corpus.py``, ``--corpus``, ``--seed``, ``--users`` chats per language),
  ingested as user turns the way a client sends them, then ``reflect`` per user; every
  abstraction is printed with its conditions, confidence and the statements of its
  sources, so a reader can judge them.

    python bench/reflect.py                      # 10k relations, 3 chats per language
    python bench/reflect.py --relations 2000 --users 1
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import corpus as corpus_gen  # noqa: E402
from _common import RESULTS, header, log, write_json  # noqa: E402

from graphmem.embed import HashingEmbedder  # noqa: E402
from graphmem.inputs import EpisodeIn, RelationIn  # noqa: E402
from graphmem.service import MemoryService  # noqa: E402
from graphmem.settings import Settings  # noqa: E402
from graphmem.store.falkor import FalkorStore  # noqa: E402

DIM = 256
T0 = datetime(2024, 1, 1, tzinfo=UTC)
TOPICS = ("editor", "coffee", "airline", "laptop", "browser", "language", "framework",
          "database", "shell", "tea", "bakery", "gym", "podcast", "camera", "bank")
OBJECTS = ("Alpha", "Bravo", "Cedar", "Delta", "Ember", "Fjord", "Garnet", "Heron")
PLACES = ("Lisbon", "Porto", "Madrid", "Oslo", "Kyoto", "Quito", "Hanoi", "Tunis")
FILLER = ("mentioned", "read about", "asked about", "met", "bought", "wrote about")


def big_user(rng: random.Random, n: int, user: str) -> list[RelationIn]:
    """``n`` relations of one user: about a fifth are preferences that repeat in a topic,
    a fifth tastes and tools, the rest visits and filler facts; each has its own source."""
    out: list[RelationIn] = []
    for i in range(n):
        at = T0 + timedelta(hours=i)
        ref = f"s{i}"
        roll = rng.random()
        topic = rng.choice(TOPICS)
        if roll < 0.2:
            obj = f"{rng.choice(OBJECTS[:3])} {topic}"
            out.append(RelationIn(user_id=user, subject="Dana", predicate="prefers",
                                  object=obj, category=f"preference:{topic}", valid_from=at,
                                  source_ref=ref))
        elif roll < 0.3:
            out.append(RelationIn(user_id=user, subject="Dana", predicate="likes",
                                  object=f"{rng.choice(OBJECTS)} {topic}", valid_from=at,
                                  source_ref=ref))
        elif roll < 0.4:
            out.append(RelationIn(user_id=user, subject="Dana", predicate="uses",
                                  object=f"{rng.choice(OBJECTS)} {topic}",
                                  category=f"tool:{topic}", valid_from=at, source_ref=ref))
        elif roll < 0.55:
            out.append(RelationIn(user_id=user, subject="Dana", predicate="visited",
                                  object=rng.choice(PLACES), valid_from=at, source_ref=ref))
        else:
            out.append(RelationIn(user_id=user, subject=f"Person {rng.randrange(n // 5 + 1)}",
                                  predicate=rng.choice(FILLER),
                                  object=f"{rng.choice(OBJECTS)} {rng.randrange(n)}",
                                  valid_from=at, source_ref=ref))
    return out


def speed(n: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    user = "dana"
    with tempfile.TemporaryDirectory(prefix="graphmem-reflect-") as tmp:
        store = FalkorStore(Path(tmp), dim=DIM)
        svc = MemoryService(Settings(data_dir=Path(tmp), embedder="hashing", embedding_dim=DIM,
                                     reflect_every=0), store, HashingEmbedder(DIM))
        svc.open()
        try:
            rels = big_user(rng, n, user)
            started = time.perf_counter()
            for i in range(0, len(rels), 500):
                svc.add_relations(rels[i:i + 500])
            ingest_s = time.perf_counter() - started
            log(f"  speed: {n} relations written in {ingest_s:.0f} s")
            t0 = time.perf_counter()
            first = svc.reflect(user)
            cold = time.perf_counter() - t0
            t0 = time.perf_counter()
            again = svc.reflect(user)
            warm = time.perf_counter() - t0
        finally:
            svc.close()
    log(f"  speed: reflect {cold:.1f} s ({len(first.written)} abstractions from "
        f"{first.patterns} patterns); again {warm:.1f} s, {len(again.changed)} changed")
    return {"relations": n, "ingest_seconds": round(ingest_s, 1),
            "reflect_seconds": round(cold, 2), "patterns": first.patterns,
            "abstractions": len(first.written), "again_seconds": round(warm, 2),
            "again_changed": len(again.changed)}


# A history with the repetition reflection is for: preferences restated in other words
# over months, one that changes, tastes, lessons said twice, activities done again and
# again (habits), and small talk. Each line is
# (what it is about, EN text, ZH text).
HISTORY = (
    ("editor", "I prefer Neovim for editing code.", "我更喜欢用Neovim写代码。"),
    ("editor", "Neovim is my favourite editor.", "我最喜欢的编辑器是Neovim。"),
    ("editor", "I still prefer Neovim as my editor.", "写代码我还是更喜欢用Neovim。"),
    ("drink", "I prefer green tea in the morning.", "我喜欢喝绿茶。"),
    ("drink", "Green tea is my favourite drink.", "我最喜欢的饮料是绿茶。"),
    ("db", "I use Postgres for my side projects.", "我用Postgres做项目。"),
    ("db", "I use Postgres for the new app too.", "新的应用我也用Postgres。"),
    ("music", "I love jazz.", "我喜欢爵士乐。"),
    ("music", "I really like jazz on Sunday evenings.", "我周日晚上很喜欢听爵士乐。"),
    ("food", "I like Thai food.", "我喜欢吃泰国菜。"),
    ("food", "I really like ramen.", "我喜欢吃拉面。"),
    ("lesson", "Lesson learned: always back up before upgrading.",
     "教训：升级前一定要备份。"),
    ("lesson", "Lesson learned: back up before every upgrade.",
     "教训：升级之前要先备份。"),
    ("browser", "I prefer Firefox as my browser.", "我更喜欢用Firefox浏览器。"),
    ("browser", "Firefox is my favourite browser.", "我最喜欢的浏览器是Firefox。"),
    ("laptop", "I use a ThinkPad for work.", "我工作用ThinkPad。"),
    ("laptop", "I use my ThinkPad for the talk slides too.", "做演讲的幻灯片我也用ThinkPad。"),
    ("sport", "I like hiking.", "我喜欢徒步。"),
    ("sport", "I really like hiking in the mountains.", "我很喜欢去山里徒步。"),
    ("climb", "I go climbing every Tuesday.", "我每周二去攀岩。"),
    ("climb", "I went climbing again after work.", "我又去攀岩了。"),
    ("swim", "I usually go swimming on Sundays.", "我周末去游泳。"),
    ("swim", "I went swimming this morning.", "我今天早上去游泳了。"),
    ("run", "I go running every morning.", "我每天早上去跑步。"),
    ("yoga", "I go to yoga on Thursdays.", "我每周四去练瑜伽。"),
    ("yoga", "I went to yoga after work.", "我下班后去练瑜伽了。"),
    ("lesson2", "Lesson learned: run the tests before deploying.", "教训：部署前先跑测试。"),
    ("lesson2", "Lesson learned: always run the tests before a deploy.",
     "我学到了：部署之前一定要先跑测试。"),
    ("small", "The weather was grey all day.", "今天一整天都是阴天。"),
    ("small", "Can you summarise this article for me?", "能帮我总结一下这篇文章吗？"),
    ("small", "Thanks, that helps.", "谢谢，很有帮助。"),
)
SWITCH = ("editor", "I switched to Helix as my editor.", "我换成了Helix编辑器。")
AFTER_SWITCH = ("editor", "Helix is my favourite editor now.", "我现在最喜欢的编辑器是Helix。")


def history(lang: str, seed: int, months: int = 6) -> list[tuple[datetime, str]]:
    """About four sessions a month of three to five user messages from ``HISTORY``; the
    editor preference switches to Helix in the second half."""
    rng = random.Random(f"{seed}:{lang}")
    col = 1 if lang == "en" else 2
    out: list[tuple[datetime, str]] = []
    start = datetime(2025, 1, 6, 9, tzinfo=UTC)
    for week in range(months * 4):
        day = start + timedelta(days=7 * week + rng.randrange(3))
        switched = week >= months * 2
        pool = [h for h in HISTORY if not (switched and h[0] == "editor")]
        if switched:
            pool.append(AFTER_SWITCH)
        lines = rng.sample(pool, rng.randint(3, 5))
        if week == months * 2:
            lines.insert(0, SWITCH)
        for i, line in enumerate(lines):
            out.append((day + timedelta(minutes=5 * i), str(line[col])))
    return out


def drawn_history(seed: int) -> list[dict[str, Any]]:
    """``HISTORY`` in EN and ZH, one user each, ingested as user turns, then reflect."""
    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="graphmem-reflect-") as tmp:
        store = FalkorStore(Path(tmp), dim=DIM)
        svc = MemoryService(Settings(data_dir=Path(tmp), embedder="hashing", embedding_dim=DIM,
                                     reflect_every=0), store, HashingEmbedder(DIM))
        svc.open()
        try:
            for lang in ("en", "zh"):
                user = f"history-{lang}"
                turns = history(lang, seed)
                svc.add_episodes([EpisodeIn(user_id=user, content=text, role="user",
                                            occurred_at=at, source_ref=f"{lang}-{i}")
                                  for i, (at, text) in enumerate(turns)])
                result = svc.reflect(user)
                current = svc.abstractions(user)
                log(f"  {user}: {len(turns)} user turns over six months, {result.patterns} "
                    f"patterns, {len(current)} abstractions")
                out.extend(_described(svc, user, lang, current))
        finally:
            svc.close()
    return out


def _described(svc: MemoryService, user: str, lang: str, found: list[Any]
               ) -> list[dict[str, Any]]:
    return [{"user": user, "lang": lang, "id": a.id, "conclusion": a.conclusion,
             "conditions": a.conditions, "confidence": a.confidence,
             "status": a.status.value,
             "sources": [svc.relation(user, sid).statement for sid in a.source_ids]}
            for a in found]


def drawn(version: str, seed: int, users: int) -> list[dict[str, Any]]:
    corpus = corpus_gen.generate(seed, users=users, version=version)
    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="graphmem-reflect-") as tmp:
        store = FalkorStore(Path(tmp), dim=DIM)
        svc = MemoryService(Settings(data_dir=Path(tmp), embedder="hashing", embedding_dim=DIM,
                                     reflect_every=0), store, HashingEmbedder(DIM))
        svc.open()
        try:
            for chat in corpus.chats:
                batch = [EpisodeIn(user_id=chat.user_id, content=m.content, role=m.role,
                                   occurred_at=datetime.fromisoformat(m.occurred_at),
                                   session_id=s.id, source_ref=m.id)
                         for s in chat.sessions for m in s.messages if m.role == "user"]
                for i in range(0, len(batch), 50):
                    svc.add_episodes(batch[i:i + 50])
                result = svc.reflect(chat.user_id)
                current = svc.abstractions(chat.user_id)
                log(f"  {chat.user_id} ({chat.lang}): {len(batch)} user turns, "
                    f"{result.patterns} patterns, {len(current)} abstractions")
                out.extend(_described(svc, chat.user_id, chat.lang, current))
        finally:
            svc.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--relations", type=int, default=10_000,
                    help="relations of the big user for the speed part (default 10000)")
    ap.add_argument("--users", type=int, default=3,
                    help="chats per language for the drawn part (default 3)")
    ap.add_argument("--corpus", choices=corpus_gen.VERSIONS, default="v1")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, default=RESULTS / "reflect.json")
    args = ap.parse_args(argv)
    report = header("reflect")
    report["config"] = {"relations": args.relations, "users_per_lang": args.users,
                        "corpus": args.corpus, "seed": args.seed, "embedder": "hashing",
                        "extractor": "rules", "store": "embedded"}
    log("speed ...")
    report["speed"] = speed(args.relations, args.seed)
    log("drawn from a six-month history ...")
    report["drawn"] = drawn_history(args.seed)
    log("drawn from the chat corpus ...")
    report["drawn"] += drawn(args.corpus, args.seed, args.users)
    for a in report["drawn"]:
        print(f"[{a['user']}] {a['conclusion']}  {a['conditions']}  conf {a['confidence']:.2f}"
              f"  <- {a['sources']}")
    write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
