"""Speed and scale: ingest throughput, warm recall latency, memory, vector-index recall.

For each size N (``--quick``: 1k and 10k relations; full: also 100k) a fresh embedded store
gets N relations for one user, plus three smaller tenants beside it: N/20, N/100 and 20
relations (so every read has to stay inside its tenant, and a small tenant's recall can be
seen beside the big one's). Relations are written through ``MemoryService.add_relations``
in batches of 500: mostly non-exclusive facts between a pool of named entities (a fifth of
them about the user, who becomes a hub, as in a personal memory), and a few exclusive
preferences that change over time (so supersession chains exist). Embedder: MiniLM (the
default, behind the LRU cache bootstrap puts in front of it) or ``--embedder hashing`` to
take embedding cost out of the picture.

Measured per size:

* ingest        relations/s over all batches, and the share of that time spent embedding;
* recall        p50/p95 of ``MemoryService.recall`` over ~100 distinct warm queries (query
                embedding included), with the default kinds and with ``kinds=[RELATION]``,
                and where the time goes (store calls timed one by one);
* memory        peak RSS (VmHWM) of this process and of the embedded FalkorDB server;
* vector index  that graphmem's vector search goes through ``db.idx.vector.queryNodes``
                (the query plan), and its recall@10 / recall@40 against exact cosine over
                the tenant's vectors, for the big tenant and for a small one;
* every tenant  recall p50/p95 over its own questions, and its vector search beside the
                big tenant: the share of its questions (and of 12 general questions such as
                "Anything regarding pets?") that get any vector hit, and recall@10 against
                exact cosine over its own relations;
* layout        ``--layout tenant`` (default: one graph per user, as the store is now),
                ``shared`` (every user in one graph with a shared vector index, as before
                tenant graphs; emulated here) or ``both``;
* peer          graphiti-core 0.28.2 over the same relations (same texts, same vectors, same
                ``valid_at``), searched with ``EDGE_HYBRID_SEARCH_RRF`` (full text + a cosine
                scan over every fact) with the same queries; latency ratio in the same run.

Examples::

    python bench/scale.py --quick                 # 1k and 10k
    python bench/scale.py                         # 1k, 10k and 100k (long: see stderr)
    python bench/scale.py --sizes 5000 --embedder hashing --no-peer
    python bench/scale.py --quick --embedder hashing --no-peer --layout both
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _graphiti_peer as peer  # noqa: E402
from _common import (  # noqa: E402
    RESULTS,
    header,
    latency_summary,
    log,
    mb,
    proc_status_kb,
    ratio,
    server_pid,
    table,
    write_json,
)

from graphmem.bootstrap import settle  # noqa: E402
from graphmem.embed import CachedEmbedder, Embedder, build_embedder  # noqa: E402
from graphmem.inputs import RecallIn, RelationIn  # noqa: E402
from graphmem.model import MemoryKind  # noqa: E402
from graphmem.service import MemoryService  # noqa: E402
from graphmem.settings import Settings  # noqa: E402
from graphmem.store.falkor import FalkorStore  # noqa: E402

BATCH = 500
MAIN_USER = "main"
OTHER_USERS = ("tenant1", "tenant2", "tiny")


def tenant_sizes(n: int) -> dict[str, int]:
    """The tenants beside the big one, by size: N/20, N/100 and 20 relations."""
    return {"tenant1": max(100, n // 20), "tenant2": max(50, n // 100), "tiny": 20}


# Questions that name nothing in particular: every tenant's vector search should find
# something for them (beside a big tenant in a shared index, a small one got nothing).
GENERAL_QUESTIONS = (
    "Anything regarding pets?", "What happened recently?", "Tell me about work.",
    "Any travel plans?", "What do I like?", "Who are my friends?", "What did I buy?",
    "Anything about food?", "What am I learning?", "Which places did I visit?",
    "What should I remember?", "Any news?")

WORDS_A = ("amber", "quiet", "rapid", "silver", "northern", "hidden", "golden", "crimson",
           "gentle", "ancient", "bright", "frozen", "wild", "hollow", "iron", "lucky",
           "misty", "noble", "orange", "proud", "royal", "salty", "tidal", "urban", "velvet",
           "windy", "young", "zesty", "bold", "calm", "dusty", "eager", "fancy", "grand",
           "humble", "icy", "jolly", "keen", "lunar", "mellow")
WORDS_B = ("falcon", "harbor", "meadow", "canyon", "lantern", "orchard", "violin", "glacier",
           "compass", "beacon", "thistle", "quartz", "pepper", "saddle", "marble", "willow",
           "anchor", "badger", "cedar", "dragon", "ember", "fjord", "garnet", "heron",
           "island", "jasmine", "kettle", "lotus", "maple", "nectar", "otter", "pebble",
           "quill", "raven", "summit", "tundra", "umber", "valley", "walnut", "yarrow",
           "zephyr", "bramble", "cobalt", "delta", "elm", "fern", "grove", "hazel", "indigo",
           "juniper")
KINDS = ("Labs", "Café", "Studio", "Society", "Project", "Park", "Press", "Club")
PREDICATES = ("uses", "likes", "visited", "works with", "owns", "reads", "recommends",
              "mentioned", "is learning", "collaborates with", "bought", "attended",
              "wrote about", "follows", "met")
PREF_TOPICS = ("coffee shop", "hiking trail", "podcast", "board game", "news site",
               "running shoes", "bakery", "text editor", "keyboard", "airline", "hotel chain",
               "music app", "camera", "cloud provider", "bank")
QUESTION = {
    "uses": "What does {s} use?", "likes": "What does {s} like?",
    "visited": "Where did {s} go?", "works with": "Who does {s} work with?",
    "owns": "What does {s} own?", "reads": "What does {s} read?",
    "recommends": "What does {s} recommend?", "mentioned": "What did {s} talk about?",
    "is learning": "What is {s} learning?", "collaborates with": "Who is {s} collaborating with?",
    "bought": "What did {s} buy?", "attended": "Which events did {s} attend?",
    "wrote about": "What did {s} write about?", "follows": "Who does {s} follow?",
    "met": "Who did {s} meet?",
}


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, slots=True)
class Rel:
    subject: str
    predicate: str
    object: str
    valid_from: datetime
    exclusive: bool = False
    category: str | None = None


def entity_names(rng: random.Random, n: int) -> list[str]:
    names = [f"{a.title()} {b.title()}" for a in WORDS_A for b in WORDS_B]
    names += [f"{a.title()} {b.title()} {k}" for a in WORDS_A for b in WORDS_B for k in KINDS]
    rng.shuffle(names)
    return names[:n]


def generate(rng: random.Random, n: int, owner: str) -> list[Rel]:
    """n distinct relations: a fifth about ``owner``; 5 % changing exclusive preferences."""
    pool = entity_names(rng, max(50, n // 5))
    start = datetime(2015, 1, 1, tzinfo=UTC)
    span_days = 11 * 365
    out: list[Rel] = []
    seen: set[tuple[str, str, str]] = set()
    while len(out) < n:
        when = start + timedelta(days=rng.randrange(span_days))
        r = rng.random()
        if r < 0.05:
            topic = rng.choice(PREF_TOPICS)
            out.append(Rel(owner, "prefers", rng.choice(pool), when, True, topic))
            continue
        subj = owner if r < 0.25 else pool[int(rng.paretovariate(1.2)) % len(pool)]
        pred = rng.choice(PREDICATES)
        obj = rng.choice(pool)
        if obj == subj or (subj, pred, obj) in seen:
            continue
        seen.add((subj, pred, obj))
        out.append(Rel(subj, pred, obj, when))
    rng.shuffle(out)
    return out


def questions(rng: random.Random, rels: list[Rel], n: int, owner: str) -> list[str]:
    qs: list[str] = []
    seen: set[str] = set()
    candidates = [r for r in rels if not r.exclusive]
    topics = list(PREF_TOPICS)
    tries = 0
    while len(qs) < n and tries < n * 50:
        tries += 1
        r = rng.choice(candidates)
        kind = rng.random()
        if kind < 0.6:
            q = QUESTION[r.predicate].format(s=r.subject)
        elif kind < 0.85:
            q = f"Who {r.predicate} {r.object}?"
        else:
            q = f"Which {rng.choice(topics)} does {owner} prefer?"
        if q not in seen:
            seen.add(q)
            qs.append(q)
    return qs


# --------------------------------------------------------------------------- timing proxies


class Timed:
    """Wraps an object; each call of a public method adds its duration to ``spent``."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.spent: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def reset(self) -> None:
        self.spent.clear()
        self.calls.clear()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if name.startswith("_") or not callable(value):
            return value

        def timed(*args: Any, **kwargs: Any) -> Any:
            if name == "embed" and args:
                self.calls["embed_texts"] += len(args[0])
            t0 = time.perf_counter()
            try:
                return value(*args, **kwargs)
            finally:
                self.spent[name] += time.perf_counter() - t0
                self.calls[name] += 1

        return timed


