"""The full-text stage both stores share: Okapi BM25 over each node's analysed ``terms``.

The full-text index of a label covers only ``terms`` (``_text_terms``: stemmed English,
segmented Chinese, function words dropped), indexed as they are (no stemming or stop words
of the index's own), so it is used to *find* the nodes holding a term; the ranking is
computed here, the same on every backend: for each of a user's nodes the index found,

    score = sum over the question's terms t of
            idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen))
    idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))

with ``N``, ``df`` and ``avglen`` counted over that user's nodes of the label only (a shared
Neo4j index would otherwise weigh a word by everyone's use of it), ``k1 = 1.2`` and
``b = 0.75`` (Lucene's defaults). ``tf`` and ``len`` come from the node's own ``terms``, so
a node's score counts every question term it holds, whichever term found it.

Up to ``FULL_SCAN_MAX`` nodes of a label, every node holding a question term is read, so
the ranking is exact. A bigger user's term held by more than ``cap`` nodes is read for
``cap`` of them (its ``df`` still counted, and kept for a while): such a word weighs
little, and reading all of its nodes is what made full text the slowest part of recall at
100k relations. A node holding a rarer term is scored exactly; one holding only such
common terms may be missed past the cap. A term already known to be held by more than
``COMMON_FACTOR`` times the cap (a user's own name in every one of their relations, say)
is not read at all while a rarer question term is: its weight still counts, from its
known count, in every node the rarer terms found (their own ``terms`` give its frequency
there); the index would sort all of its nodes by score only to hand back ``cap`` of them.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

from graphmem.store._text_terms import (
    ANALYZER_VERSION,
    index_terms,
    node_text,
    query_terms,
    query_weights,
)
from graphmem.store.base import Hit, Row
from graphmem.store.queries import LABELS, Queries

K1 = 1.2
B = 0.75
#: A user with at most this many nodes of a label is searched exhaustively: every node
#: holding a question term is read and scored (exact BM25). Above it, each term reads at
#: most ``cap`` nodes (``search``).
FULL_SCAN_MAX = 5_000
#: The average length is measured over at most this many nodes (all of them up to it).
LENGTH_SAMPLE = 5_000
#: How long a big user's average length and common terms' counts are trusted while the
#: user writes (a small user's are measured again after any change in size).
STATS_TTL_S = 30.0
#: A term held by more than this many times the per-term cap is not read while the
#: question has a rarer term (module docstring).
COMMON_FACTOR = 10
#: Nodes a backfill reads and writes per query.
FILL_PAGE = 500

Run = Callable[[str, dict[str, Any]], list[Any]]


def with_terms(label: str, props: Row) -> Row:
    """``props`` of a node write with ``terms`` made from its text (unchanged if it has none)."""
    text = node_text(label, props)
    if text is None:
        return props
    return {**props, "terms": index_terms(text), "termsVersion": ANALYZER_VERSION}


class CorpusStats:
    """What BM25 needs beyond the nodes found, per (label, user), kept between searches:
    the average length (and, past the per-term cap, a term's document count), each valid
    while the user's node count is unchanged, or for ``STATS_TTL_S`` for a user with more
    than ``FULL_SCAN_MAX`` nodes (a few writes barely move either)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._known: dict[tuple[str, str, str], tuple[float, int, float]] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str], size: int, measure: Callable[[], float]) -> float:
        known = self.peek(key, size)
        if known is not None:
            return known
        now = self._clock()
        value = measure()
        with self._lock:
            if len(self._known) >= 65_536:
                self._known.clear()
            self._known[key] = (value, size, now)
        return value

    def peek(self, key: tuple[str, str, str], size: int) -> float | None:
        """The value kept for ``key`` while it is still valid for a label of ``size``
        nodes, or None."""
        with self._lock:
            known = self._known.get(key)
        if known is not None and (known[1] == size or (
                size > FULL_SCAN_MAX and self._clock() - known[2] < STATS_TTL_S)):
            return known[0]
        return None


