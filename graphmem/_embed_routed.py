"""One vector space for English and Chinese: MiniLM where it reads, USE where it does not.

all-MiniLM-L6-v2 is the best of the offline models on English (``bench/embedders.py``)
but reads no Chinese: its vectors of Chinese texts are all alike. The Universal Sentence
Encoder multilingual v3 reads Chinese, Japanese and Korean well and English less well.
``RoutedEmbedder`` gives each text to the model that reads its script:

- a text written mostly in Han, kana or Hangul (at least as many such characters as
  Latin words) goes to USE, whose 512 dimensions are taken to 384 by a fixed subsampled
  randomised Hadamard transform (signs from SHA-256, the first 384 of 512 rows), then
  normalised: cosines between two such texts stay within a few hundredths of USE's own;
- any other text goes to MiniLM, unchanged: an English store's vectors are the same as
  with ``minilm``.

Both halves share one 384-d index. A pair across the two (an English question, a Chinese
memory) has a cosine of about 0 +- .05: unrelated, as it is with MiniLM alone. The
store keeps one ``model_id`` for the pair, so ``graphmem reembed`` moves a MiniLM store
to it (its English vectors come out the same).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import numpy as np

from graphmem._embed_multi import USEEmbedder
from graphmem.embed import Embedder, MiniLMEmbedder

#: characters MiniLM cannot read and USE can: Han (with extension A and the compatibility
#: block), kana, Hangul syllables
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")

_SOURCE_DIM = 512
DIM = 384


def reads_as_cjk(text: str) -> bool:
    """Is ``text`` written mostly in Chinese, Japanese or Korean script? At least as many
    such characters as Latin words (一个 Notion 页面: yes; "dinner at 鼎泰丰": no)."""
    cjk = len(_CJK.findall(text))
    return cjk > 0 and cjk >= len(_LATIN_WORD.findall(text))


def _signs() -> np.ndarray:
    """512 fixed signs, +1 or -1, from SHA-256: the same on every machine."""
    bits: list[int] = []
    counter = 0
    while len(bits) < _SOURCE_DIM:
        digest = hashlib.sha256(f"graphmem-srht-{counter}".encode()).digest()
        bits.extend((byte >> k) & 1 for byte in digest for k in range(8))
        counter += 1
    return np.where(np.array(bits[:_SOURCE_DIM]) == 1, 1.0, -1.0)


def _hadamard(n: int) -> np.ndarray:
    """The Sylvester Hadamard matrix of order ``n`` (a power of 2), entries +1 / -1."""
    h = np.ones((1, 1))
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return h


class _Projection:
    """x -> the first 384 entries of H D x / sqrt(512), normalised: an orthogonal map
    (a random rotation, fixed) followed by dropping a quarter of the axes."""

    def __init__(self) -> None:
        rows = _hadamard(_SOURCE_DIM)[:DIM] / np.sqrt(_SOURCE_DIM)
        self.matrix = rows * _signs()[None, :]

    def __call__(self, vectors: np.ndarray) -> np.ndarray:
        out = vectors @ self.matrix.T
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.asarray(out / np.where(norms == 0.0, 1.0, norms))


class RoutedEmbedder:
    """MiniLM for texts in Latin (and other) scripts, USE (projected to 384-d) for texts in
    Han, kana or Hangul, in one space (module docstring)."""

    dim = DIM
    model_id = f"{MiniLMEmbedder.model_id}+{USEEmbedder.model_id}-srht{DIM}"
    #: MiniLM's: names are mostly Latin (USE's calibrated level, .88, is close)
    entity_similarity = 0.86
    #: the same level for both halves (MiniLM .3, USE .3)
    kin_similarity = 0.3
    reads_cjk = True

    def __init__(self, *, latin: Embedder | None = None, cjk: Any = None,
                 threads: int = 1) -> None:
        self.latin: Embedder = latin if latin is not None else MiniLMEmbedder(
            threads=threads)
        self.cjk = cjk if cjk is not None else USEEmbedder(threads=threads)
        self._project = _Projection()  # a 384 x 512 matrix made from hashes: no I/O

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order; each script's texts in one call to its model."""
        if not texts:
            return []
        cjk = [i for i, t in enumerate(texts) if reads_as_cjk(t)]
        chosen = set(cjk)
        latin = [i for i in range(len(texts)) if i not in chosen]
        out: list[list[float]] = [[] for _ in texts]
        if latin:
            for i, vec in zip(latin, self.latin.embed([texts[i] for i in latin]),
                              strict=True):
                out[i] = vec
        if cjk:
            raw = np.asarray(self.cjk.embed([texts[i] for i in cjk]), dtype=np.float64)
            for i, vec in zip(cjk, self._project(raw).tolist(), strict=True):
                out[i] = vec
        return out

    def embed_one(self, text: str) -> list[float]:
        """The vector of a single text."""
        return self.embed([text])[0]

    def keeps(self, model: str | None, text: str) -> bool:
        """Is a stored vector of ``text`` by ``model`` the one this embedder would make
        (MiniLM's of a text in Latin script)? ``graphmem reembed`` then only renames it."""
        return model == self.latin.model_id and not reads_as_cjk(text)
