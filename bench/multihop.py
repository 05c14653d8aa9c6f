"""Two-hop relation questions: what graph expansion adds to recall.

A generated organisation: people work at companies and live in cities; companies are
located in cities and use tools. Each question names a person and asks about their
employer ("In which city is the company Omar Okafor works at located?", "What tools does
Omar Okafor's employer use?"), so the answer is a relation of the company, one hop away
from anything the question says. Relations only (``kinds=[RELATION]``), limit 10.

Measured for the service's own recall (default settings: the preset is picked by what the
user's memory is made of, here "relations"; with kinds=[RELATION] and with every kind) and
per recall variant (``graphmem.recall.ABLATIONS`` entries that touch the graph, through a
``Recaller`` with that one tuning): hit@1 and hit@10 (an answer relation in the top 1 /
10) and MRR.

    python bench/multihop.py            # 150 people, 160 questions, MiniLM
    python bench/multihop.py --quick    # 60 people, 40 questions
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import RESULTS, header, log, table, write_json  # noqa: E402

from graphmem.bootstrap import build_service, settle  # noqa: E402
from graphmem.inputs import RecallIn, RelationIn  # noqa: E402
from graphmem.model import MemoryKind  # noqa: E402
from graphmem.recall import ABLATIONS, Recaller  # noqa: E402
from graphmem.settings import Settings  # noqa: E402

FIRST = ("Ana Ben Chen Dara Eli Farah Goran Hana Ivo Jun Kemal Lena Mika Nadia Omar Priya "
         "Quinn Rosa Sven Tara Uma Viktor Wen Yara Zoe").split()
LAST = "Novak Okafor Silva Tanaka Berg Costa Duarte Engel Fischer Gomez".split()
COMPANIES = [f"{a} {b}" for a in ("Acme", "Blue", "Cobalt", "Delta", "Ember", "Flux",
                                  "Granite", "Helix")
             for b in ("Labs", "Works", "Systems", "Foods", "Media")]
CITIES = ("Berlin Lisbon Osaka Nairobi Lima Oslo Austin Porto Seoul Quito Riga Tunis Perth "
          "Cork Bern Graz Turku Lyon Split Kobe").split()
TOOLS = "Kubernetes Postgres React Rust Kafka Figma Slack Jira Terraform Redis Spark".split()
VARIANTS = ("full", "-graph", "graph from all 8 best-matching entities", "graph 0.4",
            "graph 1.0", "graph cover 2, prior 0.5")
USER = "multihop"


def generate(people: int, questions: int, seed: int) -> tuple[list[RelationIn],
                                                                list[tuple[str, set[str]]]]:
    rng = random.Random(seed)
    names = [f"{f} {last}" for f in FIRST for last in LAST][:people]
    where = {c: rng.choice(CITIES) for c in COMPANIES}
    uses = {c: rng.sample(TOOLS, 2) for c in COMPANIES}
    job = {p: rng.choice(COMPANIES) for p in names}
    home = {p: rng.choice(CITIES) for p in names}
    rels = [RelationIn(USER, c, "located_in", where[c], exclusive=True) for c in COMPANIES]
    rels += [RelationIn(USER, c, "uses", t) for c in COMPANIES for t in uses[c]]
    for p in names:
        rels.append(RelationIn(USER, p, "works_at", job[p], exclusive=True))
        rels.append(RelationIn(USER, p, "lives_in", home[p], exclusive=True))
    asked: list[tuple[str, set[str]]] = []
    for p in rng.sample(names, min(len(names), questions // 2)):
        c = job[p]
        asked.append((f"In which city is the company {p} works at located?",
                      {f"{c} located in {where[c]}"}))
        asked.append((f"What tools does {p}'s employer use?", {f"{c} uses {t}" for t in uses[c]}))
    return rels, asked


def evaluate(recall: Callable[[RecallIn], Any], asked: list[tuple[str, set[str]]],
             kinds: list[MemoryKind] | None = None) -> dict[str, Any]:
    hit1 = hit10 = 0
    rr = 0.0
    ms: list[float] = []
    for query, gold in asked:
        t0 = time.perf_counter()
        res = recall(RecallIn(USER, query, limit=10, kinds=kinds or [MemoryKind.RELATION])
                     .validated(20000))
        ms.append((time.perf_counter() - t0) * 1000)
        ranks = [i for i, it in enumerate(res.items) if it.text in gold]
        if ranks:
            hit10 += 1
            hit1 += ranks[0] == 0
            rr += 1.0 / (ranks[0] + 1)
    n = len(asked)
    ms.sort()
    return {"n": n, "hit@1": round(hit1 / n, 4), "hit@10": round(hit10 / n, 4),
            "MRR": round(rr / n, 4), "p50_ms": round(ms[n // 2], 2)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/multihop.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="60 people, 40 questions")
    p.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--json", type=Path, default=None,
                   help="default: bench/results/multihop.json (multihop_quick.json)")
    args = p.parse_args(argv)
    people, questions = (60, 40) if args.quick else (150, 160)
    rels, asked = generate(people, questions, args.seed)
    with tempfile.TemporaryDirectory(prefix="graphmem-multihop-") as tmp:
        svc = build_service(Settings(data_dir=Path(tmp), embedder=args.embedder))
        svc.open()
        settle(svc)
        try:
            log(f"ingesting {len(rels)} relations ...")
            t0 = time.perf_counter()
            for i in range(0, len(rels), 200):
                svc.add_relations(rels[i:i + 200])
            ingest_s = time.perf_counter() - t0
            results: dict[str, Any] = {}
            # the service as configured: its recall picks the preset by what the user's
            # memory is made of (here relations only: "relations")
            log("recall: service default ...")
            results["service default (preset auto), relations"] = evaluate(svc.recall, asked)
            results["service default (preset auto), all kinds"] = evaluate(
                svc.recall, asked, list(MemoryKind))
            for name in VARIANTS:
                log(f"recall: {name} ...")
                recaller = Recaller(svc.store, svc.embedder.embed_one, None,
                                    tuning=ABLATIONS[name], embedder=svc.embedder)
                results[name] = evaluate(
                    lambda q, r=recaller: r.recall(q, datetime.now(UTC)), asked)
        finally:
            svc.close()
    rows = [[name, r["hit@1"], r["hit@10"], r["MRR"], r["p50_ms"]] for name, r in
            results.items()]
    print(f"multihop: {len(rels)} relations, {len(asked)} two-hop questions, "
          f"embedder {args.embedder}\n")
    print(table(["recall variant", "hit@1", "hit@10", "MRR", "p50 ms"], rows))
    report = header("multihop")
    report.update({"config": {"people": people, "questions": len(asked),
                              "relations": len(rels), "embedder": args.embedder,
                              "seed": args.seed},
                   "ingest_seconds": round(ingest_s, 2), "results": results})
    out = args.json or RESULTS / ("multihop_quick.json" if args.quick else "multihop.json")
    write_json(out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