def reset_peak_rss() -> bool:
    """Reset this process's VmHWM (Linux: writing 5 to clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


class SharedGraphStore(FalkorStore):
    """The layout before tenant graphs: every user's nodes in one graph (``graphmem``),
    one vector index for all, each user's share kept by a ``userId`` filter."""

    def _tenant_for_read(self, user_id: str) -> Any:
        if self._graph_name not in self._ready:
            return None
        return self._handle(self._graph_name)

    def _tenant_for_write(self, user_id: str) -> str:
        if self._graph_name not in self._ready:
            self._create_indexes(self._handle(self._graph_name))
            self._ready.add(self._graph_name)
        return self._graph_name

    def _migrate(self) -> None:  # this layout is the one written
        pass


def graph_of(store: FalkorStore, user: str) -> Any:
    graph = store._tenant_for_read(user)
    assert graph is not None, user
    return graph


# --------------------------------------------------------------------------- one size


def ingest(svc: MemoryService, rels: list[Rel], user: str, label: str) -> float:
    started = time.perf_counter()
    last = started
    for i in range(0, len(rels), BATCH):
        svc.add_relations([RelationIn(user_id=user, subject=r.subject, predicate=r.predicate,
                                      object=r.object, valid_from=r.valid_from,
                                      exclusive=r.exclusive or None, category=r.category)
                           for r in rels[i:i + BATCH]])
        now = time.perf_counter()
        if now - last > 15 or i + BATCH >= len(rels):
            done = min(i + BATCH, len(rels))
            log(f"    {label}: {done}/{len(rels)} relations, {now - started:.0f} s, "
                f"{done / (now - started):.0f}/s")
            last = now
    return time.perf_counter() - started


