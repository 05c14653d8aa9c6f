"""The full-text stage alone beside Okapi BM25 over the same texts, in English and Chinese.

Every turn of a conversation becomes one episode (content "Speaker: text", plus
"[image: caption]" for a LoCoMo turn sharing one) written straight to a fresh embedded
store, one user per conversation; every question is asked of ``store.fulltext_search``
(the stage recall runs, nothing else: no vector, graph, fusion or re-ranking; the row
``store-recall-words`` asks it what recall sends, the question without its function words,
``graphmem.question.content_words``) and of two
BM25 rankings computed here over the same texts with the same analysis
(``graphmem.store._text_terms``: Snowball-stemmed English, jieba-segmented Chinese,
function words dropped), k1 = 1.2, b = 0.75, Lucene's idf:

* ``bm25s``       the bm25s package (method "lucene") over those terms;
* ``bm25-exact``  an exhaustive float64 BM25 written here, independent of the store's code.

Ties are broken by turn id everywhere (the store's order). Sets (dev only: knobs of the
full-text stage are chosen on them, so none of these figures is held out):

* ``locomo-dev``  LoCoMo conv-26, 30, 41, 42, 43 (``--quick``: the first two), questions
                  of categories 1-4 with evidence ids cleaned as ``SOURCE.md`` describes;
* ``zh-dev``      ``bench/data/zh_dev.json``: 72 Chinese chat turns, 36 questions.

Metrics: turn-level evidence recall@5 and @10, MRR (first evidence turn within the top
20), and how often the store's top 10 is the reference's top 10 as a set. Writes
``bench/results/fulltext.json`` (``--quick``: ``fulltext-quick.json``).

    python bench/fulltext.py --quick
    python bench/fulltext.py
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
# Appended, not put first: a graphmem on PYTHONPATH (an older checkout) is the one measured.
sys.path.append(str(Path(__file__).resolve().parent.parent))

from _common import RESULTS, ROOT, header, log, write_json  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo10.json"
ZH_DEV = ROOT / "bench" / "data" / "zh_dev.json"
LOCOMO_DEV = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
CATEGORIES = (1, 2, 3, 4)
K1, B = 1.2, 0.75
DEPTH = 20


@dataclass(slots=True)
class Corpus:
    name: str
    user: str
    turns: dict[str, str]  # turn id -> indexed text
    questions: list[tuple[str, tuple[str, ...]]]  # (question, evidence turn ids)


# --------------------------------------------------------------------------- data


def _clean_evidence(raw: Sequence[str], known: set[str]) -> tuple[str, ...]:
    """As SOURCE.md says: split joined ids, repair "D:11:26" / "D30:05", drop unknown ones."""
    out: list[str] = []
    for item in raw:
        for token in re.split(r"[\s;]+", str(item).strip()):
            m = re.fullmatch(r"D:?(\d+):0*(\d+)", token)
            ref = f"D{int(m[1])}:{int(m[2])}" if m else ""
            if ref in known and ref not in out:
                out.append(ref)
    return tuple(out)


def load_locomo(ids: Sequence[str]) -> list[Corpus]:
    data = {s["sample_id"]: s for s in json.loads(LOCOMO.read_text(encoding="utf-8"))}
    out = []
    for sample_id in ids:
        conv = data[sample_id]["conversation"]
        turns: dict[str, str] = {}
        for key in sorted((k for k in conv if re.fullmatch(r"session_\d+", k) and conv[k]),
                          key=lambda k: int(k.split("_")[1])):
            for t in conv[key]:
                text = str(t.get("text") or "").strip()
                caption = str(t.get("blip_caption") or "").strip()
                if caption:
                    text = f"{text} [image: {caption}]".strip()
                if text:
                    turns[t["dia_id"]] = f"{t['speaker']}: {text}"
        questions = []
        for qa in data[sample_id]["qa"]:
            if int(qa.get("category", 0)) not in CATEGORIES:
                continue
            evidence = _clean_evidence(qa.get("evidence") or [], set(turns))
            if evidence:
                questions.append((str(qa["question"]), evidence))
        out.append(Corpus(sample_id, f"ft-{sample_id}", turns, questions))
    return out


def load_zh() -> Corpus:
    data = json.loads(ZH_DEV.read_text(encoding="utf-8"))
    turns = {t["id"]: f"{t['speaker']}: {t['text']}" for t in data["turns"]}
    questions = [(q["q"], tuple(q["evidence"])) for q in data["questions"]]
    return Corpus("zh-dev", "ft-zh-dev", turns, questions)


# --------------------------------------------------------------------------- rankers


def bm25_exact(docs: dict[str, list[str]]) -> Callable[[list[str]], list[str]]:
    """An exhaustive BM25 over every document (float64), best first, ties by id."""
    counts = {d: Counter(terms) for d, terms in docs.items()}
    n = len(docs)
    avg = sum(len(t) for t in docs.values()) / max(n, 1)
    df: Counter[str] = Counter(t for c in counts.values() for t in c)

    def ranked(query: list[str]) -> list[str]:
        scores = []
        for d, c in counts.items():
            norm = K1 * (1 - B + B * sum(c.values()) / avg)
            s = sum(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                    * c[t] * (K1 + 1) / (c[t] + norm) for t in query if c[t])
            if s > 0:
                scores.append((-s, d))
        return [d for _, d in sorted(scores)[:DEPTH]]

    return ranked


def bm25s_ranker(docs: dict[str, list[str]]) -> Callable[[list[str]], list[str]]:
    import bm25s

    ids = list(docs)
    model = bm25s.BM25(method="lucene", k1=K1, b=B)
    model.index([docs[i] for i in ids], show_progress=False)
    vocab = set(model.vocab_dict)

    def ranked(query: list[str]) -> list[str]:
        known = [t for t in query if t in vocab]
        if not known:
            return []
        found, scores = model.retrieve([known], k=len(ids), show_progress=False)
        pairs = [(-round(float(s), 4), ids[int(d)]) for d, s in zip(found[0], scores[0],
                                                                     strict=True) if s > 0]
        return [d for _, d in sorted(pairs)[:DEPTH]]

    return ranked


# --------------------------------------------------------------------------- metrics


def metrics(ranked: Sequence[str], evidence: Sequence[str]) -> dict[str, float]:
    ev = set(evidence)
    first = next((i for i, d in enumerate(ranked[:DEPTH]) if d in ev), None)
    return {"r@5": len(ev & set(ranked[:5])) / len(ev),
            "r@10": len(ev & set(ranked[:10])) / len(ev),
            "mrr": 0.0 if first is None else 1.0 / (first + 1)}


def mean(rows: list[dict[str, float]], key: str) -> float:
    return round(sum(r[key] for r in rows) / len(rows), 4) if rows else 0.0


# --------------------------------------------------------------------------- run


def run_set(store: Any, corpora: list[Corpus], with_reference: bool) -> dict[str, Any]:
    from graphmem.question import content_words
    from graphmem.store.base import NodeWrite, WritePlan

    per: dict[str, list[dict[str, float]]] = {"store": [], "store-recall-words": [],
                                              "bm25s": [], "bm25-exact": []}
    same_top10 = {"bm25s": 0, "bm25-exact": 0}
    took: list[float] = []
    questions = 0
    for corpus in corpora:
        plan = WritePlan(user_id=corpus.user, at=1)
        for i, (turn_id, text) in enumerate(corpus.turns.items()):
            node = f"{corpus.user}|{turn_id}"
            plan.episodes.append(NodeWrite(node, {
                "id": node, "userId": corpus.user, "content": text, "createdAt": 1,
                "occurredAt": 1 + i, "sourceRef": turn_id}, [1.0] + [0.0] * 7))
        store.apply(plan)
        refs: dict[str, Callable[[list[str]], list[str]]] = {}
        if with_reference:
            from graphmem.store._text_terms import analyse, query_terms

            docs = {t: analyse(text) for t, text in corpus.turns.items()}
            refs = {"bm25s": bm25s_ranker(docs), "bm25-exact": bm25_exact(docs)}
        for question, evidence in corpus.questions:
            questions += 1
            started = time.perf_counter()
            hits = store.fulltext_search("Episode", corpus.user, question, DEPTH)
            took.append((time.perf_counter() - started) * 1000)
            ranked = [h.id.split("|", 1)[1] for h in hits]
            per["store"].append(metrics(ranked, evidence))
            # what recall sends the stage: the question without its function words
            hits = store.fulltext_search("Episode", corpus.user, content_words(question), DEPTH)
            per["store-recall-words"].append(
                metrics([h.id.split("|", 1)[1] for h in hits], evidence))
            for name, ranker in refs.items():
                ref = ranker(query_terms(question))
                per[name].append(metrics(ref, evidence))
                same_top10[name] += set(ref[:10]) == set(ranked[:10])
    out: dict[str, Any] = {"conversations": [c.name for c in corpora],
                           "turns": sum(len(c.turns) for c in corpora),
                           "questions": questions}
    for name, rows in per.items():
        if rows:
            out[name] = {m: mean(rows, m) for m in ("r@5", "r@10", "mrr")}
    if with_reference:
        out["same_top10_as"] = {n: round(v / max(questions, 1), 4)
                                for n, v in same_top10.items()}
    took.sort()
    out["store_ms_p50"] = round(took[len(took) // 2], 2) if took else None
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="two LoCoMo dev conversations (and the ZH set)")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    parser.add_argument("--no-reference", action="store_true",
                        help="the store only (e.g. to measure an older store)")
    args = parser.parse_args(argv)

    from graphmem.store.falkor import FalkorStore

    ids = LOCOMO_DEV[:2] if args.quick else LOCOMO_DEV
    sets = {"locomo-dev": load_locomo(ids), "zh-dev": [load_zh()]}
    report = header("fulltext-vs-bm25")
    report["params"] = {"k1": K1, "b": B, "idf": "ln(1 + (N - df + 0.5) / (df + 0.5))",
                        "depth": DEPTH, "quick": args.quick}
    report["sets"] = {}
    with tempfile.TemporaryDirectory(prefix="graphmem-ft-") as tmp:
        store = FalkorStore(Path(tmp), dim=8)
        store.open()
        try:
            for name, corpora in sets.items():
                log(f"{name}: {len(corpora)} conversation(s)")
                report["sets"][name] = run_set(store, corpora, not args.no_reference)
        finally:
            store.close()

    print(f"{'set':<12} {'ranker':<18} {'R@5':>6} {'R@10':>6} {'MRR':>6}")
    for name, res in report["sets"].items():
        for ranker in ("store", "store-recall-words", "bm25s", "bm25-exact"):
            if ranker in res:
                m = res[ranker]
                print(f"{name:<12} {ranker:<18} {m['r@5']:>6.3f} {m['r@10']:>6.3f} "
                      f"{m['mrr']:>6.3f}")
        if "same_top10_as" in res:
            print(f"{name:<12} same top-10 set as bm25-exact: "
                  f"{res['same_top10_as']['bm25-exact']:.3f}, as bm25s: "
                  f"{res['same_top10_as']['bm25s']:.3f}")
    out = args.out or RESULTS / ("fulltext-quick.json" if args.quick else "fulltext.json")
    write_json(out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
