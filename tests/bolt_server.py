"""A throwaway ArcadeDB server with the Bolt plugin, for testing the neo4j backend.

ArcadeDB (PyPI ``arcadedb-embedded``) runs its Java server inside the Python process
that starts it (JPype). We start it in a *child* Python process instead, so that:

* the JVM (~1 GB of address space, its own threads, its logging to stdout/stderr and
  to ``./log`` relative to the working directory) stays out of the pytest process;
* its output goes to a log file in the temp root, not into the test output;
* it can always be stopped: the child stops the server when its stdin closes (that is,
  when the parent stops it or dies), and the parent kills it if it does not exit.

Ports: the Bolt and HTTP ports are free loopback ports picked by the OS (bind to port 0),
and the server binds to 127.0.0.1 only. ArcadeDB's HTTP plugin otherwise reserves an
HTTPS port from the fixed default range 2490-2499 (it only opens it when SSL is enabled,
but the range is shared by every server); we set ``server.httpsIncomingPort`` to an empty
value, which disables the HTTPS listener altogether, so parallel servers cannot collide.

Usage::

    with bolt_server() as srv:          # srv: BoltServer(uri, user, password, database, http_url)
        driver = neo4j.GraphDatabase.driver(srv.uri, auth=(srv.user, srv.password))
        run_sql(srv, "CREATE VERTEX TYPE Entity IF NOT EXISTS")

The child is this very file run as a script (``python bolt_server.py --child CONFIG``);
the test side needs only the standard library.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = [
    "ArcadeSQLError",
    "BoltServer",
    "BoltServerProcess",
    "bolt_server",
    "create_database",
    "drop_database",
    "free_port",
    "rss_bytes",
    "run_sql",
    "server_command",
    "start_bolt_server",
]

DEFAULT_USER = "root"
DEFAULT_PASSWORD = "graphmem-test-pw"  # ArcadeDB wants >= 8 characters
DEFAULT_DATABASE = "graphmem"
DEFAULT_HEAP = "1g"
READY_FILE = "ready.json"
LOG_FILE = "server.log"


@dataclass(frozen=True)
class BoltServer:
    """Where a running test server is and how to log in."""

    uri: str  # bolt://127.0.0.1:<port>
    user: str
    password: str
    database: str  # pass as database_=... / session(database=...)
    http_url: str  # http://127.0.0.1:<port> (ArcadeDB HTTP API, for run_sql)
    # Not needed to connect; useful for diagnostics.
    pid: int = 0  # the child process holding the JVM
    root: str = ""  # server root dir (databases, config, logs)
    log_path: str = ""  # the JVM's stdout+stderr
    start_seconds: float = 0.0  # spawn -> database created and Bolt listening


class ArcadeSQLError(RuntimeError):
    """An ArcadeDB HTTP command failed; ``status`` is the HTTP status, ``detail`` the body
    (a dict with ``error``, ``exception`` (the Java class) and ``detail`` when JSON)."""

    def __init__(self, status: int, detail: Any, command: str) -> None:
        self.status = status
        self.detail = detail
        self.command = command
        super().__init__(f"ArcadeDB HTTP {status} for {command!r}: {detail}")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _two_free_ports() -> tuple[int, int]:
    # Hold both sockets at once so the OS cannot hand out the same port twice.
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as a,
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as b,
    ):
        a.bind(("127.0.0.1", 0))
        b.bind(("127.0.0.1", 0))
        return int(a.getsockname()[1]), int(b.getsockname()[1])


def _post(server: BoltServer, path: str, body: dict[str, Any], timeout: float, what: str) -> Any:
    token = base64.b64encode(f"{server.user}:{server.password}".encode()).decode()
    req = urllib.request.Request(
        f"{server.http_url}{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Basic {token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            detail: Any = json.loads(raw)
        except ValueError:
            detail = raw.decode(errors="replace")
        raise ArcadeSQLError(e.code, detail, what) from None


def server_command(server: BoltServer, command: str, *, timeout: float = 60.0) -> Any:
    """POST a server command (``create database X``, ``drop database X``...) to /api/v1/server."""
    return _post(server, "/api/v1/server", {"command": command}, timeout, command)


def create_database(server: BoltServer, name: str) -> BoltServer:
    """Create another database on the same server; returns a BoltServer pointing at it.

    Lets a test module keep its own schema (types, indexes) apart from other tests.
    """
    server_command(server, f"create database {name}")
    return replace(server, database=name)


def drop_database(server: BoltServer, name: str | None = None) -> None:
    server_command(server, f"drop database {name or server.database}")


def run_sql(
    server: BoltServer,
    command: str,
    params: dict[str, Any] | None = None,
    *,
    language: str = "sql",
    timeout: float = 60.0,
) -> list[dict[str, Any]]:
    """POST one ArcadeDB command to ``/api/v1/command/<db>``; returns the result rows.

    Raises :class:`ArcadeSQLError` when the server answers with an HTTP error.
    """
    body: dict[str, Any] = {"language": language, "command": command}
    if params:
        body["params"] = params
    payload = _post(server, f"/api/v1/command/{server.database}", body, timeout, command)
    result = payload.get("result", [])
    return result if isinstance(result, list) else [result]


def rss_bytes(pid: int) -> int:
    """Resident set size of a live process (Linux /proc), 0 when unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