def time_recalls(svc: MemoryService, user: str, qs: list[str], warmup: int,
                 kinds: list[MemoryKind] | None) -> list[float]:
    for q in qs[:warmup]:
        svc.recall(RecallIn(user_id=user, query=q + " (warm-up)", limit=10, kinds=kinds))
    took = []
    for q in qs:
        t0 = time.perf_counter()
        svc.recall(RecallIn(user_id=user, query=q, limit=10, kinds=kinds))
        took.append((time.perf_counter() - t0) * 1000)
    return took


def index_recall(store: FalkorStore, embedder: Embedder, user: str, qs: list[str],
                 n: int) -> dict[str, Any]:
    """recall@k of graphmem's vector search (index + tenant filter) vs exact cosine."""
    exact_q = ("MATCH (n:Relation {userId: $userId}) "
               "WITH n, vec.cosineDistance(n.embedding, vecf32($vector)) AS d "
               "RETURN n.id ORDER BY d ASC, n.id LIMIT $k")
    out: dict[str, Any] = {}
    for k in (10, 40):
        hits = total = 0
        idx_ms: list[float] = []
        exact_ms: list[float] = []
        for q in qs[:n]:
            vec = embedder.embed_one(q)
            t0 = time.perf_counter()
            got = {h.id for h in store.vector_search("Relation", user, vec, k)}
            idx_ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            want = {r[0] for r in store._query(exact_q, {"userId": user, "vector": vec, "k": k})}
            exact_ms.append((time.perf_counter() - t0) * 1000)
            hits += len(got & want)
            total += len(want)
        out[f"recall@{k}"] = ratio(hits, total)
        out[f"index_p50_ms@{k}"] = latency_summary(idx_ms)["p50_ms"]
        out[f"exact_scan_p50_ms@{k}"] = latency_summary(exact_ms)["p50_ms"]
    return out


def vector_plan(store: FalkorStore) -> str:
    text = store._q.get("vector_search", label="Relation")
    plan = graph_of(store, MAIN_USER).explain(
        text, {"k": 10, "fetch": 64, "vector": [0.0] * 384, "userId": MAIN_USER})
    return str(plan).strip()


def tenant_vector(store: FalkorStore, embedder: Embedder, user: str, qs: list[str],
                  k: int = 10) -> dict[str, Any]:
    """How a tenant's vector search fares: questions with any hit, recall@k vs exact."""
    exact_q = ("MATCH (n:Relation {userId: $userId}) "
               "WITH n, vec.cosineDistance(n.embedding, vecf32($vector)) AS d "
               "RETURN n.id ORDER BY d ASC, n.id LIMIT $k")
    out: dict[str, Any] = {}
    for name, questions_ in (("own", qs), ("general", list(GENERAL_QUESTIONS))):
        with_hits = found = total = 0
        ms: list[float] = []
        for q in questions_:
            vec = embedder.embed_one(q)
            t0 = time.perf_counter()
            got = {h.id for h in store.vector_search("Relation", user, vec, k)}
            ms.append((time.perf_counter() - t0) * 1000)
            want = {r[0] for r in store._query(exact_q, {"userId": user, "vector": vec,
                                                         "k": k})}
            with_hits += bool(got)
            found += len(got & want)
            total += len(want)
        out[name] = {"questions": len(questions_), "hit_rate": ratio(with_hits, len(questions_)),
                     f"recall@{k}": ratio(found, total),
                     "vector_p50_ms": latency_summary(ms)["p50_ms"]}
    return out


