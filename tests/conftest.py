"""Shared fixtures: real stores (embedded FalkorDB, and the Bolt server for the neo4j
backend), a service over each, a controllable clock."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem.embed import HashingEmbedder
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.store.falkor import FalkorStore

DIM = 64
_users = itertools.count()


class FakeClock:
    """A settable clock so system time (recordedAt, knownAt) is under test control."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def tick(self, seconds: float = 1.0) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def user() -> str:
    """A fresh user per test: stores are shared per session, tenants keep tests apart."""
    return f"user-{next(_users)}"


@pytest.fixture(scope="session")
def embedded_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FalkorStore]:
    store = FalkorStore(Path(tmp_path_factory.mktemp("falkor")), dim=DIM)
    store.open()
    yield store
    store.close()


def make_settings(**overrides: object) -> Settings:
    base: dict[str, object] = {"embedding_dim": DIM, "embedder": "hashing"}
    base.update(overrides)
    return Settings(**base)  # type: ignore[arg-type]


STORES = ["embedded", "bolt"]


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """Each contract test runs once per backend."""
    if request.param == "embedded":
        return request.getfixturevalue("embedded_store")
    return request.getfixturevalue("bolt_store")


@pytest.fixture
def service(store, clock: FakeClock) -> MemoryService:  # type: ignore[no-untyped-def]
    return MemoryService(make_settings(), store, HashingEmbedder(DIM), clock=clock)


# --------------------------------------------------------------------------- OpenAI stub

try:  # tests/ is on sys.path (no __init__.py, rootdir conftest); else the package path
    from stub_openai import OpenAIStub  # noqa: E402
except ImportError:  # pragma: no cover
    from tests.stub_openai import OpenAIStub  # noqa: E402


@pytest.fixture(scope="session")
def _openai_stub_server() -> Iterator[OpenAIStub]:
    with OpenAIStub() as stub:
        yield stub


@pytest.fixture
def openai_stub(_openai_stub_server: OpenAIStub) -> Iterator[OpenAIStub]:
    """A local OpenAI-compatible server (``.base_url``), with script and counters reset."""
    _openai_stub_server.reset()
    yield _openai_stub_server
    _openai_stub_server.reset()


# --------------------------------------------------------------------------- ArcadeDB Bolt server

try:  # same import dance as above: top-level when tests/ is on sys.path, else the package
    from bolt_server import BoltServer, create_database, start_bolt_server  # noqa: E402
except ImportError:  # pragma: no cover
    from tests.bolt_server import BoltServer, create_database, start_bolt_server  # noqa: E402


@pytest.fixture(scope="session")
def bolt_server() -> Iterator[BoltServer]:
    """One ArcadeDB server with the Bolt plugin for the whole session (~7-8 s to start).

    Yields ``BoltServer(uri, user, password, database, http_url, ...)``: connect with
    ``neo4j.GraphDatabase.driver(uri, auth=(user, password))`` and pass
    ``database_=database`` / ``session(database=database)``; create vector and
    full-text indexes with ``run_sql(server, "...")`` (tests/bolt_server.py).
    The server runs in a child process on free loopback ports, its JVM output goes to
    ``server.log`` in a temp root that is removed afterwards (GRAPHMEM_BOLT_KEEP=1 keeps it).
    """
    import importlib.util

    if importlib.util.find_spec("arcadedb_embedded") is None:
        pytest.fail("arcadedb-embedded is not installed: pip install '.[dev]'")
    handle = start_bolt_server()
    try:
        yield handle.info
    finally:
        handle.stop()


@pytest.fixture(scope="session")
def bolt_store(bolt_server: BoltServer):  # type: ignore[no-untyped-def]
    """The neo4j backend (official driver over Bolt) on its own database of that server."""
    from graphmem.store.neo4j import Neo4jStore

    db = create_database(bolt_server, "store")
    store = Neo4jStore(uri=db.uri, user=db.user, password=db.password, database=db.database,
                       dim=DIM, index_mode="arcadedb", http_url=db.http_url)
    store.open()
    yield store
    store.close()
