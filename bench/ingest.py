"""Ingestion cost: episodes/s and relations/s with the rule engine on the embedded store,
and LLM calls and tokens per episode against a local OpenAI-compatible stub server.

    python bench/ingest.py --quick          # ~1 minute
    python bench/ingest.py                  # more episodes, MiniLM embedder

Prints a table and writes JSON to bench/results/ingest.json (or ingest_quick.json).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from graphmem.bootstrap import build_service  # noqa: E402
from graphmem.extract.llm import LLMExtractor  # noqa: E402
from graphmem.extract.rules import RuleExtractor  # noqa: E402
from graphmem.inputs import EpisodeIn, MessageIn  # noqa: E402
from graphmem.settings import Settings  # noqa: E402

CORPUS = REPO / "tests" / "data" / "rules_corpus.jsonl"


def load_sentences() -> list[str]:
    return [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def make_episodes(user: str, n: int, sentences: list[str], seed: int,
                  per_episode: int = 1) -> list[EpisodeIn]:
    rnd = random.Random(seed)
    base = datetime(2022, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        when = base + timedelta(hours=7 * i)
        msgs = [MessageIn("user", rnd.choice(sentences)) for _ in range(per_episode)]
        out.append(EpisodeIn(user_id=user, occurred_at=when, messages=msgs,
                             source_ref=f"{user}-{i}", session_id=f"s{i // 20}"))
    return out


def run_rules(n: int, batch: int, embedder: str, sentences: list[str]) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        svc = build_service(Settings(data_dir=Path(tmp), embedder=embedder))  # type: ignore[arg-type]
        svc.open()
        try:
            episodes = make_episodes("bench", n, sentences, seed=1)
            svc.embedder.embed(["warm up"])
            relations = 0
            per_batch: list[float] = []
            t0 = time.perf_counter()
            for i in range(0, n, batch):
                t = time.perf_counter()
                results = svc.add_episodes(episodes[i:i + batch])
                per_batch.append(time.perf_counter() - t)
                relations += sum(len(r.relations) for r in results)
                print(f"  rules: {min(i + batch, n)}/{n} episodes", file=sys.stderr)
            took = time.perf_counter() - t0
            stats = svc.stats("bench")
        finally:
            svc.close()
    return {"episodes": n, "batch": batch, "embedder": embedder, "seconds": round(took, 2),
            "episodes_per_s": round(n / took, 1), "relations_written": relations,
            "relations_per_s": round(relations / took, 1),
            "batch_median_s": round(statistics.median(per_batch), 3),
            "relation_nodes": stats.relations, "entities": stats.entities}


def run_llm(n: int, per_episode: int, batch_size: int, sentences: list[str]) -> dict[str, object]:
    sys.path.insert(0, str(REPO / "tests"))
    from stub_openai import OpenAIStub

    rules = RuleExtractor()

    def reply(messages: list[dict[str, object]]) -> str:
        # The stub answers like a model would: one relation per numbered message.
        text = str(messages[-1].get("content", ""))
        count = text.count("\n[") + 1
        return json.dumps({"entities": [], "relations": [
            {"subject": "user", "predicate": "likes", "object": f"thing {i}",
             "category": "preference", "exclusive": False, "confidence": 0.9,
             "valid_from": None, "stop": False, "message_index": i} for i in range(count)]})

    with OpenAIStub() as stub:
        stub.default_reply = reply
        extractor = LLMExtractor(base_url=stub.base_url, api_key="bench", model="stub",
                                 fallback=rules, batch_size=batch_size, timeout=10)
        episodes = make_episodes("llm", n, sentences, seed=2, per_episode=per_episode)
        calls = prompt = completion = 0
        fallbacks = 0
        t0 = time.perf_counter()
        for e in episodes:
            from graphmem.extract import Message

            ex = extractor.extract([Message(m.content, m.role) for m in e.messages or []])
            calls += ex.llm_calls
            prompt += ex.prompt_tokens
            completion += ex.completion_tokens
            fallbacks += ex.engine == "fallback"
        took = time.perf_counter() - t0
        served = stub.requests["chat"]
    return {"episodes": n, "messages_per_episode": per_episode, "batch_size": batch_size,
            "llm_calls_per_episode": round(calls / n, 3),
            "prompt_tokens_per_episode": round(prompt / n, 1),
            "completion_tokens_per_episode": round(completion / n, 1),
            "requests_served_by_stub": served, "fallbacks": fallbacks,
            "seconds": round(took, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small run (~1 minute)")
    ap.add_argument("--episodes", type=int, help="episodes for the rule-engine run")
    ap.add_argument("--batch", type=int, default=50, help="episodes per add_episodes call")
    ap.add_argument("--embedder", choices=["minilm", "hashing"], default="minilm",
                    help="embedder for the store run (minilm is the default product path)")
    ap.add_argument("--json", type=Path, help="where to write the results JSON")
    args = ap.parse_args(argv)
    n = args.episodes or (300 if args.quick else 2000)
    sentences = load_sentences()
    print(f"ingesting {n} episodes with the rule engine ({args.embedder} embedder)...",
          file=sys.stderr)
    rules = run_rules(n, args.batch, args.embedder, sentences)
    llm_rows = [run_llm(40 if args.quick else 200, per, 8, sentences) for per in (1, 8)]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip()
    result = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": {"nproc": os.cpu_count(), "platform": platform.platform(),
                          "python": platform.python_version()},
              "commit": commit, "command": "python bench/ingest.py " + " ".join(sys.argv[1:]),
              "rules": rules, "llm": llm_rows}
    print("\n| rule engine, embedded store | value |\n|---|---|")
    for key in ("episodes", "embedder", "seconds", "episodes_per_s", "relations_written",
                "relations_per_s", "batch_median_s"):
        print(f"| {key} | {rules[key]} |")
    print("\n| LLM engine (local stub) | msgs/episode | calls/episode | prompt tok/ep | "
          "completion tok/ep | fallbacks |\n|---|---|---|---|---|---|")
    for row in llm_rows:
        print(f"| batch {row['batch_size']} | {row['messages_per_episode']} | "
              f"{row['llm_calls_per_episode']} | {row['prompt_tokens_per_episode']} | "
              f"{row['completion_tokens_per_episode']} | {row['fallbacks']} |")
    out = args.json or REPO / "bench" / "results" / ("ingest_quick.json" if args.quick
                                                     else "ingest.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"\nwrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