def read_back(store: FalkorStore, user: str) -> tuple[list[peer.PeerNode], list[peer.PeerEdge],
                                                      dict[str, list[float]]]:
    """The user's entities and current relations as graphiti nodes/edges (vectors reused)."""
    nodes: list[peer.PeerNode] = []
    vectors: dict[str, list[float]] = {}
    page = 2000
    skip = 0
    while True:
        rows = store._query("MATCH (n:Entity {userId: $userId}) RETURN n.id, n.name, "
                            "n.embedding ORDER BY n.id SKIP $s LIMIT $l",
                            {"userId": user, "s": skip, "l": page})
        for eid, name, vec in rows:
            nodes.append(peer.PeerNode(eid, name, user))
            vectors[eid] = vec
        if len(rows) < page:
            break
        skip += page
    edges: list[peer.PeerEdge] = []
    skip = 0
    while True:
        rows = store._query(
            "MATCH (n:Relation {userId: $userId}) WHERE n.expiredAt IS NULL "
            "RETURN n.id, n.subjectId, n.objectId, n.predicate, n.statement, n.validFrom, "
            "n.validUntil, n.recordedAt, n.embedding ORDER BY n.id SKIP $s LIMIT $l",
            {"userId": user, "s": skip, "l": page})
        for rid, sid, oid, pred, stmt, vf, vu, rec, vec in rows:
            edges.append(peer.PeerEdge(
                key=rid, group=user, source=sid, target=oid,
                name=pred.upper().replace(" ", "_"), fact=stmt,
                created_at=_dt(rec), valid_at=_dt(vf),
                invalid_at=_dt(vu) if vu is not None else None,
                expired_at=_dt(rec) if vu is not None else None, embedding=vec))
        if len(rows) < page:
            break
        skip += page
    return nodes, edges, vectors


