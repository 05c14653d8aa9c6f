"""Reading a Graphiti graph through graphiti-core's own drivers and models.

A source is a Neo4j server (one database, ``group_id`` on every node and edge), a FalkorDB
server, or an embedded FalkorDB file written by ``falkordblite`` (FalkorDB: one graph per
``group_id``, as graphiti's ``FalkorDriver`` keeps them). Nothing is written to the
source: drivers are made outside the event loop, so graphiti's constructors do not start
building indexes on it.

graphiti-core is imported lazily: ``GraphitiSource`` raises ``UnavailableError`` with the
install hint when it is missing.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from graphmem.errors import InvalidInputError, UnavailableError

T = TypeVar("T")
_PAGE = 1000


@dataclass(slots=True)
class GraphitiGroup:
    """Everything of one ``group_id``, as graphiti's models (``EpisodicNode``,
    ``EntityNode``, ``EntityEdge``, ``EpisodicEdge``)."""

    group_id: str
    episodes: list[Any] = field(default_factory=list)
    entities: list[Any] = field(default_factory=list)
    edges: list[Any] = field(default_factory=list)
    mentions: list[Any] = field(default_factory=list)


def graphiti_version() -> str | None:
    """The installed graphiti-core version, or None when it is not importable."""
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    try:
        from importlib.metadata import version

        import graphiti_core.edges  # noqa: F401
        import graphiti_core.nodes  # noqa: F401
    except Exception:  # ImportError, or a broken install
        return None
    return version("graphiti-core")


class GraphitiSource:
    """One Graphiti database, read group by group (use as a context manager).

    Exactly one of ``falkordb_file`` (an embedded falkordblite data file),
    ``falkordb_url`` (``redis://[:password@]host:port``) or ``neo4j_uri`` is given.
    """

    def __init__(self, *, falkordb_file: Path | None = None, falkordb_url: str | None = None,
                 neo4j_uri: str | None = None, neo4j_user: str | None = None,
                 neo4j_password: str | None = None, neo4j_database: str = "neo4j") -> None:
        given = [x for x in (falkordb_file, falkordb_url, neo4j_uri) if x]
        if len(given) != 1:
            raise InvalidInputError("source", "give exactly one of --falkordb-file, "
                                              "--falkordb-url or --neo4j-uri")
        if graphiti_version() is None:
            raise UnavailableError("graphiti-core is not installed: pip install "
                                   "'graphiti-core>=0.30,<0.31'")
        if falkordb_file is not None and not Path(falkordb_file).is_file():
            raise InvalidInputError("--falkordb-file", f"no such file: {falkordb_file}")
        self._file = falkordb_file
        self._url = falkordb_url
        self._neo4j = (neo4j_uri, neo4j_user, neo4j_password, neo4j_database)
        self._runner: asyncio.Runner | None = None
        self._db: Any = None  # the FalkorDB client (file or server)
        self._neo4j_driver: Any = None
        self._drivers: dict[str, Any] = {}

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> GraphitiSource:
        self.open()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def open(self) -> None:
        # graphiti logs every failed query with its parameters
        logging.getLogger("graphiti_core").setLevel(logging.CRITICAL)
        self._runner = asyncio.Runner()
        try:
            if self._file is not None:
                from redislite.async_falkordb_client import AsyncFalkorDB

                path = str(Path(self._file).resolve())
                self._db = self._run(_make(lambda: AsyncFalkorDB(path)))
            elif self._url is not None:
                from falkordb.asyncio import FalkorDB

                url = self._url
                self._db = self._run(_make(lambda: FalkorDB.from_url(url)))
            else:
                from graphiti_core.driver.neo4j_driver import Neo4jDriver

                uri, user, password, database = self._neo4j
                self._neo4j_driver = Neo4jDriver(uri=str(uri), user=user, password=password,
                                                 database=database)
        except Exception as e:
            self.close()
            raise UnavailableError(f"cannot open the Graphiti database: {e}") from e

    def close(self) -> None:
        if self._runner is None:
            return
        try:
            if self._neo4j_driver is not None:
                self._run(self._neo4j_driver.close())
            if self._db is not None and self._file is not None:
                # the embedded server this source started: stopped without saving, so
                # the file stays exactly as it was given (the client's close leaves the
                # server running)
                self._run(self._db.connection.shutdown(nosave=True))
                self._run(self._db.close())
            elif self._db is not None:
                self._run(self._db.aclose())
        except Exception as e:  # closing a read-only source: say it, do not fail the import
            logging.getLogger("graphmem.graphiti").warning("closing the source: %s", e)
        finally:
            self._runner.close()
            self._runner = None
            self._db = self._neo4j_driver = None
            self._drivers.clear()

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        assert self._runner is not None, "open() first"
        return self._runner.run(coro)

    # ------------------------------------------------------------------ reads

    def groups(self) -> list[str]:
        """Every group_id that has episodes or entities, sorted."""
        if self._neo4j_driver is not None:
            records, _, _ = self._run(self._neo4j_driver.execute_query(
                "MATCH (n) WHERE (n:Episodic OR n:Entity) AND n.group_id IS NOT NULL "
                "RETURN DISTINCT n.group_id AS g", routing_="r"))
            return sorted(str(r["g"]) for r in records)
        names = self._run(self._db.list_graphs())
        found = []
        for name in sorted(str(n) for n in names):
            records, _, _ = self._run(self._driver(name).execute_query(
                "MATCH (n) WHERE (n:Episodic OR n:Entity) AND n.group_id = $g "
                "RETURN count(n) AS c", g=name))
            if records and int(records[0]["c"]):
                found.append(name)
        return found

    def read(self, group_id: str) -> GraphitiGroup:
        """Every episode, entity, entity edge and MENTIONS edge of ``group_id``."""
        from graphiti_core.edges import EntityEdge, EpisodicEdge
        from graphiti_core.nodes import EntityNode, EpisodicNode

        drv = self._driver(group_id)
        return GraphitiGroup(
            group_id,
            episodes=self._all(lambda cur: EpisodicNode.get_by_group_ids(
                drv, [group_id], limit=_PAGE, uuid_cursor=cur)),
            entities=self._all(lambda cur: EntityNode.get_by_group_ids(
                drv, [group_id], limit=_PAGE, uuid_cursor=cur)),
            edges=self._all(lambda cur: EntityEdge.get_by_group_ids(
                drv, [group_id], limit=_PAGE, uuid_cursor=cur)),
            mentions=self._all(lambda cur: EpisodicEdge.get_by_group_ids(
                drv, [group_id], limit=_PAGE, uuid_cursor=cur)))

    def _all(self, page: Callable[[str | None], Awaitable[list[Any]]]) -> list[Any]:
        """Every item, a page at a time (graphiti pages by uuid, descending)."""
        from graphiti_core.errors import GroupsEdgesNotFoundError

        out: list[Any] = []
        cursor: str | None = None
        while True:
            try:
                items = self._run(_await(page(cursor)))
            except GroupsEdgesNotFoundError:  # graphiti's answer for "no edges"
                items = []
            out.extend(items)
            if len(items) < _PAGE:
                return out
            cursor = items[-1].uuid

    def _driver(self, group_id: str) -> Any:
        if self._neo4j_driver is not None:
            return self._neo4j_driver
        drv = self._drivers.get(group_id)
        if drv is None:
            from graphiti_core.driver.falkordb_driver import FalkorDriver

            # made outside the loop: the constructor would otherwise schedule index builds
            drv = FalkorDriver(falkor_db=self._db, database=group_id)
            self._drivers[group_id] = drv
        return drv


async def _make[T](factory: Callable[[], T]) -> T:
    # made inside the runner's loop, so its connections belong to that loop
    return factory()


async def _await[T](awaitable: Awaitable[T]) -> T:
    return await awaitable
