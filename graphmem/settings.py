"""One ``Settings`` object, read from ``GRAPHMEM_*`` environment variables (or a .env file).

Built once at start-up and passed down; nothing reads the environment at import time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: personal-data kinds the guard detects (see ``graphmem.guard``)
PiiKind = Literal["email", "phone", "cn_id", "credit_card", "ip_address"]
#: what a write does with a personal-data finding
PiiMode = Literal["redact", "reject", "allow"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", env_file=".env",
                                      env_file_encoding="utf-8", extra="ignore")

    # --- store
    store: Literal["embedded", "neo4j"] = "embedded"
    data_dir: Path = Path("./graphmem-data")
    graph_name: str = "graphmem"
    #: the embedded server rebuilds its indexes before it answers (minutes at 100k relations)
    store_start_timeout_s: float = 1800.0
    store_query_timeout_s: float = 300.0
    neo4j_uri: str = "bolt://localhost:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("graphmem")
    neo4j_database: str = "neo4j"
    # "native" for Neo4j 5; "arcadedb" for ArcadeDB's Bolt-compatible server, whose index
    # DDL goes through its HTTP SQL endpoint (the only per-server difference).
    neo4j_index_mode: Literal["native", "arcadedb"] = "native"
    neo4j_http_url: str = ""

    # --- embeddings
    #: minilm+use (default): all-MiniLM-L6-v2 for Latin script, the Universal Sentence
    #: Encoder multilingual v3 for Chinese, Japanese and Korean, one space
    #: (``graphmem._embed_routed``); minilm: all-MiniLM-L6-v2 alone (English); use: USE
    #: alone; e5: multilingual-e5-small 4-bit (graphmem[e5], x86-64 Linux); hashing: no
    #: model (tests); openai: an OpenAI-compatible endpoint
    embedder: Literal["minilm", "use", "e5", "minilm+use", "hashing", "openai"] = \
        "minilm+use"
    #: vector length of the hashing and openai embedders (the models have their own)
    embedding_dim: int = 384
    embedding_model: str = "text-embedding-3-small"
    embedding_cache: int = 20000
    #: long episodes also get vectors of their passages (graphmem._passages); false: one
    #: vector per episode, its opening (less embedding work per long episode)
    passages: bool = True

    # --- extraction
    extractor: Literal["rules", "llm"] = "rules"
    llm_base_url: str = ""
    llm_api_key: SecretStr = SecretStr("")
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = 30.0
    llm_max_retries: int = 3
    llm_batch_size: int = 8
    #: with the LLM engine, the model also proposes which earlier messages a new one
    #: replaces or contradicts (graphmem.extract._llm_versions): one more request per write
    #: (per 16,000 characters of messages shown); false: the rules alone link versions
    llm_versions: bool = True
    min_confidence: float = 0.6
    #: name-embedding similarity at which a new name joins a stored entity; None: the
    #: embedder's own (0.86 for MiniLM, calibrated per model: see graphmem._embed_multi)
    entity_similarity: float | None = Field(default=None, ge=0.0, le=1.0)
    exclusive_predicates: list[str] = Field(
        default_factory=lambda: ["name_is", "lives_in", "works_at", "has_role", "prefers"])
    secret_mode: Literal["redact", "reject"] = "redact"
    #: per personal-data kind, e.g. {"email": "allow", "cn_id": "reject"}; kinds not named
    #: keep the guard's default (redact; ip_address: allow)
    pii_modes: dict[PiiKind, PiiMode] = Field(default_factory=dict)

    # --- recall
    #: extra graph weight for relations two hops from a named entity, by the share of the
    #: question's words their path covers (0: off; 2 helps two-hop questions, see README)
    graph_cover_weight: float = Field(default=0.0, ge=0.0, le=10.0)
    #: share of its score a relation loses when it is not near the entities the
    #: question names (0: off)
    graph_prior: float = Field(default=0.0, ge=0.0, le=1.0)
    #: the recall tuning: auto picks per user, "relations" for a memory made mostly of
    #: relations sent as relations, else "conversation" (graphmem.recall_model.PRESETS)
    recall_preset: Literal["auto", "conversation", "relations"] = "auto"

    # --- reflection (abstractions)
    #: independent sources (distinct episodes, or relations of distinct episodes) a pattern
    #: needs before it becomes an abstraction
    reflect_min_sources: int = Field(default=2, ge=2, le=1000)
    #: the confidence it needs (from its sources' confidences and how many there are)
    reflect_min_confidence: float = Field(default=0.6, ge=0.0, le=1.0)
    #: reflect a user in the background after this many new episodes (0: never)
    reflect_every: int = Field(default=10, ge=0)

    # --- lifecycle (importance, decay, feedback, gc)
    #: importance a new memory starts with, by category (JSON), on top of the defaults
    #: preference .9, lesson .85, fact .8, goal .7, context .4; a category is looked up
    #: as itself ("preference:editor"), its head ("preference"), then its class (tool,
    #: identity, work, learning -> fact; plan -> goal; episodes and entities -> context)
    importance_by_category: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]] = Field(
        default_factory=dict)
    #: days without a recall after which a memory's importance has halved
    importance_half_life_days: float = Field(default=30.0, gt=0.0)
    #: half-lives of their own, in days (> 0), by category (JSON), e.g. {"preference": 90,
    #: "context": 14}; looked up as importance_by_category is (the category, its head, its
    #: class; episodes and entities are context); the rest decay with
    #: importance_half_life_days
    importance_half_life_by_category: dict[
        str, Annotated[float, Field(gt=0.0, allow_inf_nan=False)]] = Field(
        default_factory=dict)
    #: reinforcement by use: importance x (1 + this x ln(1 + times recalled)), at most 1
    importance_reinforcement: float = Field(default=0.2, ge=0.0, le=10.0)
    #: gc forgets memories whose importance now is below this
    forget_threshold: float = Field(default=0.1, ge=0.0, le=1.0)
    #: how far one feedback signal moves importance or confidence (bounded to [0, 1])
    feedback_step: float = Field(default=0.1, gt=0.0, le=0.5)
    #: a memory whose confidence falls below this after feedback is marked for review
    review_threshold: float = Field(default=0.5, ge=0.0, le=1.0)

    # --- limits
    max_content_chars: int = 20000
    max_name_chars: int = 500
    max_batch: int = 500
    max_body_bytes: int = 2_000_000
    max_query_depth: int = 10
    max_aliases: int = 20
    max_query_tokens: int = 5000
    #: what one operation may cost with fragments expanded: 1 per field, a list's fields
    #: times its limit (10 when it has none); GraphiQL's introspection costs ~52k, a
    #: 100-relation read with neighbours and evidence ~120k (see graphmem/api/_limits.py)
    max_query_cost: int = Field(default=250_000, ge=1)

    # --- service
    host: str = "127.0.0.1"
    port: int = 8420
    api_keys: dict[str, list[str]] = Field(default_factory=dict)
    api_keys_file: Path | None = None
    #: let ``graphmem serve`` listen beyond loopback with no API key (anyone reaching the
    #: port reads and writes every user's memory)
    insecure_no_auth: bool = False
    access_flush_s: float = 60.0
    access_flush_count: int = 100

    # --- webhooks (graphmem._webhooks)
    #: POST each user's memory events here (http or https); empty: no webhooks
    webhook_url: str = ""
    #: HMAC-SHA256 key of the ``X-Graphmem-Signature: sha256=<hex>`` header (empty: none)
    webhook_secret: SecretStr = SecretStr("")
    webhook_timeout_s: float = Field(default=10.0, gt=0.0, le=300.0)
    #: failed attempts in a row after which a user's batch waits for the user's next write
    #: or ``webhook_backoff_max_s`` (it is never dropped for failing)
    webhook_max_attempts: int = Field(default=8, ge=1, le=100)
    #: first retry delay; doubled per failure, jittered, capped at ``webhook_backoff_max_s``
    webhook_backoff_s: float = Field(default=0.5, gt=0.0, le=3600.0)
    webhook_backoff_max_s: float = Field(default=60.0, gt=0.0, le=3600.0)
    #: how far behind the last delivered event each read starts again, so a write stamped
    #: earlier but committed later (a relation waiting for the write lock, clock skew
    #: between replicas) is still sent; what was sent is remembered and not sent again
    webhook_lookback_s: float = Field(default=60.0, ge=0.0, le=86400.0)

    @field_validator("webhook_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        value = value.strip()
        if value:
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError("webhook_url must be an http:// or https:// URL")
        return value

    @property
    def vector_dim(self) -> int:
        """The length of the stored vectors: the model's own, or ``embedding_dim``."""
        return _MODEL_DIMS.get(self.embedder, self.embedding_dim)


#: vector lengths of the embedders whose model fixes them
_MODEL_DIMS = {"minilm": 384, "use": 512, "e5": 384, "minilm+use": 384}