def search(run: Run, q: Queries, stats: CorpusStats, label: str, user_id: str, text: str,
           k: int, cap: int) -> list[Hit]:
    """The user's ``k`` best ``label`` nodes for ``text`` by BM25 (module docstring)."""
    terms = query_terms(text)
    if not terms or k <= 0:
        return []
    base = {"userId": user_id}
    size_rows = run(q.get("fulltext_size", label=label), base)
    n = int(size_rows[0][0] or 0) if size_rows else 0
    if n == 0:
        return []
    if n <= FULL_SCAN_MAX:
        cap = n  # every node holding a term: exact

    def measure_length() -> float:
        rows = run(q.get("fulltext_stats", label=label),
                   {**base, "sep": " ", "sample": LENGTH_SAMPLE})
        count, total = (int(rows[0][0] or 0), int(rows[0][1] or 0)) if rows else (0, 0)
        return total / count if count else 1.0

    avg = stats.get((label, user_id, ""), n, measure_length)
    df: dict[str, int] = {}
    docs: dict[str, Counter[str]] = {}

    def read(term: str, rows: list[Any]) -> int:
        """Keep the nodes ``rows`` found for ``term``; how many of them hold it."""
        holding = 0
        for node_id, node_terms in rows:
            counts = docs.get(str(node_id))
            if counts is None:
                counts = docs[str(node_id)] = Counter(str(node_terms or "").split())
            # the embedded index also stems the question's word: a node it found through
            # that stem alone does not hold the term
            holding += counts[term] > 0
        return holding

    if n <= FULL_SCAN_MAX and q.has("fulltext_search_terms"):
        # a small user: no term is capped, so every term's nodes come in one round trip
        found: dict[str, list[Any]] = {t: [] for t in terms}
        for term, node_id, node_terms in run(q.get("fulltext_search_terms", label=label),
                                             {**base, "terms": terms}):
            found.setdefault(str(term), []).append((node_id, node_terms))
        df.update({t: read(t, found[t]) for t in terms})
        return rank(docs, df, n, avg, k, query_weights(text, terms))
    fetch = q.get("fulltext_search", label=label)
    count = q.get("fulltext_count", label=label)
    for term in _worth_reading(terms, stats, label, user_id, n, cap, df):
        # Terms are letters and digits only (``_text_terms``): nothing in them is query
        # syntax, so a failure is the store's and propagates.
        params = {**base, "term": term, "cap": cap}
        rows = run(fetch, params)
        df[term] = holding = read(term, rows)
        if len(rows) >= cap:
            counted = stats.get((label, user_id, term), n, partial(_count, run, count, params))
            df[term] = max(holding, int(counted))
    return rank(docs, df, n, avg, k, query_weights(text, terms))


def _worth_reading(terms: list[str], stats: CorpusStats, label: str, user_id: str, n: int,
                   cap: int, df: dict[str, int]) -> list[str]:
    """The question's terms whose nodes are read: all of them, but for a term already known
    to be held by more than ``COMMON_FACTOR * cap`` nodes while a rarer one is there (its
    count goes into ``df`` as it is)."""
    if n <= FULL_SCAN_MAX:
        return terms
    common: dict[str, int] = {}
    for term in terms:
        known = stats.peek((label, user_id, term), n)
        if known is not None and known > COMMON_FACTOR * cap:
            common[term] = int(known)
    if not common:
        return terms
    if len(common) == len(terms):
        rarest = min(terms, key=lambda t: common[t])
        common.pop(rarest)
    df.update(common)
    return [t for t in terms if t not in common]


def _count(run: Run, text: str, params: dict[str, Any]) -> float:
    rows = run(text, params)
    return float(rows[0][0] or 0) if rows else 0.0


def rank(docs: dict[str, Counter[str]], df: dict[str, int], n: int, avg: float,
         k: int, boost: dict[str, float] | None = None) -> list[Hit]:
    """BM25 of each document (its term counts) for the terms in ``df``, each term's part
    x its ``boost`` (default 1); best ``k``."""
    boost = boost or {}
    weight = {t: boost.get(t, 1.0) * math.log(1.0 + (max(n, d) - d + 0.5) / (d + 0.5))
              for t, d in df.items() if d}
    avg = avg or 1.0
    scored: list[tuple[float, str]] = []
    for node_id, counts in docs.items():
        length = sum(counts.values())
        norm = K1 * (1.0 - B + B * length / avg)
        score = sum(w * counts[t] * (K1 + 1.0) / (counts[t] + norm)
                    for t, w in weight.items() if counts[t])
        if score > 0:
            scored.append((score, node_id))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [Hit(node_id, round(score, 6)) for score, node_id in scored[:k]]


