"""LoCoMo evidence recall: graphmem's recall beside BM25, dense and fused baselines.

Every conversation of ``locomo10.json`` becomes one memory (``userId``); every turn one
episode (``occurredAt`` = its session's date, ``sourceRef`` = its ``dia_id``, ``speaker`` =
who said it; an image a turn shares is kept as its caption). The questions of categories
1-4 (1,536 once the evidence ids are cleaned as ``SOURCE.md`` describes) are asked of
graphmem's recall and of four baselines computed here over the same turns:

* ``bm25``        bm25s, lowercase, English stopwords;
* ``dense``       all-MiniLM-L6-v2 (int8 ONNX, the embedder graphmem uses), cosine;
* ``rrf``         BM25 + dense, reciprocal-rank fusion (k=60);
* ``rrf+time``    RRF, and for when-questions turns carrying a date or a time word
                  ("yesterday", "last week", "May", "2022") get their score x 1.5;

all of them over "speaker: text [image: caption]", in memory, one conversation at a time.

graphmem's recall returns episodes, relations and entities; each item is mapped back to
turns through its provenance (the ``sourceRef`` of its source episodes), walking the items
in rank order until k distinct turns are collected. Metrics, overall and per category
(2 = temporal, 1 = multi-hop, 3 = open-domain, 4 = single-hop): turn-level evidence
recall@5/10/20, the share of questions with all their evidence in the top 10, session-level
recall@10 and MRR (reciprocal rank of the first evidence turn within the top 20).

The data (CC BY-NC 4.0) is read from ``../shared``; nothing of it is written to the repo.

Examples::

    python bench/locomo.py --quick              # 2 conversations, a few minutes
    python bench/locomo.py                      # all 10 conversations
    python bench/locomo.py --ablate             # also graphmem with each recall stage off
    python bench/locomo.py --retrievers bm25,dense,rrf --quick   # baselines only
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import RESULTS, ROOT, header, log, table, write_json  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "datasets" / "locomo" / "locomo10.json"
CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
DEPTH = 20  # turns collected per question (R@20, MRR within the top 20)
RRF_K = 60
BASELINES = ("bm25", "dense", "rrf", "rrf+time")
ALL_RETRIEVERS = (*BASELINES, "graphmem")


# --------------------------------------------------------------------------- data


@dataclass(slots=True)
class Turn:
    dia_id: str
    session: int
    session_key: str
    speaker: str
    content: str  # the turn's text, plus "[image: caption]" when it shares one

    @property
    def indexed(self) -> str:
        """What the baselines index: who speaks, and what they say."""
        return f"{self.speaker}: {self.content}"


@dataclass(slots=True)
class Session:
    key: str
    number: int
    date_time: str
    turns: list[Turn]


@dataclass(slots=True)
class Question:
    conv: int
    text: str
    evidence: tuple[str, ...]
    category: int


@dataclass(slots=True)
class Conversation:
    sample_id: str
    sessions: list[Session]
    questions: list[Question] = field(default_factory=list)

    @property
    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s.turns]

    @property
    def user_id(self) -> str:
        return f"locomo-{self.sample_id}"


_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


def clean_evidence(raw: Sequence[str], known: set[str]) -> tuple[str, ...]:
    """Evidence ids as SOURCE.md says: split joined ids on space or ';', repair malformed
    ones ("D:11:26" -> "D11:26", "D30:05" -> "D30:5"), drop what names no turn."""
    out: list[str] = []
    for item in raw:
        for token in re.split(r"[\s;]+", str(item).strip()):
            m = _EVIDENCE.fullmatch(token)
            if m is None:
                continue
            ref = f"D{int(m[1])}:{int(m[2])}"
            if ref in known and ref not in out:
                out.append(ref)
    return tuple(out)


def turn_content(turn: dict[str, Any]) -> str:
    text = str(turn.get("text") or "").strip()
    caption = str(turn.get("blip_caption") or "").strip()
    if caption:
        text = f"{text} [image: {caption}]" if text else f"[image: {caption}]"
    return text


def load_locomo(path: Path, limit: int | None) -> list[Conversation]:
    data = json.loads(path.read_text(encoding="utf-8"))
    convs: list[Conversation] = []
    for ci, sample in enumerate(data[:limit] if limit else data):
        conv = sample["conversation"]
        numbers = sorted(int(m[1]) for k in conv
                         if (m := re.fullmatch(r"session_(\d+)", k)) and conv[k])
        sessions = []
        for n in numbers:
            key = f"session_{n}"
            turns = [Turn(dia_id=t["dia_id"], session=n, session_key=key,
                          speaker=t["speaker"], content=turn_content(t))
                     for t in conv[key] if turn_content(t)]
            sessions.append(Session(key, n, conv[f"{key}_date_time"], turns))
        c = Conversation(sample["sample_id"], sessions)
        known = {t.dia_id for t in c.turns}
        for qa in sample["qa"]:
            cat = int(qa.get("category", 0))
            if cat not in CATEGORIES:
                continue
            evidence = clean_evidence(qa.get("evidence") or [], known)
            if evidence:
                c.questions.append(Question(ci, str(qa["question"]), evidence, cat))
        convs.append(c)
    return convs


# --------------------------------------------------------------------------- metrics


def session_of(dia_id: str) -> str:
    return dia_id.split(":", 1)[0]


def score_ranking(ranked: Sequence[str], evidence: Sequence[str]) -> dict[str, float]:
    """Turn- and session-level metrics of one ranked list of distinct dia_ids."""
    ev = set(evidence)
    out: dict[str, float] = {}
    for k in KS:
        top = set(ranked[:k])
        out[f"R@{k}"] = len(ev & top) / len(ev)
    out["allIn10"] = 1.0 if ev <= set(ranked[:10]) else 0.0
    ev_sess = {session_of(e) for e in ev}
    out["sessR@10"] = len(ev_sess & {session_of(r) for r in ranked[:10]}) / len(ev_sess)
    rr = 0.0
    for i, ref in enumerate(ranked[:DEPTH]):
        if ref in ev:
            rr = 1.0 / (i + 1)
            break
    out["MRR"] = rr
    return out


METRICS = ("R@5", "R@10", "R@20", "allIn10", "sessR@10", "MRR")


@dataclass(slots=True)
class Scored:
    category: int
    conv: int
    metrics: dict[str, float]


def aggregate(rows: list[Scored]) -> dict[str, Any]:
    """Means overall, per category, and R@10 per conversation (a check on over-fitting)."""
    def mean(values: list[float]) -> float:
        return round(sum(values) / len(values), 4) if values else 0.0

    def block(subset: list[Scored]) -> dict[str, Any]:
        return {"n": len(subset), **{m: mean([r.metrics[m] for r in subset]) for m in METRICS}}

    return {"n": len(rows),
            "overall": {m: mean([r.metrics[m] for r in rows]) for m in METRICS},
            "by_category": {str(c): block([r for r in rows if r.category == c])
                            for c in CATEGORIES},
            "r10_by_conversation": [mean([r.metrics["R@10"] for r in rows if r.conv == i])
                                    for i in sorted({r.conv for r in rows})]}


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    idx = min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))
    return round(s[idx], 2)


# --------------------------------------------------------------------------- baselines

_TIME_QUESTION = re.compile(
    r"\b(when|what (year|month|date|day|time|week)|which (year|month|day|date)|"
    r"how long ago|since when|what period)\b", re.I)
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|"
           "december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_TIME_TURN = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|ago|recently|lately|earlier|"
    r"(last|next|this|past|coming) (week|weekend|month|year|summer|winter|spring|fall|"
    r"autumn|night|morning|evening|friday|saturday|sunday|monday|tuesday|wednesday|"
    r"thursday)|weekend|(mon|tues|wednes|thurs|fri|satur|sun)day|" + _MONTHS + r"|"
    r"(19|20)\d\d|\d{1,2}(st|nd|rd|th))\b", re.I)
TIME_BOOST = 0.5  # multiplies the fused score of a dated turn by 1.5 for when-questions


def is_time_question(text: str) -> bool:
    return bool(_TIME_QUESTION.search(text))


class Baselines:
    """BM25, dense and fused rankings over one conversation's turns."""

    def __init__(self, turns: list[Turn], vectors: Any) -> None:
        import bm25s
        import numpy as np

        self.turns = turns
        self.ids = [t.dia_id for t in turns]
        self.bm25 = bm25s.BM25()
        tokens = bm25s.tokenize([t.indexed for t in turns], lower=True, stopwords="en",
                                show_progress=False)
        self.bm25.index(tokens, show_progress=False)
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.dated = [bool(_TIME_TURN.search(t.content)) for t in turns]

    def rank_bm25(self, query: str) -> list[int]:
        import bm25s

        q = bm25s.tokenize([query], lower=True, stopwords="en", return_ids=False,
                           show_progress=False)
        if not q[0]:
            return list(range(len(self.turns)))
        docs, _ = self.bm25.retrieve(q, k=len(self.turns), show_progress=False)
        return [int(i) for i in docs[0]]

    def rank_dense(self, qvec: Any) -> list[int]:
        import numpy as np

        sims = self.vectors @ np.asarray(qvec, dtype=np.float32)
        return [int(i) for i in np.argsort(-sims, kind="stable")]

    @staticmethod
    def fuse(*rankings: list[int]) -> dict[int, float]:
        scores: dict[int, float] = defaultdict(float)
        for ranking in rankings:
            for rank, i in enumerate(ranking):
                scores[i] += 1.0 / (RRF_K + rank + 1)
        return scores

    def rankings(self, query: str, qvec: Any) -> dict[str, list[str]]:
        bm, dn = self.rank_bm25(query), self.rank_dense(qvec)
        fused = self.fuse(bm, dn)
        rrf = sorted(fused, key=lambda i: (-fused[i], i))
        out = {"bm25": bm, "dense": dn, "rrf": rrf}
        if is_time_question(query):
            boosted = {i: s * (1 + TIME_BOOST if self.dated[i] else 1.0)
                       for i, s in fused.items()}
            out["rrf+time"] = sorted(boosted, key=lambda i: (-boosted[i], i))
        else:
            out["rrf+time"] = rrf
        return {name: [self.ids[i] for i in r[:DEPTH]] for name, r in out.items()}