@dataclass
class BoltServerProcess:
    """A started server child. ``info`` is the connection data; call ``stop()`` when done."""

    info: BoltServer
    proc: subprocess.Popen[bytes]
    root: Path
    keep_root: bool = False
    _log: Any = field(default=None, repr=False)

    def rss_bytes(self) -> int:
        """Current RSS of the child process (Python + JVM + server)."""
        return rss_bytes(self.proc.pid)

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(Path(self.info.log_path).read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the server (stdin EOF -> child stops it), kill the child if it hangs, clean up."""
        proc = self.proc
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                if proc.stdin:
                    proc.stdin.close()
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()  # only the child we started, by its handle
                proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None
        if not self.keep_root:
            shutil.rmtree(self.root, ignore_errors=True)


def _spawn(
    root: Path,
    *,
    user: str,
    password: str,
    database: str,
    heap: str,
    startup_timeout: float,
    keep_root: bool,
) -> BoltServerProcess:
    bolt_port, http_port = _two_free_ports()
    config = {
        "root": str(root),
        "password": password,
        "database": database,
        "bolt_port": bolt_port,
        "http_port": http_port,
        "heap": heap,
        "cleanup": not keep_root,  # the child removes the root itself once stopped
    }
    log_path = root / LOG_FILE
    ready_path = root / READY_FILE
    log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
    env = dict(os.environ)
    env.setdefault("ARCADEDB_JVM_ERROR_FILE", str(root / "hs_err_pid%p.log"))
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--child", json.dumps(config)],
        stdin=subprocess.PIPE,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=root,  # ArcadeDB writes ./log/arcadedb.log.* relative to the working dir
        env=env,
    )
    info = BoltServer(
        uri=f"bolt://127.0.0.1:{bolt_port}",
        user=user,
        password=password,
        database=database,
        http_url=f"http://127.0.0.1:{http_port}",
        pid=proc.pid,
        root=str(root),
        log_path=str(log_path),
    )
    handle = BoltServerProcess(info=info, proc=proc, root=root, keep_root=True, _log=log)
    deadline = t0 + startup_timeout
    status: dict[str, Any] | None = None
    while True:
        if ready_path.exists():
            try:
                status = json.loads(ready_path.read_text())
            except ValueError:  # being written
                status = None
            if status is not None:
                break
        if proc.poll() is not None:
            status = {"ok": False, "error": f"server child exited with {proc.returncode}"}
            break
        if time.monotonic() > deadline:
            status = {"ok": False, "error": f"server not ready after {startup_timeout:.0f} s"}
            break
        time.sleep(0.05)
    assert status is not None
    if not status.get("ok"):
        tail = handle.log_tail()
        handle.stop(timeout=10)
        raise RuntimeError(f"ArcadeDB Bolt server failed to start: {status.get('error')}\n{tail}")
    handle.info = replace(info, start_seconds=time.monotonic() - t0)
    handle.keep_root = keep_root
    return handle


def start_bolt_server(
    *,
    user: str = DEFAULT_USER,
    password: str = DEFAULT_PASSWORD,
    database: str = DEFAULT_DATABASE,
    heap: str = DEFAULT_HEAP,
    startup_timeout: float = 180.0,
    attempts: int = 3,
    keep_root: bool | None = None,
) -> BoltServerProcess:
    """Start a server child on fresh loopback ports in a fresh temp root; returns its handle.

    Retries with new ports when a start fails (a picked port can be taken in between).
    Set ``GRAPHMEM_BOLT_KEEP=1`` to keep the root dir (database files, logs) afterwards.
    """
    if user != DEFAULT_USER:
        raise ValueError("the test server only has the 'root' user")
    if keep_root is None:
        keep_root = os.environ.get("GRAPHMEM_BOLT_KEEP", "") not in ("", "0")
    last: Exception | None = None
    for _ in range(max(1, attempts)):
        root = Path(tempfile.mkdtemp(prefix="graphmem-arcadedb-"))
        try:
            return _spawn(
                root,
                user=user,
                password=password,
                database=database,
                heap=heap,
                startup_timeout=startup_timeout,
                keep_root=keep_root,
            )
        except RuntimeError as e:
            last = e
            if not keep_root:
                shutil.rmtree(root, ignore_errors=True)
    assert last is not None
    raise last


@contextlib.contextmanager
def bolt_server(**kwargs: Any) -> Iterator[BoltServer]:
    """Context manager form of :func:`start_bolt_server`, yielding the :class:`BoltServer`."""
    handle = start_bolt_server(**kwargs)
    try:
        yield handle.info
    finally:
        handle.stop()


# --------------------------------------------------------------------------- child side


def _child_main(config_json: str) -> int:
    cfg = json.loads(config_json)
    root = Path(cfg["root"])
    ready = root / READY_FILE

    def report(status: dict[str, Any]) -> None:
        tmp = root / (READY_FILE + ".tmp")
        tmp.write_text(json.dumps(status))
        tmp.replace(ready)  # atomic: the parent never reads half a file

    try:
        import arcadedb_embedded as arcadedb
        from arcadedb_embedded.jvm import start_jvm

        # A smaller heap than the package's 4g default; create_server then joins this JVM.
        start_jvm(heap_size=cfg["heap"])
        server = arcadedb.create_server(
            root_path=str(root / "server"),
            root_password=cfg["password"],
            config={
                "host": "127.0.0.1",  # HTTP and every protocol plugin
                "http_port": str(cfg["http_port"]),
                "server_httpsIncomingPort": "",  # no HTTPS listener, no 2490-2499 range
                "server_plugins": "Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
                "bolt_port": int(cfg["bolt_port"]),
                "server_logsDirectory": str(root / "log"),
            },
        )
        server.start()
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        report({"ok": False, "error": f"{type(e).__name__}: {e}"})
        return 1
    try:
        server.create_database(cfg["database"])
        report({"ok": True, "pid": os.getpid()})
        sys.stdout.flush()
        # Block until the parent closes our stdin (stop() or parent death).
        while sys.stdin.buffer.read(65536):
            pass
    except BaseException as e:  # noqa: BLE001
        if not ready.exists():
            report({"ok": False, "error": f"{type(e).__name__}: {e}"})
    finally:
        with contextlib.suppress(Exception):
            server.stop()
        if cfg.get("cleanup"):
            # Also covers a parent that died without calling stop().
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        # Exit hard after the server is stopped: the JVM's shutdown can linger otherwise.
        code = _child_main(sys.argv[2])
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    # Manual use: start a server, print its coordinates, stop on Enter.
    handle = start_bolt_server()
    print(json.dumps(asdict(handle.info), indent=2))
    print(f"RSS {handle.rss_bytes() / 2**20:.0f} MiB; press Enter to stop")
    try:
        input()
    finally:
        handle.stop()
