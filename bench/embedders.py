"""Embedders side by side: MiniLM (English), USE multilingual v3, multilingual-e5-small.

Three parts, each optional:

* ``--calibrate``: the entity-name similarity threshold per model. Entity resolution joins a
  new name to a stored entity whose name embedding is at least this close; MiniLM's 0.86
  was chosen for MiniLM. Every model's cosines sit in its own range (e5's unrelated texts
  score ~.8), so each model gets the threshold at which the same share of distinct name
  pairs would link as with MiniLM at 0.86, measured on the English entity names the rule
  engine finds in the dev data (single-user chats seed 1; LoCoMo dev conversations).
* ``--throughput``: texts per second embedding 200 English and 200 Chinese short chat
  messages (corpus v1) in one call (median of 3 runs, one thread), and milliseconds per
  single question.
* ``--split dev|test``: for each embedder, ``bench/single_user.py --embedder E`` on the
  corpus seed of the split, corpus v1 (short chat turns) and v2 (long requests with facts
  said in passing): BM25 and dense retrieval alone over the same messages beside
  graphmem's recall through GraphQL, EN and ZH; and ``bench/locomo.py --split S
  --embedder E`` (BM25, dense alone and graphmem's recall); each in its own process, their
  JSONs under ``bench/results/embedders/``, the R@10 figures in one table here.

Knobs (the default embedder, the thresholds) are chosen on dev; test is reported once.

Examples::

    python bench/embedders.py --calibrate --throughput
    python bench/embedders.py --split dev --quick      # 2 chats per language, 1 LoCoMo conv
    python bench/embedders.py --split dev
    python bench/embedders.py --split test --embedders minilm,use --corpus v1
    python bench/embedders.py --split dev --collect    # the table of the runs on disk
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import RESULTS, header, log, table, write_json  # noqa: E402

EMBEDDERS = ("minilm", "use", "e5", "minilm+use")
SEEDS = {"dev": 1, "test": 2}
BASE_THRESHOLD = 0.86  # MiniLM's entity-name threshold, the reference
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
HERE = Path(__file__).resolve().parent


def make(kind: str) -> Any:
    from graphmem.embed import build_embedder

    return build_embedder(kind)


# --------------------------------------------------------------------------- calibrate


def dev_names() -> list[str]:
    """Distinct entity names the rule engine finds in the dev data."""
    from corpus import generate
    from locomo import DEFAULT_DATA, load_locomo

    from graphmem.extract import Message
    from graphmem.extract.rules import RuleExtractor
    from graphmem.model import normalize

    rules = RuleExtractor()
    texts = [(m.content, None) for c in generate(SEEDS["dev"], ("en", "zh"), 10).chats
             for m in c.messages if m.role == "user"]
    if DEFAULT_DATA.is_file():
        texts += [(t.content, t.speaker) for c in load_locomo(DEFAULT_DATA, ("dev",), None)
                  for t in c.turns]
    names: dict[str, str] = {}
    for text, speaker in texts:
        ex = rules.extract([Message(content=text, speaker=speaker)])
        for name in [e.name for e in ex.entities] + [x for r in ex.relations
                                                     for x in (r.subject, r.object)]:
            key = normalize(name)
            if key and len(name) <= 60:
                names.setdefault(key, name)
    return sorted(names.values())


def calibrate() -> dict[str, Any]:
    import numpy as np

    # English names only: MiniLM reads Chinese as unknown pieces (礼物 "gift" and 订阅
    # "subscription" score 1.0), so its 0.86 only means something for English names
    names = [n for n in dev_names() if not _HAN.search(n)]
    log(f"calibrating on {len(names)} distinct entity names")
    rows, cols = np.triu_indices(len(names), k=1)
    sims: dict[str, Any] = {}  # kind -> cosine of every pair of names, ascending
    order: dict[str, Any] = {}  # kind -> the pairs' indexes in that order
    for kind in EMBEDDERS:
        vecs = np.asarray(make(kind).embed(names), dtype=np.float32)
        upper = (vecs @ vecs.T)[rows, cols]
        order[kind] = np.argsort(upper, kind="stable")
        sims[kind] = upper[order[kind]]
    linked = int((sims["minilm"] >= BASE_THRESHOLD).sum())
    out: dict[str, Any] = {"names": len(names), "pairs": int(rows.size),
                           "minilm_threshold": BASE_THRESHOLD, "pairs_linked": linked,
                           "thresholds": {}}
    for kind, s in sims.items():
        # midway between the linked-th closest pair and the next: as many pairs at or
        # above it as MiniLM links at 0.86
        t = float((s[-linked] + s[-linked - 1]) / 2) if linked else float(s[-1])
        top = order[kind][::-1][:max(linked, 3)]
        out["thresholds"][kind] = {
            "threshold": round(t, 3), "median_pair_cosine": round(float(np.median(s)), 3),
            "closest_pairs": [[names[rows[i]], names[cols[i]]] for i in top]}
    return out


# --------------------------------------------------------------------------- throughput


def throughput(runs: int = 3) -> dict[str, Any]:
    from corpus import generate

    from graphmem.embed import query_embedder

    # the first corpus's short chat turns (~60-120 characters), what most episodes are
    chats = generate(SEEDS["dev"], ("en", "zh"), 1, version="v1").chats
    texts = {c.lang: [m.content for m in c.messages][:200] for c in chats}
    out: dict[str, Any] = {}
    for kind in EMBEDDERS:
        emb = make(kind)
        started = time.perf_counter()
        emb.embed(["warm-up"])
        load_s = time.perf_counter() - started
        row: dict[str, Any] = {"load_s": round(load_s, 2)}
        for lang, batch in texts.items():
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                emb.embed(batch)
                times.append(time.perf_counter() - t0)
            row[f"texts_per_s_{lang}"] = round(len(batch) / statistics.median(times), 1)
        embed_q = query_embedder(emb)
        questions = [m.content for m in chats[0].messages[:50]]
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            for q in questions:
                embed_q(q)
            times.append((time.perf_counter() - t0) / len(questions) * 1000)
        row["ms_per_question"] = round(statistics.median(times), 2)
        out[kind] = row
        log(f"  {kind}: {row}")
    return out


# --------------------------------------------------------------------------- recall runs


CORPORA = ("v1", "v2")
PARTS = ("single_user", "locomo")


def result_file(part: str, kind: str, split: str, quick: bool, corpus: str = "") -> Path:
    tag = f"{split}{'_quick' if quick else ''}"
    name = f"single_user_{corpus}" if part == "single_user" else part
    return RESULTS / "embedders" / f"{name}_{kind}_{tag}.json"


def run_split(split: str, quick: bool, embedders: list[str], corpora: list[str],
              parts: list[str]) -> None:
    """Each run in its own process, its JSON under bench/results/embedders/."""
    (RESULTS / "embedders").mkdir(parents=True, exist_ok=True)
    for kind in embedders:
        cmds = []
        if "single_user" in parts:
            for corpus in corpora:
                cmds.append([sys.executable, str(HERE / "single_user.py"), "--corpus", corpus,
                             "--seed", str(SEEDS[split]), "--embedder", kind,
                             "--retrievers", "bm25,dense,graphmem", "--json",
                             str(result_file("single_user", kind, split, quick, corpus))])
        if "locomo" in parts:
            cmds.append([sys.executable, str(HERE / "locomo.py"), "--split", split,
                         "--embedder", kind, "--retrievers", "bm25,dense,graphmem",
                         "--warmup", "0", "--json",
                         str(result_file("locomo", kind, split, quick))])
        for cmd in cmds:
            if quick:
                cmd.append("--quick")
            log(" ".join(cmd[1:]))
            started = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            log(f"  {time.perf_counter() - started:.0f} s")


def collect(split: str, quick: bool) -> dict[str, Any]:
    """R@10 (and MRR, update rate) of every run of the split found on disk."""
    out: dict[str, Any] = {}
    for kind in EMBEDDERS:
        row: dict[str, Any] = {}
        for corpus in CORPORA:
            path = result_file("single_user", kind, split, quick, corpus)
            if path.is_file():
                data = json.loads(path.read_text())
                row[f"single_user_{corpus}"] = {
                    "git_commit": data.get("git_commit"),
                    **{lang: {name: {"R@10": agg["R@10"], "MRR": agg["MRR"],
                                     "update": agg.get("update")}
                              for name, agg in by.items()}
                       for lang, by in data["results"].items()}}
        path = result_file("locomo", kind, split, quick)
        if path.is_file():
            data = json.loads(path.read_text())
            row["locomo"] = {"git_commit": data.get("git_commit"),
                             **{name: {"R@10": agg["overall"]["R@10"],
                                       "MRR": agg["overall"]["MRR"]}
                                for name, agg in data["results"][split].items()}}
        if row:
            out[kind] = row
    return out


def recall_table(runs: dict[str, Any]) -> str:
    head = ["embedder"]
    for corpus in CORPORA:
        head += [f"{corpus} {lang} {name}" for lang in ("EN", "ZH")
                 for name in ("bm25", "dense", "graphmem")]
    head += ["LoCoMo bm25", "LoCoMo dense", "LoCoMo graphmem"]
    rows = []
    for kind, r in runs.items():
        cells: list[Any] = [kind]
        for corpus in CORPORA:
            su = r.get(f"single_user_{corpus}", {})
            cells += [su.get(lang, {}).get(name, {}).get("R@10") for lang in ("en", "zh")
                      for name in ("bm25", "dense", "graphmem")]
        lo = r.get("locomo", {})
        cells += [lo.get(name, {}).get("R@10") for name in ("bm25", "dense", "graphmem")]
        rows.append(cells)
    return table(head, rows)


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/embedders.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calibrate", action="store_true")
    p.add_argument("--throughput", action="store_true")
    p.add_argument("--split", choices=tuple(SEEDS), default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--embedders", default=",".join(EMBEDDERS))
    p.add_argument("--corpus", default="v1,v2",
                   help="single-user corpus versions to run (default v1,v2)")
    p.add_argument("--parts", default=",".join(PARTS),
                   help="what to run for --split (default single_user,locomo); the table "
                        "collects every run of the split found under bench/results/embedders")
    p.add_argument("--collect", action="store_true",
                   help="with --split: run nothing, only collect the runs found")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    embedders = [e.strip() for e in args.embedders.split(",") if e.strip()]
    if not (args.calibrate or args.throughput or args.split):
        p.error("nothing to do: --calibrate, --throughput and/or --split")
    report = header("embedders")
    texts = []
    if args.calibrate:
        report["calibration"] = cal = calibrate()
        texts.append(table(["embedder", "threshold", "median pair cosine"],
                           [[k, v["threshold"], v["median_pair_cosine"]]
                            for k, v in cal["thresholds"].items()]))
    if args.throughput:
        report["throughput"] = tp = throughput()
        texts.append(table(["embedder", "load s", "texts/s EN", "texts/s ZH", "ms/question"],
                           [[k, v["load_s"], v["texts_per_s_en"], v["texts_per_s_zh"],
                             v["ms_per_question"]] for k, v in tp.items()]))
    if args.split:
        report["split"] = args.split
        report["quick"] = args.quick
        if not args.collect:
            run_split(args.split, args.quick, embedders,
                      [c for c in args.corpus.split(",") if c in CORPORA],
                      [x for x in args.parts.split(",") if x in PARTS])
        report["recall_at_10"] = runs = collect(args.split, args.quick)
        texts.append(recall_table(runs))
    text = "\n\n".join(texts)
    print(text)
    report["table"] = text
    name = "embedders" + (f"_{args.split}" if args.split else "_setup") + \
        ("_quick" if args.quick else "")
    write_json(args.json or RESULTS / f"{name}.json", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
