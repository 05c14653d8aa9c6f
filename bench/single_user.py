"""Long single-user assistant chats: graphmem's recall beside BM25 and dense retrieval.

The corpus comes from ``corpus.py`` (seeded; seed 1 is dev, where knobs may be chosen;
seed 2 is test, reported only): ``--corpus v2`` (default) has long requests with the facts
said in passing and paraphrased questions, ``--corpus v1`` the first, easier generator
(``single_user_seed<N>.json``; v2 writes ``single_user_v2_seed<N>.json``). The user's turns
are stored (v2's default; ``--turns all`` adds the assistant's answers, v1's default), each
sent the way a client sends chat lines: through GraphQL (``addEpisodes``, one call per session,
over the real ASGI app), content as written, ``role`` set, ``sourceRef`` = the message id,
no ``speaker``. Questions go to ``recall`` through GraphQL with ``referenceTime`` = a day
after the chat's last session and default settings otherwise (and once more with
``kinds: [EPISODE]``); items are mapped back to messages through their ``sourceRef``s, in
rank order, until 20 distinct messages are collected.

Baselines over the same messages (``_retrieval``), in memory: Okapi BM25 (bm25s; Latin
words lowercased without English stopwords, Chinese as characters and bigrams), dense
(the embedder graphmem uses: ``--embedder``, default graphmem's) and their RRF fusion.

Metrics, per language and per question kind (``current``, ``past``, ``when``, ``how_many``,
``contradiction``, ``multi_session``): message-level evidence recall@5/10/20 and MRR; for
``current`` questions about a changed fact, **update**: the current version is in the top
10 and ranked above every earlier version; for contradictions, **both sides**: both in the
top 10.

Examples::

    python bench/single_user.py --quick                 # 2 chats per language, seed 1
    python bench/single_user.py --seed 1                # dev: 10 chats per language
    python bench/single_user.py --seed 2                # test
    python bench/single_user.py --seed 1 --turns all    # the assistant's answers stored too
    python bench/single_user.py --corpus v1 --seed 1    # the first corpus, as measured before
    python bench/single_user.py --lang zh --retrievers bm25,dense
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import RESULTS, header, latency_summary, log, table, write_json  # noqa: E402
from _retrieval import (  # noqa: E402
    DEPTH,
    Baselines,
    evidence_recall,
    multilingual_tokens,
    refs_of,
)
from corpus import (  # noqa: E402
    DEFAULT_VERSION,
    DEV_SEED,
    KINDS,
    LANGS,
    TEST_SEED,
    VERSIONS,
    Chat,
    Question,
    generate,
)

RETRIEVERS = ("bm25", "dense", "rrf", "graphmem", "graphmem episodes")
LIMITS = (40, 100)  # recall limit tried first; more when it yields too few messages

ADD = """mutation($inputs: [EpisodeInput!]!) { addEpisodes(inputs: $inputs) { duplicate } }"""
RECALL = """query($input: RecallInput!) {
  recall(input: $input) { items { sources { sourceRef } } } }"""


class GraphQL:
    """The real app over a service, spoken to as a client does."""

    def __init__(self, service: Any) -> None:
        from starlette.testclient import TestClient

        from graphmem.api.app import create_app

        self.client = TestClient(create_app(service.settings, service))
        self.client.__enter__()

    def __call__(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        resp = self.client.post("/graphql", json={"query": query, "variables": variables})
        body = resp.json()
        if resp.status_code != 200 or body.get("errors"):
            raise RuntimeError(f"GraphQL error: {resp.status_code} {body.get('errors')}")
        return body["data"]

    def close(self) -> None:
        self.client.__exit__(None, None, None)


def ingest(gql: GraphQL, chat: Chat, user_turns_only: bool) -> int:
    sent = 0
    for s in chat.sessions:
        inputs = [{"userId": chat.user_id, "occurredAt": m.occurred_at, "sessionId": s.id,
                   "content": m.content, "sourceRef": m.id, "role": m.role,
                   "source": "chat", "kind": "message"}
                  for m in s.messages if m.role == "user" or not user_turns_only]
        if inputs:
            gql(ADD, {"inputs": inputs})
            sent += len(inputs)
    return sent


def graphmem_rank(gql: GraphQL, chat: Chat, q: Question,
                  kinds: list[str] | None, reference: bool = True) -> tuple[list[str], float]:
    started = time.perf_counter()
    refs: list[str] = []
    for limit in LIMITS:
        rq: dict[str, Any] = {"userId": chat.user_id, "query": q.text, "limit": limit}
        if reference:
            rq["referenceTime"] = chat.reference_time
        if kinds:
            rq["kinds"] = kinds
        items = gql(RECALL, {"input": rq})["recall"]["items"]
        refs = refs_of(items)
        if len(refs) >= DEPTH or len(items) < limit:
            break
    return refs, (time.perf_counter() - started) * 1000


# --------------------------------------------------------------------------- metrics


def score(q: Question, ranked: list[str]) -> dict[str, float | None]:
    out: dict[str, float | None] = dict(evidence_recall(ranked, q.evidence))
    top = ranked[:10]
    out["update"] = None
    if q.kind == "current" and q.old:
        new = q.new[0]
        out["update"] = 1.0 if new in top and all(
            o not in top or top.index(o) > top.index(new) for o in q.old) else 0.0
    out["both"] = (1.0 if set(q.evidence) <= set(top) else 0.0) \
        if q.kind == "contradiction" else None
    return out


def aggregate(rows: list[tuple[Any, dict[str, float | None]]],
              kinds: tuple[str, ...] = KINDS) -> dict[str, Any]:
    """Means over the questions ``rows`` (each with its ``.kind``), overall and per kind."""
    def mean(key: str, subset: list[tuple[Any, dict[str, float | None]]]) -> float | None:
        vals = [m[key] for _, m in subset if m[key] is not None]
        return round(statistics.fmean(v for v in vals if v is not None), 4) if vals else None

    by_kind = {k: [r for r in rows if r[0].kind == k] for k in kinds}
    return {"n": len(rows),
            **{m: mean(m, rows) for m in ("R@5", "R@10", "R@20", "allIn10", "MRR")},
            "update": mean("update", rows), "contradiction_both": mean("both", rows),
            "r10_by_kind": {k: mean("R@10", v) for k, v in by_kind.items()},
            "mrr_by_kind": {k: mean("MRR", v) for k, v in by_kind.items()},
            "n_by_kind": {k: len(v) for k, v in by_kind.items()}}


def markdown(results: dict[str, dict[str, Any]], kinds: tuple[str, ...] = KINDS) -> str:
    head = ["lang", "retriever", "n", "R@10", "R@5", "MRR",
            *(f"R@10 {k}" for k in kinds), "update", "contra both"]
    rows = [[lang, name, a["n"], a["R@10"], a["R@5"], a["MRR"],
             *(a["r10_by_kind"][k] for k in kinds), a["update"], a["contradiction_both"]]
            for lang, by_name in results.items() for name, a in by_name.items()]
    return table(head, rows)


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench/single_user.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", choices=VERSIONS, default=DEFAULT_VERSION,
                   help="v2 (default): long requests with facts said in passing; v1: the "
                        "first generator (what single_user_seed<N>.json measured)")
    p.add_argument("--seed", type=int, default=DEV_SEED,
                   help=f"corpus seed: {DEV_SEED} dev (default), {TEST_SEED} test")
    p.add_argument("--lang", choices=("en", "zh", "both"), default="both")
    p.add_argument("--users", type=int, default=10, help="chats per language (default 10)")
    p.add_argument("--quick", action="store_true", help="2 chats per language")
    p.add_argument("--turns", choices=("user", "all"), default=None,
                   help="which messages are stored and searched: the user's only, or the "
                        "assistant's answers too (default: user for v2, all for v1)")
    p.add_argument("--user-turns-only", action="store_true", help="same as --turns user")
    p.add_argument("--no-passages", action="store_true",
                   help="one vector per episode (GRAPHMEM_PASSAGES=false): recall without "
                        "the passages of long episodes")
    p.add_argument("--reopen", action="store_true",
                   help="close the store after ingesting and open it again before the "
                        "questions, as after a server restart (indexes rebuilt from disk)")
    p.add_argument("--no-reference-time", action="store_true",
                   help="ask recall without referenceTime, as a client that sends none: "
                        "the question's 'last year' is then read against the clock")
    p.add_argument("--retrievers", default=",".join(RETRIEVERS),
                   help=f"comma-separated subset of {','.join(RETRIEVERS)}")
    p.add_argument("--json", type=Path, default=None,
                   help="default: bench/results/single_user_seed<N>[_quick].json")
    p.add_argument("--embedder", choices=("minilm", "use", "e5", "minilm+use"), default=None,
                   help="graphmem's embedder, also the dense baseline's (default: "
                        "GRAPHMEM_EMBEDDER or graphmem's default)")
    args = p.parse_args(argv)
    args.retrievers = [r.strip() for r in args.retrievers.split(",") if r.strip()]
    unknown = sorted(set(args.retrievers) - set(RETRIEVERS))
    if unknown:
        p.error(f"unknown retrievers: {', '.join(unknown)}")
    if args.quick:
        args.users = 2
    if args.user_turns_only:
        args.turns = "user"
    args.user_turns_only = (args.turns or ("all" if args.corpus == "v1" else "user")) == "user"
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    langs = LANGS if args.lang == "both" else (args.lang,)
    corpus = generate(args.seed, langs, args.users, args.corpus)
    chats = {c.user_id: c for c in corpus.chats}
    log(f"seed {args.seed}: {len(corpus.chats)} chats, "
        f"{sum(len(c.messages) for c in corpus.chats)} messages, "
        f"{len(corpus.questions)} questions")
    stem = "single_user_seed" if args.corpus == "v1" else f"single_user_{args.corpus}_seed"
    out_json = args.json or RESULTS / (f"{stem}{args.seed}"
                                       f"{'_quick' if args.quick else ''}.json")

    from graphmem.bootstrap import build_service, settle
    from graphmem.embed import query_embedder
    from graphmem.settings import Settings

    tmp = tempfile.TemporaryDirectory(prefix="graphmem-single-user-")
    settings = Settings(data_dir=Path(tmp.name), passages=not args.no_passages, **(
        {"embedder": args.embedder} if args.embedder else {}))
    service = build_service(settings)
    service.open()
    settle(service)
    embedder = service.embedder
    embed_query = query_embedder(embedder)
    gql = GraphQL(service)
    per_q: dict[tuple[str, str], list[tuple[Question, dict[str, float | None]]]] = \
        defaultdict(list)
    lat: dict[str, list[float]] = defaultdict(list)
    ingest_info: dict[str, Any] = {}
    try:
        wanted_gm = [r for r in args.retrievers if r.startswith("graphmem")]
        if wanted_gm:
            started = time.perf_counter()
            sent = sum(ingest(gql, c, args.user_turns_only) for c in corpus.chats)
            secs = time.perf_counter() - started
            stats = [service.stats(u) for u in chats]
            ingest_info = {"episodes": sent, "seconds": round(secs, 1),
                           "relations": sum(s.relations for s in stats),
                           "entities": sum(s.entities for s in stats)}
            log(f"ingest through GraphQL: {sent} episodes in {secs:.0f}s, "
                f"{ingest_info['relations']} relations")
            if args.reopen:  # the questions meet the store as a restarted server does
                gql.close()
                service.close()
                service = build_service(settings)
                service.open()
                settle(service)
                gql = GraphQL(service)
                log("store closed and opened again")
        for chat in corpus.chats:
            qs = [q for q in corpus.questions if q.user_id == chat.user_id]
            msgs = [m for m in chat.messages if m.role == "user" or not args.user_turns_only]
            texts = [m.content for m in msgs]
            base = Baselines([m.id for m in msgs], texts, embedder.embed(texts),
                             tokenizer=multilingual_tokens)
            for q in qs:
                ranks = base.rankings(q.text, embed_query(q.text))
                for name in ("bm25", "dense", "rrf"):
                    if name in args.retrievers:
                        per_q[(chat.lang, name)].append((q, score(q, ranks[name])))
                for name in wanted_gm:
                    kinds = ["EPISODE"] if name == "graphmem episodes" else None
                    ranked, ms = graphmem_rank(gql, chat, q, kinds,
                                               reference=not args.no_reference_time)
                    lat[name].append(ms)
                    per_q[(chat.lang, name)].append((q, score(q, ranked)))
            log(f"  {chat.user_id}: {len(qs)} questions")
    finally:
        gql.close()
        service.close()
        tmp.cleanup()

    results: dict[str, dict[str, Any]] = {}
    for lang in langs:
        results[lang] = {name: aggregate(per_q[(lang, name)])
                         for name in args.retrievers if per_q[(lang, name)]}
    text = markdown(results)
    print(text)
    report = header("single-user-evidence-recall")
    report.update({
        "corpus": {"version": args.corpus, "seed": args.seed,
                   "split": {DEV_SEED: "dev", TEST_SEED: "test"}.get(args.seed, "other"),
                   "langs": list(langs), "users_per_lang": args.users,
                   "messages": sum(len(c.messages) for c in corpus.chats),
                   "user_turns_only": args.user_turns_only,
                   "questions": len(corpus.questions)},
        "settings": {"embedder": settings.embedder, "embedding_model": embedder.model_id,
                     "passages": settings.passages,
                     "store": "embedded", "transport": "GraphQL (ASGI)",
                     "depth": DEPTH, "limits": list(LIMITS),
                     "reference_time": not args.no_reference_time,
                     "reopened": args.reopen},
        "ingest": ingest_info,
        "results": results,
        "latency_graphql_ms": {k: latency_summary(v) for k, v in lat.items()},
        "table": text,
    })
    write_json(out_json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
