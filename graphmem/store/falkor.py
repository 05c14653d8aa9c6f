"""The embedded store: FalkorDB run from the ``falkordblite`` package, data in a directory.

Durability: an append-only log (``appendfsync everysec`` by default, ``always`` on request)
plus a snapshot on close. Atomicity: a write plan is sent as one query, which FalkorDB applies
whole or rolls back (see ``apply``); a command cut short in the log is dropped on load.

Tenants: every user has a graph of their own (FalkorDB holds many graphs in one server),
named from a hash of the userId (``tenant_graph``), with its own indexes, so a user's
vector, full-text and graph queries only ever see that user's nodes, and how well or fast
they work does not depend on who else is stored. A user's graph is made (indexes and a
``:Tenant {userId}`` owner node) by their first write; a read for a user without a graph
answers empty without making one. The ``userId`` properties and filters stay as a second
line of defence. A data directory from before (one graph shared by all users) is copied
user by user into tenant graphs when it is opened (``_falkor_migrate``).
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import re
import signal
import threading
import time
from pathlib import Path
from typing import Any

from graphmem.errors import ConflictError, GraphMemError, UnavailableError
from graphmem.store._falkor_migrate import migrate_shared_graph
from graphmem.store._fulltext import CorpusStats, upgrade_falkor_graph, wait_for_indexes
from graphmem.store._fulltext import search as fulltext_bm25
from graphmem.store._plan import one_query, plan_steps
from graphmem.store._reads import SIZE_TTL_S, CypherReads
from graphmem.store.base import Hit, Row, WritePlan
from graphmem.store.queries import PASSAGE, Queries

log = logging.getLogger(__name__)

_RDB_NAME = "graphmem.rdb"
LOCK_NAME = ".graphmem.lock"
#: the most of a user's nodes one full-text word contributes (see ``fulltext_search``)
FULLTEXT_TERM_CAP = 200


def tenant_graph(prefix: str, user_id: str) -> str:
    """The graph holding ``user_id``'s memory: ``<prefix>:u_`` + 32 hex digits of SHA-256.

    Safe as a key whatever the userId holds; a collision (2^-64 for a billion users) is
    caught by the graph's owner node.
    """
    digest = hashlib.sha256(user_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}:u_{digest[:32]}"


#: A user with at most this many nodes of a label is searched by exact cosine over them
#: (``cypher/falkordb/vector_exact.cypher``); above it, through the HNSW index of their
#: graph. Measured here, 384-d, top 160, p50: exact over 1,000 / 5,000 / 20,000 nodes
#: 1.1 / 3.1 / 12.1 ms, the index asked for 320 1.0 / 1.5 / 2.0 ms; a whole recall for a
#: user of 10,000 relations (``bench/scale.py --sizes 1000,10000 --embedder hashing``)
#: p50 / p95 16 / 23 ms through the indexes, 30 / 37 ms exact.
EXACT_SCAN_MAX = 10_000
# the graph degree and search breadth a vector index statement of schema.cypher sets
_INDEX_OPTION = re.compile(r"\b(M|efRuntime|efConstruction): (\d+)")


class FalkorStore(CypherReads):
    """FalkorDB embedded (falkordblite): one data directory, one graph per user."""

    name = "embedded"

    def __init__(self, data_dir: Path, *, graph: str = "graphmem", dim: int = 384,
                 fsync: str = "everysec", start_timeout_s: float = 1800.0,
                 query_timeout_s: float = 300.0) -> None:
        self._dir = Path(data_dir)
        self._start_timeout = start_timeout_s
        self._query_timeout = query_timeout_s
        # the prefix of the tenant graphs' names; before them, the name of the one graph
        self._graph_name = graph
        self._dim = dim
        self._fsync = fsync
        self._q = Queries("falkordb")
        self._db: Any = None
        self._handles: dict[str, Any] = {}  # graph name -> client handle
        self._exists: set[str] = set()  # tenant graphs the server has
        self._ready: set[str] = set()  # ... whose indexes and owner were checked since open
        self._lock = threading.RLock()
        self._lock_file: Any = None
        self._dir_fd: int | None = None
        self._ft_stats = CorpusStats()  # BM25's corpus size and length per (label, user)
        self._versions: dict[str, int] = {}  # userId -> plans applied since open
        self._sizes: dict[tuple[str, str], tuple[int, float]] = {}  # see _label_size
        self._indexed: set[tuple[str, str]] = set()
        self._mixed: dict[tuple[str, str], float] = {}  # exact scan failed at (monotonic)

    # ------------------------------------------------------------------ lifecycle

    def _exec(self, text: str, params: dict[str, Any]) -> list[Any]:
        return self._query(text, params)

    def vector_search(self, label: str, user_id: str, vector: list[float],
                      k: int) -> list[Hit]:
        """The user's ``k`` nearest ``label`` nodes: exact cosine over them up to
        ``EXACT_SCAN_MAX`` of them, else through the index (``CypherReads``)."""
        key = (label, user_id)
        mixed = self._mixed.get(key)
        if (mixed is None or time.monotonic() - mixed >= SIZE_TTL_S) \
                and self._label_size(label, user_id, EXACT_SCAN_MAX) <= EXACT_SCAN_MAX:
            try:
                rows = self._exec(self._q.get("vector_exact", label=label),
                                  {"userId": user_id, "vector": vector, "k": k})
            except UnavailableError:
                # vectors of another length (an embedder changed, `graphmem reembed` not
                # finished) fail the scan; the index holds only those of its own length
                if len(self._mixed) >= 65_536:
                    self._mixed.clear()
                self._mixed[key] = time.monotonic()
                log.info("exact vector search failed for a user's %s nodes; the index "
                         "answers for %.0f s", label, SIZE_TTL_S)
            else:
                self._mixed.pop(key, None)
                return [Hit(str(r[0]), float(r[1])) for r in rows]
        return super().vector_search(label, user_id, vector, k)

    def open(self) -> None:
        try:
            from redislite.falkordb_client import FalkorDB
        except ImportError as e:  # pragma: no cover - install problem
            raise UnavailableError("falkordblite is not installed") from e
        self._q.load()
        self._dir.mkdir(parents=True, exist_ok=True)
        self._lock_dir()
        # Holding the lock, any server still working in the directory is a leftover.
        _reap_stale_server(self._dir)
        # With no live server left for this directory, redislite's registry of a running
        # server is stale (a killed server can linger as a zombie that still "runs").
        (self._dir / f"{_RDB_NAME}.settings").unlink(missing_ok=True)
        on_disk = _disk_bytes(self._dir)
        if on_disk > 50_000_000:
            # The server rebuilds every index (vectors too) before it answers: minutes for
            # a few hundred thousand nodes on a small machine.
            log.info("loading the embedded store in %s (%d MB on disk): this can take a "
                     "while", self._dir, on_disk // 1_000_000)
        started = time.monotonic()
        try:
            self._db = FalkorDB(str(self._dir / _RDB_NAME), serverconfig={
                "appendonly": "yes", "appendfsync": self._fsync,
                "aof-load-truncated": "yes"}, socket_timeout=self._start_timeout)
        except Exception as e:
            self._unlock_dir()
            raise UnavailableError(f"cannot start the embedded store in {self._dir}: {e}") from e
        if on_disk > 50_000_000:
            log.info("embedded store loaded in %.0f s", time.monotonic() - started)
        # Loading may take long; a query may not: later connections get the query timeout.
        pool = self._db.client.connection_pool
        pool.connection_kwargs["socket_timeout"] = self._query_timeout
        pool.disconnect()
        self._handles, self._ready = {}, set()
        try:
            if self._graph_name in self._graph_names():
                self._migrate()
            self._exists = set(self._tenant_names())
            for name in sorted(self._exists):
                # full text over analysed terms: old indexes remade, old nodes filled
                filled = upgrade_falkor_graph(self._handle(name), self._q, self._create_indexes,
                                              self._start_timeout)
                if filled:
                    log.info("full-text terms made for %d nodes of %s", filled, name)
                # a graph made before passages existed has no index for them: recall
                # searches it before the user's next write would make it
                self._create_indexes(self._handle(name), only=PASSAGE)
        except BaseException:
            self.close()  # stop the server and free the directory; the data stays as it was
            raise

    def close(self) -> None:
        with self._lock:
            if self._db is None:
                return
            try:
                _shutdown(self._db.client)
                self._db.close()
            finally:
                self._db = None
                self._handles, self._exists, self._ready = {}, set(), set()
                self._unlock_dir()

    def _lock_dir(self) -> None:
        """One process owns a data directory: an exclusive lock on the directory itself.

        The directory, not only a file in it: a lock file deleted by hand would let a second
        process lock a fresh one and then stop the first one's live server as a leftover.
        The lock file still names the owner for the message.
        """
        dir_fd = os.open(self._dir, os.O_RDONLY | os.O_DIRECTORY)  # not inherited
        handle: Any = None
        try:
            fcntl.flock(dir_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            handle = open(self._dir / LOCK_NAME, "a+", encoding="utf-8")  # noqa: SIM115
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(dir_fd)
            if handle is not None:
                handle.close()
            raise UnavailableError(
                f"the data directory {self._dir} is in use by {_lock_holder(self._dir)}; "
                f"stop it, or talk to the running server with --url") from None
        except BaseException:
            os.close(dir_fd)
            raise
        self._dir_fd = dir_fd
        handle.seek(0)
        handle.truncate()
        handle.write(f"graphmem pid {os.getpid()}\n")
        handle.flush()
        self._lock_file = handle

    def _unlock_dir(self) -> None:
        handle, self._lock_file = self._lock_file, None
        if handle is not None:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
        dir_fd, self._dir_fd = self._dir_fd, None
        if dir_fd is not None:
            os.close(dir_fd)  # releases the directory's lock

    def ensure_schema(self) -> None:
        """Indexes live in each user's graph and are made by the user's first write; this
        has every graph's indexes checked again (idempotently) on its next write."""
        with self._lock:
            self._ready = set()

    def _create_indexes(self, graph: Any, only: str | None = None) -> None:
        """One graph's indexes (``only``: those of that label); safe to run again (existing
        ones are left as they are)."""
        for stmt in self._q.statements("schema", dim=self._dim):
            if only is not None and f"(n:{only})" not in stmt:
                continue
            try:
                graph.query(stmt)
            except Exception as e:
                text = str(e).lower()
                if "already" in text or "exists" in text:
                    continue  # FalkorDB has no IF NOT EXISTS: re-running is the normal case
                raise GraphMemError(f"schema bootstrap failed: {e}") from e
        # FalkorDB builds indexes in the background, and a vector query meeting one still
        # being built fails ("Invalid arguments"): wait until they are all built.
        wait_for_indexes(graph, self._q, self._start_timeout)

    # ------------------------------------------------------------------ tenants

    def _tenant_for_read(self, user_id: str) -> Any | None:
        """The user's graph, or None when the user has none (nothing is made)."""
        name = tenant_graph(self._graph_name, user_id)
        if name not in self._exists:
            # A first write makes the graph holding the lock, and the graph is on the
            # server from its first index on: wait for it rather than read it half made.
            with self._lock:
                if name not in self._exists:
                    # Asked of the server, not only of the cache: a read always reaches it.
                    if not self._server(lambda db: db.connection.exists(name)):
                        return None
                    self._exists.add(name)
        return self._handle(name)

    def _tenant_for_write(self, user_id: str) -> str:
        """The user's graph, made (indexes, owner node) by the first write since open."""
        name = tenant_graph(self._graph_name, user_id)
        if name in self._ready:
            return name
        with self._lock:
            if name in self._ready:
                return name
            graph = self._handle(name)
            self._create_indexes(graph)
            rows = self._run(graph, self._q.get("tenant_mark"),
                             {"userId": user_id, "at": int(time.time() * 1000)}, False)
            if not rows or rows[0][0] != user_id:
                raise GraphMemError(f"the graph {name} belongs to another user")
            self._exists.add(name)
            self._ready.add(name)
        return name

    def tenants(self) -> dict[str, str | None]:
        """Every tenant graph's name and owner (None: a graph with no owner node)."""
        from graphmem.store._falkor_migrate import target_state

        out: dict[str, str | None] = {}
        for name in self._tenant_names():
            state = target_state(self._handle(name), self._q)
            out[name] = state[0] if state else None
        return out

    def user_ids(self) -> list[str]:
        """Every user with a graph in this store (``GRAPH.LIST`` and each owner node)."""
        return sorted(u for u in self.tenants().values() if u is not None)

    def _migrate(self) -> None:
        def delete(name: str) -> None:
            if self._server(lambda db: db.connection.exists(name)):
                self._server(lambda db: db.connection.execute_command("GRAPH.DELETE", name))

        migrate_shared_graph(
            shared_name=self._graph_name, graph=self._handle,
            tenant_name=lambda u: tenant_graph(self._graph_name, u),
            exists=lambda n: bool(self._server(lambda db: db.connection.exists(n))),
            delete_graph=delete, prepare=self._create_indexes, queries=self._q,
            now_ms=lambda: int(time.time() * 1000))

    # ------------------------------------------------------------------ plumbing

    def _server(self, call: Any) -> Any:
        """``call(db)`` on the open server, its failures as ``UnavailableError``."""
        db = self._db
        if db is None:
            raise UnavailableError("the embedded store is not open")
        try:
            return call(db)
        except Exception as e:
            raise UnavailableError(f"embedded store query failed: {type(e).__name__}") from e

    def _graph_names(self) -> list[str]:
        return [n.decode() if isinstance(n, bytes) else str(n)
                for n in self._server(lambda db: db.connection.execute_command("GRAPH.LIST"))]

    def _tenant_names(self) -> list[str]:
        prefix = f"{self._graph_name}:u_"
        return sorted(n for n in self._graph_names()
                      if n.startswith(prefix) and len(n) == len(prefix) + 32)

    def _handle(self, name: str) -> Any:
        handle = self._handles.get(name)
        if handle is None:
            handle = self._handles[name] = self._server(lambda db: db.select_graph(name))
        return handle

    def _query(self, text: str, params: dict[str, Any] | None = None,
               read_only: bool = True) -> list[list[Any]]:
        """Run a query on the graph of the user named by its ``userId`` parameter.

        Every query names its user: one without cannot run, so no query reaches two users'
        nodes. A read for a user without a graph answers no rows.
        """
        params = params or {}
        user_id = params.get("userId")
        if not isinstance(user_id, str):
            raise GraphMemError("a store query without a userId has no graph to run on")
        if read_only:
            graph = self._tenant_for_read(user_id)
            if graph is None:
                return []
        else:
            graph = self._handle(self._tenant_for_write(user_id))
        return self._run(graph, text, params, read_only)

    def _run(self, graph: Any, text: str, params: dict[str, Any],
             read_only: bool = True) -> list[list[Any]]:
        if self._db is None:
            raise UnavailableError("the embedded store is not open")
        try:
            if read_only:
                res = graph.ro_query(text, params)
            else:
                res = graph.query(text, params)
        except Exception as e:
            raise UnavailableError(f"embedded store query failed: {type(e).__name__}") from e
        return list(res.result_set)

    # ------------------------------------------------------------------ writes

    def apply(self, plan: WritePlan) -> None:
        """The whole plan as one ``GRAPH.QUERY``: FalkorDB runs a query under the graph's
        write lock and, when any part of it fails, undoes what the query had changed."""
        if plan.is_empty():
            return
        text = self._plan_commands(plan)
        from redis.exceptions import ResponseError

        with self._lock:
            if self._db is None:
                raise UnavailableError("the embedded store is not open")
            # One process owns the data directory, so the version kept here is the truth.
            current = self._versions.get(plan.user_id, 0)
            if plan.base_version is not None and plan.base_version != current:
                raise ConflictError("another write of this user landed since the plan was made")
            graph = self._tenant_for_write(plan.user_id)  # the plan's user's graph only
            try:
                reply = self._db.connection.execute_command(
                    "GRAPH.QUERY", graph, text, "--compact")
            except ResponseError as e:
                raise GraphMemError(f"embedded store rejected a write: {e}") from e
            except Exception as e:
                raise UnavailableError(f"embedded store write failed: {type(e).__name__}") from e
            # An error met while running comes back as the reply's last element.
            if isinstance(reply, list) and reply and isinstance(reply[-1], Exception):
                raise GraphMemError(f"embedded store rejected a write: {reply[-1]}")
            self._versions[plan.user_id] = current + 1

    def write_version(self, user_id: str) -> int:
        with self._lock:
            return self._versions.get(user_id, 0)

    def _plan_commands(self, plan: WritePlan) -> str:
        """The plan's one query, parameters in its ``CYPHER`` header."""
        text, params = one_query(plan_steps(self._q, plan))
        return _with_params(text, params)

    def bump_access(self, label: str, user_id: str, rows: list[Row]) -> None:
        if rows:
            with self._lock:
                self._query(self._q.get("bump_access", label=label),
                            {"rows": rows, "userId": user_id},
                            read_only=False)

    # ------------------------------------------------------------------ vector indexes

    def vector_index_dim(self, user_id: str, label: str) -> int | None:
        """The dimension of the vector index on the user's graph for ``label``."""
        options = self._vector_index_options(user_id, label)
        return int(options.get("dimension") or 0) or None if options is not None else None

    def vector_index_outdated(self, user_id: str, label: str) -> bool:
        """Was the user's ``label`` vector index made with a smaller ``M`` or ``efRuntime``
        than ``schema.cypher`` makes now (a store made before 16 / 10 became 32 / 200)?"""
        options = self._vector_index_options(user_id, label)
        if options is None:
            return False
        wanted = {k: int(v) for k, v in _INDEX_OPTION.findall(" ".join(
            st for st in self._q.statements("schema", dim=1)
            if st.startswith(f"CREATE VECTOR INDEX FOR (n:{label})")))}
        return any(int(options.get(k) or 0) < v for k, v in wanted.items())

    def _vector_index_options(self, user_id: str, label: str) -> dict[str, Any] | None:
        """The options of the user's ``label`` vector index (None: no such index)."""
        graph = self._tenant_for_read(user_id)
        if graph is None:
            return None
        rows = self._run(graph, self._q.get("vector_indexes"), {})
        for row_label, types, options in rows:
            if row_label == label and "VECTOR" in (types or {}).get("embedding", []):
                return dict((options or {}).get("embedding") or {})
        return None

    def rebuild_vector_index(self, user_id: str, label: str, dim: int) -> None:
        """Drop the user's vector index of ``label`` and make it for ``dim`` dimensions;
        waits until it is built."""
        create = [st for st in self._q.statements("schema", dim=dim)
                  if st.startswith(f"CREATE VECTOR INDEX FOR (n:{label})")]
        drop = self._q.get("drop_vector_index", label=label)
        with self._lock:
            had = self.vector_index_dim(user_id, label) is not None
            graph = self._handle(self._tenant_for_write(user_id))
            try:
                if had:
                    graph.query(drop)
                for stmt in create:
                    graph.query(stmt)
            except Exception as e:
                raise GraphMemError(f"cannot make the {label} vector index again: {e}") from e
            wait_for_indexes(graph, self._q, self._start_timeout)

    # ------------------------------------------------------------------ reads

    def fulltext_search(self, label: str, user_id: str, text: str, k: int) -> list[Hit]:
        """Okapi BM25 over the user's analysed ``terms`` (``_fulltext``): the index finds
        the nodes holding each question term, at most ``max(FULLTEXT_TERM_CAP, 5k)`` per
        term (a word in thousands of them says little about any one)."""
        return fulltext_bm25(self._query, self._q, self._ft_stats, label, user_id, text, k,
                             max(FULLTEXT_TERM_CAP, 5 * k))


