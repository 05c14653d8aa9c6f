"""Plain retrieval baselines the recall benchmarks compare graphmem against, in memory.

* ``bm25``      Okapi BM25 (bm25s, k1 = 1.5, b = 0.75) over one memory's texts;
* ``dense``     cosine over the texts' vectors (the embedder graphmem uses);
* ``rrf``       BM25 + dense, reciprocal-rank fusion (k = 60);
* ``rrf+time``  RRF, and for when-questions the texts carrying a date or a time word get
                their fused score x 1.5.

Tokens: by default bm25s's own tokenizer (lowercase, English stopwords; what the LoCoMo
figures have always used). ``multilingual_tokens`` adds Chinese: a run of Han characters
becomes its single characters and its character bigrams (the usual segmentation-free
indexing of Chinese), Latin words are lowercased and English stopwords dropped.

Also the scoring of one ranked list against a question's evidence ids.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

RRF_K = 60
DEPTH = 20  # ids collected per question (R@20, MRR within the top 20)
KS = (5, 10, 20)
BASELINES = ("bm25", "dense", "rrf", "rrf+time")

_TIME_QUESTION = re.compile(
    r"\b(when|what (year|month|date|day|time|week)|which (year|month|day|date)|"
    r"how long ago|since when|what period)\b|什么时候|哪天|哪一天|几月|哪年|何时", re.I)
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|"
           "december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_TIME_TEXT = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|ago|recently|lately|earlier|"
    r"(last|next|this|past|coming) (week|weekend|month|year|summer|winter|spring|fall|"
    r"autumn|night|morning|evening|friday|saturday|sunday|monday|tuesday|wednesday|"
    r"thursday)|weekend|(mon|tues|wednes|thurs|fri|satur|sun)day|" + _MONTHS + r"|"
    r"(19|20)\d\d|\d{1,2}(st|nd|rd|th))\b|"
    r"昨天|今天|明天|上周|下周|上个月|去年|今年|\d{1,2}月|\d{1,2}[日号]", re.I)
TIME_BOOST = 0.5  # multiplies the fused score of a dated text by 1.5 for when-questions


def is_time_question(text: str) -> bool:
    return bool(_TIME_QUESTION.search(text))


def is_dated(text: str) -> bool:
    return bool(_TIME_TEXT.search(text))


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def multilingual_tokens(text: str) -> list[str]:
    """Lowercased Latin words without English stopwords; Han runs as characters + bigrams."""
    from bm25s.stopwords import STOPWORDS_EN

    stop = set(STOPWORDS_EN)
    out: list[str] = []
    for chunk in _WORD.findall(text.lower()):
        for piece in re.split(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)", chunk):
            if not piece:
                continue
            if _HAN.fullmatch(piece):
                out.extend(piece)
                out.extend(piece[i:i + 2] for i in range(len(piece) - 1))
            elif len(piece) > 1 and piece not in stop:
                out.append(piece)
    return out


class Baselines:
    """BM25, dense and fused rankings over one memory's texts (ids in the caller's order)."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str], vectors: Any, *,
                 tokenizer: Callable[[str], list[str]] | None = None) -> None:
        import bm25s
        import numpy as np

        self.ids = list(ids)
        self.tokenizer = tokenizer
        self.bm25 = bm25s.BM25()
        if tokenizer is None:
            tokens: Any = bm25s.tokenize(list(texts), lower=True, stopwords="en",
                                         show_progress=False)
        else:
            tokens = [tokenizer(t) or [""] for t in texts]
        self.bm25.index(tokens, show_progress=False)
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.dated = [is_dated(t) for t in texts]

    def rank_bm25(self, query: str) -> list[int]:
        import bm25s

        n = len(self.ids)
        if self.tokenizer is None:
            q: Any = bm25s.tokenize([query], lower=True, stopwords="en", return_ids=False,
                                    show_progress=False)
            empty = not q[0]
        else:
            vocab = self.bm25.vocab_dict
            words = [w for w in self.tokenizer(query) if w in vocab]
            q, empty = [words], not words
        if empty:
            return list(range(n))
        docs, _ = self.bm25.retrieve(q, k=n, show_progress=False)
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

    def rankings(self, query: str, qvec: Any, depth: int = DEPTH) -> dict[str, list[str]]:
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
        return {name: [self.ids[i] for i in r[:depth]] for name, r in out.items()}


def evidence_recall(ranked: Sequence[str], evidence: Sequence[str]) -> dict[str, float]:
    """Recall@k for each k of ``KS``, all evidence in the top 10, MRR within ``DEPTH``."""
    ev = set(evidence)
    out: dict[str, float] = {f"R@{k}": len(ev & set(ranked[:k])) / len(ev) for k in KS}
    out["allIn10"] = 1.0 if ev <= set(ranked[:10]) else 0.0
    out["MRR"] = next((1.0 / (i + 1) for i, ref in enumerate(ranked[:DEPTH]) if ref in ev), 0.0)
    return out


def refs_of(items: Sequence[Any], k: int = DEPTH) -> list[str]:
    """Walk recall items in rank order, collecting source refs until ``k`` distinct.

    ``items`` are service ``RecallItem``s (``.sources[].source_ref``) or GraphQL item dicts
    (``["sources"][]["sourceRef"]``)."""
    out: list[str] = []
    seen: set[str] = set()
    for item in items:
        sources = item["sources"] if isinstance(item, dict) else item.sources
        for src in sources:
            ref = src["sourceRef"] if isinstance(src, dict) else src.source_ref
            if ref and ref not in seen:
                seen.add(ref)
                out.append(ref)
                if len(out) >= k:
                    return out
    return out