def backfill(read: Run, write: Run, q: Queries) -> int:
    """Give every node whose ``terms`` are missing or from another analysis its terms.

    Page by page (``FILL_PAGE``), so a big store is not held in one query; safe to stop
    and run again (a node done is not read again). Returns how many nodes were filled.
    """
    filled = 0
    for label in LABELS:
        stale = q.get("fulltext_stale", label=label)
        fill = q.get("fulltext_fill", label=label)
        seen: set[str] = set()
        while True:
            rows = read(stale, {"version": ANALYZER_VERSION, "page": FILL_PAGE})
            if not rows or all(r[0] in seen for r in rows):
                break  # done (or only nodes the fill cannot address: no id)
            seen.update(r[0] for r in rows)
            updates = [{"id": r[0], "terms": index_terms(node_text(label, r[1]) or "")}
                       for r in rows]
            write(fill, {"rows": updates, "version": ANALYZER_VERSION})
            filled += len(updates)
            if len(rows) < FILL_PAGE:
                break
    return filled


def upgrade_falkor_graph(graph: Any, q: Queries, create_indexes: Callable[[Any], None],
                         wait_s: float = 1800.0) -> int:
    """Bring one embedded tenant graph to full text over ``terms`` (run on open, once its
    indexes, rebuilt by the server as it loads, are built).

    A label whose full-text index covers other fields (before ``terms``: the text itself,
    under the Chinese analyser) has its indexes remade: FalkorDB keeps one analyser
    language per label, shared by its exact-match and vector indexes, so all of that
    label's indexes are dropped and made again (``create_indexes``), and the open waits
    until they are built. Then every node without terms of this analysis gets them
    (``backfill``), and the graph's ``Tenant`` node records the version, so the next open
    skips the scan. Interrupted, it resumes. Returns how many nodes were filled.
    """
    def read(text: str, params: dict[str, Any]) -> list[Any]:
        return list(graph.ro_query(text, params).result_set)

    def write(text: str, params: dict[str, Any]) -> list[Any]:
        return list(graph.query(text, params).result_set)

    # A graph loaded from disk has its indexes rebuilt in the background; until then the
    # full-text and vector procedures find nothing (or fail): wait for them first.
    wait_for_indexes(graph, q, wait_s)
    marked = read(q.get("fulltext_version"), {})
    if marked and marked[0][0] == ANALYZER_VERSION:
        return 0
    remade = False
    for label, types, language, _status in read(q.get("fulltext_indexes"), {}):
        kinds = {f: list(k) for f, k in (types or {}).items() if _FIELD.fullmatch(str(f))}
        text_fields = sorted(f for f, k in kinds.items() if "FULLTEXT" in k)
        if label not in LABELS or not text_fields or (
                text_fields == ["terms"] and language == "english"):
            continue
        for statement in _drop_statements(label, kinds):
            write(statement, {})
        remade = True
    if remade:
        create_indexes(graph)
        wait_for_indexes(graph, q, wait_s)
    filled = backfill(read, write, q)
    write(q.get("fulltext_version_set"), {"version": ANALYZER_VERSION})
    return filled


def wait_for_indexes(graph: Any, q: Queries, wait_s: float) -> None:
    """Until every index of an embedded graph is built (or ``wait_s`` has passed)."""
    deadline = time.monotonic() + wait_s
    while any(row[3] != "OPERATIONAL"
              for row in graph.ro_query(q.get("fulltext_indexes")).result_set):
        if time.monotonic() > deadline:
            return
        time.sleep(0.02)


_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _drop_statements(label: str, kinds: dict[str, list[str]]) -> list[str]:
    """Statements dropping every index of ``label`` (its name from ``LABELS``, its fields
    checked as plain property names)."""
    out = []
    for field, types in kinds.items():
        if "RANGE" in types:
            out.append(f"DROP INDEX FOR (n:{label}) ON (n.{field})")
        if "VECTOR" in types:
            out.append(f"DROP VECTOR INDEX FOR (n:{label}) ON (n.{field})")
    if any("FULLTEXT" in types for types in kinds.values()):
        out.append(f"CALL db.idx.fulltext.drop('{label}')")
    return out