# --------------------------------------------------------------------------- graphmem


def open_service(data_dir: Path):  # type: ignore[no-untyped-def]
    from graphmem.bootstrap import build_service, settle
    from graphmem.settings import Settings

    service = build_service(Settings(data_dir=data_dir, embedder="minilm"))
    service.open()
    settle(service)  # as `graphmem serve` does at startup
    return service


def ingest(service, conv: Conversation) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """Every turn an episode, one batch per session; returns (new, duplicate) counts."""
    from graphmem.inputs import EpisodeIn

    new = dup = 0
    for s in conv.sessions:
        batch = [EpisodeIn(user_id=conv.user_id, occurred_at=s.date_time, content=t.content,
                           session_id=s.key, source_ref=t.dia_id, speaker=t.speaker,
                           source="locomo")
                 for t in s.turns]
        for res in service.add_episodes(batch):
            if res.duplicate:
                dup += 1
            else:
                new += 1
    return new, dup


def reference_time(conv: Conversation) -> datetime:
    from graphmem.timeparse import parse_timestamp

    return parse_timestamp(conv.sessions[-1].date_time)


def turns_of(items: Sequence[Any], k: int = DEPTH) -> list[str]:
    """Walk recall items in rank order, collecting source turns until ``k`` distinct."""
    out: list[str] = []
    seen: set[str] = set()
    for item in items:
        for src in item.sources:
            ref = src.source_ref
            if ref and ref not in seen:
                seen.add(ref)
                out.append(ref)
                if len(out) >= k:
                    return out
    return out