def _dt(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def run_size(n: int, args: argparse.Namespace, embedder: Embedder,
             persist: Callable[[dict[str, Any]], None],
             earlier: dict[int, dict[str, Any]], layout: str = "tenant") -> dict[str, Any]:
    rng = random.Random(args.seed * 1_000_003 + n)
    t_size = time.perf_counter()
    main_rels = generate(rng, n, "Dana Whitfield")
    owners = {u: f"{u.title()} Owner" for u in OTHER_USERS}
    others = {u: generate(rng, size, owners[u]) for u, size in tenant_sizes(n).items()}
    qs = questions(rng, main_rels, args.queries, "Dana Whitfield")
    small_qs = questions(rng, others[OTHER_USERS[0]], args.queries, f"{OTHER_USERS[0].title()}")
    tenant_qs = {MAIN_USER: qs[:args.tenant_queries],
                 **{u: questions(rng, r, args.tenant_queries, owners[u])
                    for u, r in others.items()}}
    res: dict[str, Any] = {"layout": layout, "relations": n,
                           "other_users": {u: len(r) for u, r in others.items()},
                           "queries": len(qs)}
    # The service gets the embedder the way bootstrap wires it (an LRU cache in front of the
    # model, so a batch's texts are embedded ahead in one call); the model itself is timed.
    timed_embedder = Timed(embedder)
    service_embedder = CachedEmbedder(timed_embedder,  # type: ignore[arg-type]
                                      max_entries=Settings().embedding_cache)
    with tempfile.TemporaryDirectory(prefix=f"graphmem-scale-{n}-") as tmp:
        store = (SharedGraphStore if layout == "shared" else FalkorStore)(Path(tmp))
        timed_store = Timed(store)
        settings = Settings(data_dir=Path(tmp), embedder=args.embedder)
        svc = MemoryService(settings, timed_store, service_embedder)  # type: ignore[arg-type]
        svc.open()
        settle(svc)  # as `graphmem serve` does at startup
        pid = server_pid(store._db, Path(tmp))
        reset_peak_rss()
        try:
            log(f"  [{n}] ingest ...")
            secs_other = sum(ingest(svc, r, u, u) for u, r in others.items())
            timed_embedder.reset()
            timed_store.reset()
            secs = ingest(svc, main_rels, MAIN_USER, MAIN_USER)
            embed_s = sum(timed_embedder.spent.values())
            store_s = sum(timed_store.spent.values())
            counts = {lbl: store.count(lbl, MAIN_USER)[0] for lbl in ("Relation", "Entity")}
            res["ingest"] = {
                "seconds": round(secs, 1), "relations_per_s": round(n / secs, 1),
                "embedding_share": round(embed_s / secs, 3),
                "store_share": round(store_s / secs, 3),
                "store_calls_per_relation": round(sum(timed_store.calls.values()) / n, 2),
                "embed_calls": dict(timed_embedder.calls),
                "texts_per_embed_call": _texts_per_call(timed_embedder, n),
                "store_seconds_by_call": {k: round(v, 2) for k, v in sorted(
                    timed_store.spent.items(), key=lambda kv: -kv[1])},
                "other_users_seconds": round(secs_other, 1),
                "stored": counts,
            }
            log(f"  [{n}] ingest {secs:.1f} s ({n / secs:.0f} relations/s; embedding "
                f"{embed_s / secs:.0%}, store {store_s / secs:.0%}); stored {counts}")
            res["recall"] = {}
            for label, kinds in (("default_kinds", None), ("relations_only",
                                                           [MemoryKind.RELATION])):
                timed_store.reset()
                timed_embedder.reset()
                # both passes ask the same questions: each must embed them afresh
                with service_embedder._lock:
                    service_embedder._cache.clear()
                took = time_recalls(svc, MAIN_USER, qs, args.warmup, kinds)
                per_q = len(qs) + args.warmup
                res["recall"][label] = {
                    **latency_summary(took),
                    "ms_per_query_by_call": {k: round(v * 1000 / per_q, 2) for k, v in sorted(
                        {**timed_store.spent,
                         "embed": sum(timed_embedder.spent.values())}.items(),
                        key=lambda kv: -kv[1])},
                    "calls_per_query": {k: round(v / per_q, 2)
                                        for k, v in sorted(timed_store.calls.items())},
                }
                s = res["recall"][label]
                log(f"  [{n}] recall {label}: p50 {s['p50_ms']} ms, p95 {s['p95_ms']} ms")
            t0 = time.perf_counter()
            for _ in range(20):
                store.count("Relation", MAIN_USER)
            res["count_relations_ms"] = round((time.perf_counter() - t0) * 1000 / 20, 2)
            log(f"  [{n}] vector index recall ...")
            res["vector_index"] = {
                "plan": vector_plan(store),
                "uses_vector_index": "db.idx.vector.queryNodes" in vector_plan(store)
                or "ProcedureCall" in vector_plan(store),
                "big_tenant": index_recall(store, embedder, MAIN_USER, qs, args.recall_sample),
                "small_tenant": {
                    "relations": len(others[OTHER_USERS[0]]),
                    **index_recall(store, embedder, OTHER_USERS[0], small_qs,
                                   args.recall_sample)},
            }
            log(f"  [{n}] every tenant ...")
            res["tenants"] = {}
            for user in (MAIN_USER, *OTHER_USERS):
                took = time_recalls(svc, user, tenant_qs[user], args.warmup, None)
                res["tenants"][user] = {
                    "relations": n if user == MAIN_USER else len(others[user]),
                    "recall": latency_summary(took),
                    "vector": tenant_vector(store, embedder, user, tenant_qs[user])}
                t = res["tenants"][user]
                log(f"  [{n}] {user}: recall p50 {t['recall']['p50_ms']} ms, p95 "
                    f"{t['recall']['p95_ms']} ms; vector hit rate own "
                    f"{t['vector']['own']['hit_rate']}, general "
                    f"{t['vector']['general']['hit_rate']}")
            res["memory"] = {
                "process_peak_rss_mb": mb(proc_status_kb(_self_pid(), "VmHWM")),
                "falkordb_server_rss_mb": mb(proc_status_kb(pid, "VmRSS")) if pid else None,
                "falkordb_server_peak_rss_mb": mb(proc_status_kb(pid, "VmHWM")) if pid else None,
                "falkordb_pid_found": pid is not None,
            }
            if not args.no_peer:
                persist(res)  # graphmem's numbers survive a peer that hangs or is stopped
                def progress(partial: dict[str, Any]) -> None:
                    persist({**res, "graphiti": partial})

                res["graphiti"] = run_peer(store, embedder, qs, args, earlier, n, progress)
        finally:
            svc.close()
    gc = res.get("graphiti", {}).get("search_cosine_only", {}).get("p50_ms")
    if res["recall"]["relations_only"]["p50_ms"] and gc:
        res["latency_ratio_p50_graphmem_relations_over_graphiti_cosine_only"] = _ratio(
            res["recall"]["relations_only"]["p50_ms"], gc)
    gm = res["recall"]["relations_only"]["p50_ms"]
    gp = res.get("graphiti", {}).get("search", {}).get("p50_ms")
    if gm and gp:
        res["latency_ratio_p50_graphmem_relations_over_graphiti"] = _ratio(gm, gp)
        res["latency_ratio_p50_graphmem_default_over_graphiti"] = _ratio(
            res["recall"]["default_kinds"]["p50_ms"], gp)
    res["size_seconds"] = round(time.perf_counter() - t_size, 1)
    log(f"  [{n}] done in {res['size_seconds']} s")
    return res


def _ratio(a: float, b: float) -> float:
    """a / b to three significant digits (a ratio of 0.0003 must not print as 0.0)."""
    return float(f"{a / b:.3g}")


def _timed_search(p: peer.GraphitiPeer, q: str, methods: str) -> tuple[float, str | None]:
    t0 = time.perf_counter()
    try:
        p.search(MAIN_USER, q, limit=10, methods=methods)
        err = None
    except Exception as e:  # FalkorDB's query timeout, or a dropped connection
        err = f"{type(e).__name__}: {str(e)[:120]}"
    return (time.perf_counter() - t0) * 1000, err


def _peer_series(p: peer.GraphitiPeer, qs: list[str], methods: str,
                 budget_s: float, at_least: int) -> dict[str, Any]:
    """Latencies of one search mode; failed (timed-out) queries count at the time they took."""
    took: list[float] = []
    errors: list[str] = []
    started = time.perf_counter()
    for q in qs:
        ms, err = _timed_search(p, q, methods)
        took.append(ms)
        if err:
            errors.append(err)
        if time.perf_counter() - started > budget_s and len(took) >= at_least:
            log(f"  graphiti-core {methods}: time budget reached after {len(took)} queries")
            break
    return {**latency_summary(took), "errors": len(errors), "error_sample": errors[:1],
            "stopped_by_budget": len(took) < len(qs)}


def _texts_per_call(timed: Timed, n: int) -> float | None:
    calls = timed.calls.get("embed", 0)
    return round(timed.calls.get("embed_texts", 0) / calls, 2) if calls else None


def _self_pid() -> int:
    import os

    return os.getpid()


def projected_ms(earlier: dict[int, dict[str, Any]], n: int, mode: str) -> float | None:
    """A search mode's p50 at ``n`` relations, scaled linearly from the largest smaller size
    that ran it (graphiti's full-text path grew faster than linearly: 1k -> 10k took 127x)."""
    ran = [(m, r["graphiti"][mode]["p50_ms"]) for m, r in earlier.items()
           if m < n and (r.get("graphiti") or {}).get(mode, {}).get("p50_ms")]
    if not ran:
        return None
    m, p50 = max(ran)
    return p50 * n / m


def run_peer(store: FalkorStore, embedder: Embedder, qs: list[str],
             args: argparse.Namespace, earlier: dict[int, dict[str, Any]], n: int,
             progress: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    ok, info = peer.load()
    if not ok:
        log(f"  graphiti-core peer skipped: {info}")
        return {"skipped": True, "reason": info}
    out: dict[str, Any] = {"skipped": False, "version": info}
    p = peer.GraphitiPeer(embedder=embedder,
                          query_timeout_ms=int(args.peer_timeout * 1000) or None)
    try:
        p.start()
        reset_peak_rss()
        t0 = time.perf_counter()
        total_edges = 0
        for user in (MAIN_USER, *OTHER_USERS):
            nodes, edges, _ = read_back(store, user)
            total_edges += len(edges)
            # entity vectors are re-embedded by the peer from names (a small cost)
            p.add(nodes, edges, created_at=datetime.now(UTC))
        out["build_seconds"] = round(time.perf_counter() - t0, 1)
        out["edges"] = total_edges
        log(f"  graphiti-core: {total_edges} edges written in {out['build_seconds']} s")
        # The cosine scan first: it is fast at every size. graphiti's full-text half
        # re-finds each hit by uuid over all edges (FalkorDB path), which grows with
        # hits x edges; a query cannot be interrupted, so slow modes are cut by a budget
        # checked between queries (at least 3 queries are always timed).
        for q in qs[:args.warmup]:
            _timed_search(p, q + " (warm-up)", "cosine")
        out["search_cosine_only"] = _peer_series(p, qs, "cosine", args.peer_budget / 2, 10)
        progress(out)
        # A mode whose three queries would, scaled from a smaller size, take more than twice
        # its budget is not started: one query cannot be cut short and may run for an hour.
        for key, mode, budget in (("search", "hybrid", args.peer_budget),
                                  ("search_bm25_only", "bm25", args.peer_budget / 2)):
            guess = projected_ms(earlier, n, key)
            if guess is not None and 3 * guess > 2 * budget * 1000:
                out[key] = {"skipped": True, "projected_p50_ms": round(guess),
                            "reason": f"projected {guess / 1000:.0f} s per query (linear "
                                      f"from a smaller size) x 3 queries > 2 x the "
                                      f"{budget:.0f} s budget"}
                log(f"  graphiti-core {mode}: skipped, {out[key]['reason']}")
                continue
            if mode == "hybrid":
                first_ms, _ = _timed_search(p, qs[0] + " (warm-up)", "hybrid")
                out["hybrid_warmup_ms"] = round(first_ms, 1)
            out[key] = {**({"recipe": "EDGE_HYBRID_SEARCH_RRF"} if mode == "hybrid" else {}),
                        **_peer_series(p, qs, mode, budget, 3)}
            progress(out)
        rss, hwm = p.server_rss_kb()
        out["falkordb_server_peak_rss_mb"] = mb(hwm)
        if not out["search"].get("skipped"):
            log(f"  graphiti-core search: p50 {out['search']['p50_ms']} ms, "
                f"p95 {out['search']['p95_ms']} ms")
    finally:
        p.close()
    return out


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1k and 10k relations")
    ap.add_argument("--sizes", type=str, default=None,
                    help="comma-separated sizes (default 1000,10000,100000; quick 1000,10000)")
    ap.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--recall-sample", type=int, default=50,
                    help="queries used for the vector index recall check")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--no-peer", action="store_true", help="skip graphiti-core")
    ap.add_argument("--peer-budget", type=float, default=300.0,
                    help="seconds of graphiti searches per size before stopping (at least "
                         "10 queries are always timed)")
    ap.add_argument("--peer-timeout", type=float, default=0.0,
                    help="FalkorDB TIMEOUT_DEFAULT (s) for the peer's server; 0: none (the "
                         "setting did not stop graphiti's slow full-text queries here)")
    ap.add_argument("--layout", choices=("tenant", "shared", "both"), default="tenant",
                    help="one graph per user (the store's), one shared graph (the layout "
                         "before it, emulated), or both in turn")
    ap.add_argument("--tenant-queries", type=int, default=30,
                    help="questions per tenant for the every-tenant recall and vector figures")
    ap.add_argument("--json", type=Path, default=RESULTS / "scale.json",
                    help="where to write the JSON (default: bench/results/scale.json)")
    args = ap.parse_args(argv)
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    else:
        sizes = [1000, 10000] if args.quick else [1000, 10000, 100000]

    # The model without a cache; each size wraps it in a fresh cache as bootstrap does. The
    # queries are distinct, so every recall still embeds its query.
    embedder: Embedder = build_embedder(args.embedder)
    report = header("scale")
    report["config"] = {"sizes": sizes, "embedder": args.embedder, "batch": BATCH,
                        "queries": args.queries, "warmup": args.warmup,
                        "other_users": list(OTHER_USERS), "seed": args.seed,
                        "layout": args.layout, "tenant_queries": args.tenant_queries,
                        "quick": args.quick, "peer": not args.no_peer,
                        "peer_budget_s": args.peer_budget,
                        "peer_query_timeout_s": args.peer_timeout}
    ok, info = peer.load()
    if not ok and not args.no_peer:
        log(f"graphiti-core peer skipped: {info}")
    layouts = ["tenant", "shared"] if args.layout == "both" else [args.layout]
    for layout in layouts:
        # the first layout's results are "sizes"; the shared one's beside it, peer-less
        key = "sizes" if layout == layouts[0] else f"{layout}_sizes"
        results: dict[str, Any] = report.setdefault(key, {})
        run_args = argparse.Namespace(**{**vars(args),
                                         "no_peer": args.no_peer or layout == "shared"})
        for n in sizes:
            log(f"size {n} ({layout} layout) ...")

            def persist(partial: dict[str, Any], key: str = str(n),
                        results: dict[str, Any] = results) -> None:
                results[key] = partial
                write_json(args.json, report)

            results[str(n)] = run_size(
                n, run_args, embedder, persist, {int(k): v for k, v in results.items()},
                layout)
            write_json(args.json, report)  # keep what is done if a later size is stopped
    print(render(report))
    write_json(args.json, report)
    return 0


def _p50_p95(s: dict[str, Any]) -> str:
    if s.get("skipped"):
        return f"skipped (projected {s['projected_p50_ms'] / 1000:.0f} s)"
    return f"{s.get('p50_ms', '–')} / {s.get('p95_ms', '–')}"


def render(report: dict[str, Any]) -> str:
    cfg = report["config"]
    lines = [f"scale: embedded store ({next(iter(report['sizes'].values()))['layout']} "
             f"layout), embedder {cfg['embedder']}, batches of {cfg['batch']}, "
             f"{cfg['queries']} warm queries (+{cfg['warmup']} warm-up), 3 other tenants "
             f"with N/20, N/100 and 20 relations", ""]
    head = ["N", "ingest rel/s", "embed share", "recall p50/p95 ms (default)",
            "recall p50/p95 ms (relations)", "graphiti p50/p95 ms",
            "graphiti p50 cosine-only / bm25-only", "ratio p50 rel/hybrid, rel/cosine",
            "proc peak MB", "FalkorDB peak MB", "graphiti FalkorDB MB", "size s"]
    rows = []
    for n, r in report["sizes"].items():
        d, rel = r["recall"]["default_kinds"], r["recall"]["relations_only"]
        g = r.get("graphiti") or {}
        gs = g.get("search")
        rows.append([n, r["ingest"]["relations_per_s"], r["ingest"]["embedding_share"],
                     f"{d['p50_ms']} / {d['p95_ms']}", f"{rel['p50_ms']} / {rel['p95_ms']}",
                     _p50_p95(gs) if gs else ("skipped" if g.get("skipped") or not g else "–"),
                     f"{g['search_cosine_only']['p50_ms']} / "
                     f"{_p50_p95(g.get('search_bm25_only') or {}).split(' /')[0]}"
                     if g.get("search_cosine_only") else "–",
                     f"{r.get('latency_ratio_p50_graphmem_relations_over_graphiti')}, "
                     f"{r.get('latency_ratio_p50_graphmem_relations_over_graphiti_cosine_only')}",
                     r["memory"]["process_peak_rss_mb"],
                     r["memory"]["falkordb_server_peak_rss_mb"],
                     g.get("falkordb_server_peak_rss_mb"), r["size_seconds"]])
    lines.append(table(head, rows))
    lines.append("")
    head2 = ["N", "vector plan uses index", "recall@10 big tenant", "recall@40 big tenant",
             "recall@10 small tenant", "recall@40 small tenant", "index ms", "exact scan ms",
             "count() ms", "top recall costs (ms/query, relations only)"]
    rows2 = []
    for n, r in report["sizes"].items():
        v = r["vector_index"]
        costs = r["recall"]["relations_only"]["ms_per_query_by_call"]
        top = ", ".join(f"{k} {ms}" for k, ms in list(costs.items())[:4])
        rows2.append([n, v["uses_vector_index"], v["big_tenant"]["recall@10"],
                      v["big_tenant"]["recall@40"], v["small_tenant"]["recall@10"],
                      v["small_tenant"]["recall@40"], v["big_tenant"]["index_p50_ms@10"],
                      v["big_tenant"]["exact_scan_p50_ms@10"], r["count_relations_ms"], top])
    lines.append(table(head2, rows2))
    lines.append("")
    lines.append(render_tenants(report))
    skipped = [r.get("graphiti", {}).get("reason") for r in report["sizes"].values()
               if r.get("graphiti", {}).get("skipped")]
    if skipped:
        lines.append("")
        lines.append(f"graphiti-core peer skipped: {skipped[0]}")
    elif not report["config"]["peer"]:
        lines.append("")
        lines.append("graphiti-core peer skipped: --no-peer")
    return "\n".join(lines)


def render_tenants(report: dict[str, Any]) -> str:
    """Every tenant of every size and layout: recall latency and vector hits."""
    head = ["layout", "N", "tenant", "relations", "recall p50/p95 ms",
            "vector hit rate own / general", "vector recall@10 own / general",
            "vector p50 ms"]
    rows = []
    for key in [k for k in report if k == "sizes" or k.endswith("_sizes")]:
        for n, r in report[key].items():
            for user, t in (r.get("tenants") or {}).items():
                v = t["vector"]
                rows.append([r.get("layout", "tenant"), n, user, t["relations"],
                             f"{t['recall']['p50_ms']} / {t['recall']['p95_ms']}",
                             f"{v['own']['hit_rate']} / {v['general']['hit_rate']}",
                             f"{v['own']['recall@10']} / {v['general']['recall@10']}",
                             v["own"]["vector_p50_ms"]])
    return table(head, rows)


if __name__ == "__main__":
    raise SystemExit(main())