# ---------------------------------------------------------------------- helpers



def _with_params(text: str, params: dict[str, Any]) -> str:
    """FalkorDB takes parameters as a ``CYPHER name=value ...`` header on the query."""
    from falkordb.helpers import stringify_param_value

    header = " ".join(f"{k}={stringify_param_value(v)}" for k, v in params.items())
    return f"CYPHER {header} {text}" if header else text




def _shutdown(client: Any, timeout_s: float = 30.0) -> None:
    """Save and stop the server, and wait until it has really exited.

    redislite's own close waits on ``psutil.is_running``, which stays true for a stopped
    daemon nobody has reaped yet (a zombie), costing seconds per close; /proc says better.
    """
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    pid = client.pid
    try:
        # No retries: the server drops the connection as it stops, which the client would
        # otherwise retry ten times with back-off (3.6 s per close).
        client.set_retry(Retry(NoBackoff(), 0))
        client.shutdown(save=True, now=True, force=True)
    except Exception:  # the server closes the connection as it stops
        pass
    if not pid:
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and _running(pid):
        time.sleep(0.02)


def _disk_bytes(data_dir: Path) -> int:
    """Bytes the server will load: the snapshot and the append-only log."""
    total = 0
    for path in [data_dir / _RDB_NAME, *data_dir.glob("appendonlydir/*")]:
        try:
            total += path.stat().st_size
        except OSError:
            pass
    return total


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _lock_holder(data_dir: Path) -> str:
    try:
        return (data_dir / LOCK_NAME).read_text(encoding="utf-8").strip() or "another process"
    except OSError:
        return "another process"


def _reap_stale_server(data_dir: Path, timeout_s: float = 15.0) -> None:
    """Stop a server left running by a process that died without closing the store.

    falkordblite starts redis-server as a daemon working in the data directory; a hard exit
    of the owning process leaves it alive, holding the files. It is asked to stop (it then
    writes its log and snapshot) before a fresh one is started. Linux: found through /proc.
    """
    target = data_dir.resolve()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if b"redis-server" not in (proc / "cmdline").read_bytes():
                continue
            if Path(os.readlink(proc / "cwd")).resolve() != target:
                continue
            pid = int(proc.name)
        except (OSError, ValueError):
            continue
        log.warning("stopping a stale embedded store server (pid %d)", pid)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
            time.sleep(0.05)