GRAPHMEM_LIMITS = (40, 100)  # try the first; ask for more when it yields too few turns


def graphmem_rank(recall: Callable[[Any], Any], user_id: str, query: str,
                  ref: datetime) -> tuple[list[str], float, int]:
    from graphmem.inputs import RecallIn

    started = time.perf_counter()
    turns: list[str] = []
    calls = 0
    for limit in GRAPHMEM_LIMITS:
        calls += 1
        res = recall(RecallIn(user_id=user_id, query=query, limit=limit, reference_time=ref))
        turns = turns_of(res.items)
        if len(turns) >= DEPTH or len(res.items) < limit:
            break
    return turns, (time.perf_counter() - started) * 1000, calls


# --------------------------------------------------------------------------- report


def markdown(results: dict[str, dict[str, Any]], latency: dict[str, dict[str, float]]) -> str:
    head = ["retriever", "R@5", "R@10", "R@20", "allIn10", "sessR@10", "MRR",
            *(f"R@10 c{c}" for c in CATEGORIES), "p50 ms", "p95 ms"]
    rows = []
    for name, agg in results.items():
        o = agg["overall"]
        lat = latency.get(name, {})
        rows.append([name, *(o[m] for m in METRICS),
                     *(agg["by_category"][str(c)]["R@10"] for c in CATEGORIES),
                     lat.get("p50_ms"), lat.get("p95_ms")])
    return table(head, rows)


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="bench/locomo.py", description=__doc__,
        epilog="Prints a Markdown table on stdout, progress on stderr, and writes JSON "
               "(machine, date, git commit, command, all numbers).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="only the first 2 conversations (default: all 10)")
    p.add_argument("--conversations", type=int, default=None, metavar="N",
                   help="only the first N conversations (overrides --quick)")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA,
                   help=f"locomo10.json (default: {DEFAULT_DATA})")
    p.add_argument("--json", type=Path, default=None,
                   help="where to write the JSON (default: bench/results/locomo.json, "
                        "or locomo_quick.json with --quick)")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="graphmem's data directory (default: a fresh temporary one). An "
                        "existing one is reused: re-sent episodes are no-ops, so its ingest "
                        "time then measures only the duplicate check")
    p.add_argument("--retrievers", default=",".join(ALL_RETRIEVERS),
                   help=f"comma-separated subset of {','.join(ALL_RETRIEVERS)}")
    p.add_argument("--ablate", action="store_true",
                   help="also run graphmem's recall with each stage changed "
                        "(graphmem.recall.ABLATIONS) and with episodes only, through the "
                        "Recaller directly (no access counting)")
    p.add_argument("--warmup", type=int, default=5,
                   help="recalls run before timing starts (default 5)")
    args = p.parse_args(argv)
    wanted = [r.strip() for r in args.retrievers.split(",") if r.strip()]
    unknown = sorted(set(wanted) - set(ALL_RETRIEVERS))
    if unknown:
        p.error(f"unknown retrievers: {', '.join(unknown)}")
    args.retrievers = wanted
    if args.ablate and "graphmem" not in wanted:
        p.error("--ablate needs the graphmem retriever")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    n_conv = args.conversations or (2 if args.quick else None)
    if not args.data.is_file():
        log(f"data file not found: {args.data}")
        return 2
    out_json = args.json or RESULTS / ("locomo_quick.json" if args.quick else "locomo.json")
    convs = load_locomo(args.data, n_conv)
    questions = [q for c in convs for q in c.questions]
    log(f"{len(convs)} conversations, {sum(len(c.turns) for c in convs)} turns, "
        f"{len(questions)} questions (categories 1-4)")

    from graphmem.embed import build_embedder

    run_graphmem = "graphmem" in args.retrievers
    tmp: tempfile.TemporaryDirectory[str] | None = None
    service = None
    embedder: Any
    ingest_info: dict[str, Any] = {}
    if run_graphmem:
        if args.data_dir is None:
            tmp = tempfile.TemporaryDirectory(prefix="graphmem-locomo-")
            data_dir = Path(tmp.name)
        else:
            data_dir = args.data_dir
        service = open_service(data_dir)
        embedder = service.embedder  # cached: the dense baseline reuses ingest's vectors
        embedder.embed(["warm up the model"])
        log(f"ingesting into {data_dir} ...")
        started = time.perf_counter()
        new = dup = 0
        per_conv = []
        for c in convs:
            t0 = time.perf_counter()
            n, d = ingest(service, c)
            new += n
            dup += d
            per_conv.append(round(time.perf_counter() - t0, 2))
            log(f"  {c.sample_id}: {len(c.turns)} turns in {per_conv[-1]:.1f}s")
        total = time.perf_counter() - started
        stats = [service.stats(c.user_id) for c in convs]
        ingest_info = {"seconds": round(total, 2), "episodes_new": new,
                       "episodes_duplicate": dup, "per_conversation_s": per_conv,
                       "episodes_per_s": round((new + dup) / total, 1) if total else None,
                       "entities": sum(s.entities for s in stats),
                       "relations": sum(s.relations for s in stats)}
        log(f"ingest: {new} new, {dup} duplicate episodes in {total:.1f}s "
            f"({ingest_info['entities']} entities, {ingest_info['relations']} relations)")
    else:
        embedder = build_embedder("minilm", cache_entries=20000)

    baselines_wanted = [b for b in BASELINES if b in args.retrievers]
    per_q: dict[str, list[Scored]] = defaultdict(list)
    lat: dict[str, list[float]] = defaultdict(list)
    retries: dict[str, int] = defaultdict(int)

    if baselines_wanted:
        log("baselines ...")
        for c in convs:
            base = Baselines(c.turns, embedder.embed([t.indexed for t in c.turns]))
            for q in c.questions:
                t0 = time.perf_counter()
                ranks = base.rankings(q.text, embedder.embed_one(q.text))
                lat["rrf+time"].append((time.perf_counter() - t0) * 1000)
                for name in baselines_wanted:
                    per_q[name].append(Scored(q.category, q.conv,
                                              score_ranking(ranks[name], q.evidence)))

    if run_graphmem:
        assert service is not None
        svc = service
        refs = {id(c): reference_time(c) for c in convs}

        def run(key: str, recall: Callable[[Any], Any]) -> None:
            log(f"{key} ...")
            for q in questions[: args.warmup]:
                graphmem_rank(recall, convs[q.conv].user_id, q.text, refs[id(convs[q.conv])])
            for i, q in enumerate(questions):
                c = convs[q.conv]
                ranked, ms, calls = graphmem_rank(recall, c.user_id, q.text, refs[id(c)])
                lat[key].append(ms)
                retries[key] += calls - 1
                per_q[key].append(Scored(q.category, q.conv, score_ranking(ranked, q.evidence)))
                if (i + 1) % 300 == 0:
                    log(f"  {i + 1}/{len(questions)}")

        run("graphmem", svc.recall)
        if args.ablate:
            from graphmem.model import MemoryKind
            from graphmem.recall import ABLATIONS, Recaller, RecallTuning

            variants: list[tuple[str, RecallTuning, list[MemoryKind] | None]] = [
                (f"graphmem {name}", tuning, None) for name, tuning in ABLATIONS.items()]
            variants.append(("graphmem episodes only", ABLATIONS["full"],
                             [MemoryKind.EPISODE]))
            for key, tuning, kinds in variants:
                recaller = Recaller(svc.store, svc.embedder.embed_one, None, tuning=tuning)

                def recall(rq: Any, r: Recaller = recaller,
                           kinds: list[MemoryKind] | None = kinds) -> Any:
                    if kinds is not None:
                        rq.kinds = kinds
                    return r.recall(rq.validated(svc.settings.max_content_chars),
                                    datetime.now(UTC))

                run(key, recall)
        svc.close()
    if tmp is not None:
        tmp.cleanup()

    order = [r for r in ALL_RETRIEVERS if r in per_q] + [r for r in per_q
                                                        if r not in ALL_RETRIEVERS]
    results = {name: aggregate(per_q[name]) for name in order}
    for name, n in retries.items():
        results[name]["recalls_needing_more_items"] = n
    latency = {name: {"p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95),
                      "mean_ms": round(statistics.fmean(v), 2)}
               for name, v in lat.items() if v}
    text = markdown(results, latency)
    print(text)
    report = header("locomo-evidence-recall")
    report.update({
        "data": {"path": str(args.data), "conversations": len(convs),
                 "turns": sum(len(c.turns) for c in convs), "questions": len(questions),
                 "by_category": {str(k): sum(1 for q in questions if q.category == k)
                                 for k in CATEGORIES}},
        "settings": {"depth": DEPTH, "rrf_k": RRF_K, "time_boost": TIME_BOOST,
                     "graphmem_limits": list(GRAPHMEM_LIMITS), "embedder": "minilm",
                     "store": "embedded", "warmup": args.warmup,
                     "latency_note": "graphmem: MemoryService.recall, query embedding "
                                     "included, summed over the calls that ask for more "
                                     "items; baselines (one figure, under rrf+time): query "
                                     "embedding + BM25 + dense + fusion, in memory"},
        "ingest": ingest_info,
        "results": results,
        "latency": latency,
        "table": text,
    })
    write_json(out_json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
