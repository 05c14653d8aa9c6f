"""The ``graphmem`` command: serve, schema, ingest, recall, export, import,
import-graphiti, check, reflect, reembed, mcp, demo.

Settings come from ``GRAPHMEM_*`` environment variables (and a ``.env`` file); command-line
flags override them. Commands other than ``serve`` open the store in-process: on the
embedded store a data directory serves one process at a time, so they refuse a directory
a running server holds (use ``--url`` to talk to that server instead).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import asdict, is_dataclass
from datetime import date, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from graphmem import __version__
from graphmem.errors import GraphMemError, InvalidInputError
from graphmem.settings import Settings

log = logging.getLogger("graphmem.cli")



# --------------------------------------------------------------------------- settings & store


def settings_from(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    for name in ("host", "port", "data_dir", "store", "embedder", "extractor"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = value
    return Settings(**overrides)


@contextlib.contextmanager
def open_service(settings: Settings) -> Iterator[Any]:
    from graphmem.bootstrap import build_service

    service = build_service(settings)
    service.open()  # the embedded store takes the data directory's lock here
    try:
        yield service
    finally:
        service.close()


# --------------------------------------------------------------------------- commands


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from graphmem.api.app import create_app
    from graphmem.api.security import KeyRing, is_loopback

    settings = settings_from(args)
    if args.insecure_no_auth:
        settings = settings.model_copy(update={"insecure_no_auth": True})
    if not is_loopback(settings.host) \
            and not KeyRing(settings.api_keys, settings.api_keys_file).load().enabled:
        exposed = (f"listening on {settings.host} with no API key: anyone who can reach port "
                   f"{settings.port} reads and writes every user's memory")
        if not settings.insecure_no_auth:
            print(f"graphmem serve: refusing to start, {exposed}. Set GRAPHMEM_API_KEYS or "
                  f"GRAPHMEM_API_KEYS_FILE, or listen on 127.0.0.1 (--host), or pass "
                  f"--insecure-no-auth (GRAPHMEM_INSECURE_NO_AUTH=true) to serve it open "
                  f"anyway.", file=sys.stderr, flush=True)
            return 2
        print(f"graphmem serve: WARNING: {exposed} (--insecure-no-auth).", file=sys.stderr,
              flush=True)
    app = create_app(settings, settle=True)
    where = (f"data dir {Path(settings.data_dir).resolve()}" if settings.store == "embedded"
             else settings.neo4j_uri)
    print(f"graphmem {__version__}: http://{settings.host}:{settings.port}/graphql "
          f"(store: {settings.store}, {where}, embedder: {settings.embedder})",
          file=sys.stderr, flush=True)
    # uvicorn turns SIGTERM/SIGINT into a graceful shutdown: in-flight requests finish,
    # then the lifespan closes the store (which saves it).
    config = uvicorn.Config(app, host=settings.host, port=settings.port, lifespan="on",
                            log_level=args.log_level, timeout_graceful_shutdown=15,
                            access_log=args.access_log)
    server = uvicorn.Server(config)
    # uvicorn re-raises the signal that stopped it once it has shut down; a SIGTERM that
    # ended in a clean shutdown is a normal exit (status 0) for process supervisors.
    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        server.run()
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0 if server.started else 1


def cmd_schema(args: argparse.Namespace) -> int:
    from graphmem.api.schema import sdl

    text = sdl()
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    from graphmem._cli_ingest import ingest

    settings = settings_from(args)
    return ingest(args, settings)


def cmd_recall(args: argparse.Namespace) -> int:
    from graphmem.inputs import RecallIn
    from graphmem.timeparse import parse_timestamp

    as_of = parse_timestamp(args.as_of, field="--as-of") if args.as_of else None
    known_at = parse_timestamp(args.known_at, field="--known-at") if args.known_at else None
    if args.url:
        data = _remote_recall(args, as_of, known_at)
        if args.json:
            print(json.dumps(data, indent=2, ensure_ascii=False))
        else:
            _print_items(data["items"], data.get("conflicts", []), data.get("temporalWindow"))
        return 0
    settings = settings_from(args)
    q = RecallIn(user_id=args.user, query=args.query, as_of=as_of, known_at=known_at,
                 limit=args.limit, scope=args.scope,
                 session_id=args.session).validated(settings.max_content_chars)  # before opening
    with open_service(settings) as service:
        result = service.recall(q)
    data = to_jsonable(result)
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        _print_items(data["items"], data["conflicts"], data["temporal_window"])
    return 0


def _remote_recall(args: argparse.Namespace, as_of: datetime | None,
                   known_at: datetime | None) -> dict[str, Any]:
    from graphmem.client import GraphMemClient

    with GraphMemClient(args.url, api_key=args.api_key) as client:
        result = client.recall(args.user, args.query, limit=args.limit, as_of=as_of,
                               known_at=known_at, scope=args.scope, session_id=args.session)
    data: dict[str, Any] = result.model_dump(mode="json", by_alias=True)
    return data


def graphql_request(url: str, query: str, variables: dict[str, Any],
                    api_key: str | None, timeout: float = 60.0) -> dict[str, Any]:
    """POST one GraphQL operation through ``graphmem.client`` (retries on 429/503 and
    refused connections); its ``data``, or the client's typed error (a GraphMemError;
    a refused input is an InvalidInputError naming the field)."""
    from graphmem.client import GraphMemClient

    with GraphMemClient(url, api_key=api_key, timeout=timeout) as client:
        data: dict[str, Any] = client.execute(query, variables)
    return data


def _print_items(items: list[dict[str, Any]], conflicts: list[dict[str, Any]],
                 window: dict[str, Any] | None) -> None:
    if window:
        print(f"time window: {window.get('start')} .. {window.get('end')} "
              f"({window.get('phrase') or window.get('kind')})")
    if not items:
        print("(nothing recalled)")
    for rank, it in enumerate(items, start=1):
        when = _when(it)
        refs = ", ".join(s.get("source_ref") or s.get("sourceRef") or s["id"]
                         for s in it.get("sources", [])[:3])
        print(f"{rank:>2}. [{it['kind'][:3].lower()}] {it['score']:>8.3f}  {when}"
              f"{'  ' + it['status'] if it['status'] != 'ACTIVE' else ''}")
        print(f"    {it['text'][:300]}")
        if refs:
            print(f"    sources: {refs}")
    for c in conflicts:
        print(f"conflict: {c['warning']} ({', '.join(c['ids'])})")


def _when(it: dict[str, Any]) -> str:
    vf = it.get("valid_from") or it.get("validFrom")
    vu = it.get("valid_until") or it.get("validUntil")
    oc = it.get("occurred_at") or it.get("occurredAt")
    if vf:
        return f"{str(vf)[:10]} .. {str(vu)[:10] if vu else 'now'}"
    return str(oc)[:10] if oc else ""


def cmd_export(args: argparse.Namespace) -> int:
    from graphmem.transfer import export_user

    settings = settings_from(args)
    with open_service(settings) as service:
        if args.out:
            tmp = Path(args.out).with_suffix(Path(args.out).suffix + ".part")
            with open(tmp, "w", encoding="utf-8") as f:
                summary = export_user(service, args.user, f, scope=args.scope,
                                      session_id=args.session)
            tmp.replace(args.out)
        else:
            summary = export_user(service, args.user, sys.stdout, scope=args.scope,
                                  session_id=args.session)
    print(f"exported {summary.describe()}", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from graphmem.transfer import import_file, validate_export

    settings = settings_from(args)
    validate_export(Path(args.file))  # a bad file fails before the store is opened
    with open_service(settings) as service:
        summary = import_file(service, Path(args.file),
                              progress=lambda m: print(m, file=sys.stderr, flush=True))
    print(f"imported {summary.describe()}", file=sys.stderr)
    return 0


def cmd_import_graphiti(args: argparse.Namespace) -> int:
    from graphmem._graphiti_import import import_graphiti, parse_user_map
    from graphmem.store._graphiti import GraphitiSource

    user_map = parse_user_map(args.user_map or [])
    settings = settings_from(args)
    source = GraphitiSource(falkordb_file=args.falkordb_file, falkordb_url=args.falkordb_url,
                            neo4j_uri=args.neo4j_uri, neo4j_user=args.neo4j_user,
                            neo4j_password=args.neo4j_password,
                            neo4j_database=args.neo4j_database)
    with source, open_service(settings) as service:
        reports = import_graphiti(service, source, groups=args.group, user_map=user_map,
                                  dry_run=args.dry_run, out_dir=args.out_dir,
                                  progress=lambda m: print(m, file=sys.stderr, flush=True))
    failed = [r for r in reports if r.status == "failed"]
    done = "checked (dry run, nothing written)" if args.dry_run else "done"
    print(f"graphmem import-graphiti: {len(reports)} group(s) {done}, {len(failed)} failed",
          file=sys.stderr)
    return 1 if failed else 0


def cmd_reflect(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    with open_service(settings) as service:
        result = service.reflect(args.user, args.scope)
        current = service.abstractions(args.user, scope=args.scope)
    if args.json:
        print(json.dumps({"changed": to_jsonable(result.changed),
                          "abstractions": to_jsonable(current)}, ensure_ascii=False, indent=2))
        return 0
    print(f"{len(result.written)} new or re-versioned, {len(result.closed)} closed, "
          f"{len(current)} current ({result.patterns} patterns looked at)")
    for a in current:
        conditions = f" [{'; '.join(a.conditions)}]" if a.conditions else ""
        print(f"- {a.conclusion}{conditions}  (confidence {a.confidence:.2f}, v{a.version}, "
              f"{a.status.value}, {len(a.source_ids)} sources, {a.id})")
    return 0


def cmd_gc(args: argparse.Namespace) -> int:
    from graphmem.model import MemoryKind
    from graphmem.timeparse import parse_timestamp

    older = parse_timestamp(args.older_than, field="--older-than") if args.older_than else None
    kinds = [MemoryKind(k.upper()) for k in args.kinds] if args.kinds else None
    settings = settings_from(args)
    with open_service(settings) as service:
        report = service.lifecycle.gc(args.user, dry_run=not args.apply, kinds=kinds,
                                      max_importance=args.max_importance, limit=args.limit,
                                      older_than=older, session_id=args.session,
                                      scope=args.scope)
    if args.json:
        print(json.dumps(to_jsonable(report), ensure_ascii=False, indent=2))
        return 0
    did = "forgot" if not report.dry_run else "would forget (dry run: --apply to do it)"
    print(f"scanned {report.scanned}; {did} {len(report.candidates)} below importance "
          f"{report.threshold:.2f}; kept {len(report.kept)}; {report.remaining} more past "
          f"--limit")
    for item in report.candidates:
        print(f"- {item.importance:.3f} {item.kind.value.lower()} {item.id}: {item.text[:80]}")
    for item in report.kept:
        print(f"  kept {item.id} ({item.reason})")
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def cmd_reembed(args: argparse.Namespace) -> int:
    from graphmem._reembed import add_passages, reembed
    from graphmem.bootstrap import build_embedder_from
    from graphmem.store.factory import build_store

    settings = settings_from(args)
    if args.model is not None:
        settings = settings.model_copy(update={"embedder": args.model})
    if args.passages and not settings.passages:
        raise GraphMemError("--passages: passages are off (GRAPHMEM_PASSAGES=false)")
    embedder = build_embedder_from(settings.model_copy(update={"embedding_cache": 0}))
    store = build_store(settings)
    store.open()

    def progress(message: str) -> None:
        print(f"graphmem reembed: {message}", file=sys.stderr, flush=True)

    try:
        users = args.user or store.user_ids()  # type: ignore[attr-defined]
        report = reembed(store, embedder, users, batch=args.batch, dry_run=args.dry_run,
                         progress=None if args.dry_run else progress)
        added = add_passages(store, embedder, users, batch=args.batch, dry_run=args.dry_run,
                             progress=None if args.dry_run else progress) \
            if args.passages else None
    finally:
        store.close()
    print(report.describe())
    if added is not None:
        print(added.describe())
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from graphmem._cli_mcp import run_stdio_remote
        from graphmem.mcp_server import run_stdio
    except ImportError:
        print("graphmem mcp: the MCP server needs the mcp package: "
              "pip install 'graphmem[mcp]'", file=sys.stderr)
        return 2
    if args.url:  # no store here: every call goes to the server
        run_stdio_remote(args.url, api_key=args.api_key, default_user=args.user)
        return 0
    settings = settings_from(args)
    with open_service(settings) as service:
        run_stdio(service, default_user=args.user)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    import time

    from graphmem.check import check_store
    from graphmem.store.factory import build_store

    settings = settings_from(args)
    store = build_store(settings)
    store.open()
    last = [time.monotonic()]

    def progress(message: str) -> None:
        if time.monotonic() - last[0] >= 2.0:  # a big store: say how far it got
            last[0] = time.monotonic()
            print(f"graphmem check: {message}", file=sys.stderr, flush=True)

    try:
        report = check_store(store, args.user, progress=progress)  # type: ignore[arg-type]
    finally:
        store.close()
    if args.json:
        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        for v in report.violations:
            print(v.describe())
        print(report.summary())
    return 0 if report.ok else 1


def cmd_demo(args: argparse.Namespace, rest: list[str]) -> int:
    from graphmem import demo

    return int(demo.main(rest) or 0)


# --------------------------------------------------------------------------- helpers


def to_jsonable(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return to_jsonable(asdict(value))
    if hasattr(value, "model_dump"):
        return to_jsonable(value.model_dump())
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    return value


def _store_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("store (default: GRAPHMEM_* environment variables)")
    g.add_argument("--data-dir", type=Path, help="embedded store directory "
                                                 "(GRAPHMEM_DATA_DIR, default ./graphmem-data)")
    g.add_argument("--store", choices=["embedded", "neo4j"],
                   help="backend (GRAPHMEM_STORE, default embedded)")
    g.add_argument("--embedder", choices=["minilm+use", "minilm", "use", "e5", "hashing",
                                          "openai"],
                   help="embedding model (GRAPHMEM_EMBEDDER, default minilm+use: MiniLM for "
                        "Latin script, USE for Chinese, Japanese, Korean; local, no network)")
    g.add_argument("--extractor", choices=["rules", "llm"],
                   help="extraction engine (GRAPHMEM_EXTRACTOR, default rules)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="graphmem", description="Graph-first, temporal long-term memory for AI agents, "
                                     "served over GraphQL.",
        epilog="Settings: every GRAPHMEM_* environment variable (see graphmem/settings.py); "
               "flags override them. Run 'graphmem COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version", version=f"graphmem {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    fmt = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser("serve", help="serve the GraphQL API (GraphiQL at /graphql)",
                       formatter_class=fmt, description=(
                           "Serve /graphql (GraphiQL in a browser) and /health.\n"
                           "SIGTERM or Ctrl-C shuts down gracefully and closes the store, so "
                           "acknowledged writes survive a restart.\n\n"
                           "example:\n  graphmem serve --port 8420 --data-dir ./mem"))
    p.add_argument("--host", help="bind address (GRAPHMEM_HOST, default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (GRAPHMEM_PORT, default 8420)")
    p.add_argument("--log-level", default="info",
                   choices=["critical", "error", "warning", "info", "debug"])
    p.add_argument("--access-log", action="store_true",
                   help="log every request (method and path, never the query string)")
    p.add_argument("--insecure-no-auth", action="store_true",
                   help="allow a non-loopback --host with no API key configured "
                        "(GRAPHMEM_INSECURE_NO_AUTH); refused otherwise")
    _store_options(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("schema", help="print the GraphQL schema (SDL)")
    p.add_argument("--out", help="write to this file instead of stdout")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("ingest", help="add episodes from a JSON or JSONL file",
                       formatter_class=fmt, description=(
                           "Add episodes from FILE: a JSON array or JSON Lines, one episode "
                           "per item:\n"
                           '  {"content": "I moved to Berlin", "occurredAt": "2024-03-01T10:00'
                           ':00Z",\n   "sessionId": "s1", "sourceRef": "msg-17"}\n'
                           '  {"messages": [{"role": "user", "content": "..."}], '
                           '"occurredAt": "..."}\n'
                           "Also read: source, kind, role, speaker (snake_case keys work too).\n"
                           "Bad items are reported with their line number and skipped; the "
                           "others are stored.\nRe-running is safe: stored episodes are "
                           "recognised and skipped."))
    p.add_argument("file", type=Path, help="JSON array or JSONL file ('-' for stdin)")
    p.add_argument("--user", required=True, help="the userId the episodes belong to")
    p.add_argument("--session", help="sessionId for items that name none")
    p.add_argument("--scope", help="scope (project, workspace) for items that name none")
    p.add_argument("--batch-size", type=int, default=50,
                   help="episodes per transaction (default 50)")
    p.add_argument("--url", help="send to a running server (http://host:port) instead of "
                                 "opening the store")
    p.add_argument("--api-key", default=os.environ.get("GRAPHMEM_API_KEY"),
                   help="API key for --url (GRAPHMEM_API_KEY)")
    _store_options(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("recall", help="ask the memory a question",
                       formatter_class=fmt, description=(
                           "Recall memories for QUERY.\n\nexamples:\n"
                           '  graphmem recall "what does she prefer?" --user alice\n'
                           '  graphmem recall "where did he work?" --user bob --as-of '
                           "2023-06-01 --json"))
    p.add_argument("query")
    p.add_argument("--user", required=True)
    p.add_argument("--as-of", help="valid-time point (ISO date or date-time)")
    p.add_argument("--known-at", help="system-time point: what was believed then")
    p.add_argument("--limit", type=int, default=10, help="1..100 (default 10)")
    p.add_argument("--scope", help="only this scope's memories and the user level's")
    p.add_argument("--session", help="only episodes and relations of this session")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    p.add_argument("--url", help="ask a running server (http://host:port)")
    p.add_argument("--api-key", default=os.environ.get("GRAPHMEM_API_KEY"))
    _store_options(p)
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser("export", help="export one user's memory as JSONL (lossless)",
                       description="Write every node and edge of a user, history included, as "
                                   "JSON Lines. Embeddings are recomputed on import.")
    p.add_argument("--user", required=True)
    p.add_argument("--out", help="file to write (default stdout)")
    p.add_argument("--scope", help="only this scope's episodes, relations and abstractions "
                                   "(with the entities they name)")
    p.add_argument("--session", help="only this session's episodes and relations (with the "
                                     "entities they name)")
    _store_options(p)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="import a JSONL export",
                       description="Load a 'graphmem export' file; ids are kept, so importing "
                                   "twice changes nothing.")
    p.add_argument("file", type=Path)
    _store_options(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser(
        "import-graphiti", help="import a Graphiti graph (episodes, entities, facts)",
        formatter_class=fmt, description=(
            "Read a Graphiti graph through graphiti-core's own drivers and models and write "
            "it into graphmem,\none graphiti group_id per graphmem user:\n"
            "  episodic nodes -> episodes (valid_at -> occurredAt)\n"
            "  entity nodes   -> entities\n"
            "  entity edges   -> relations: valid_at/invalid_at -> validFrom/validUntil,\n"
            "                    created_at -> recordedAt, expired_at -> when the end was "
            "learned (knownAt)\n"
            "  facts graphiti invalidated stay as history (SUPERSEDED, with a SUPERSEDES "
            "edge\n  where one object of a subject and predicate followed another).\n"
            "Each group is validated whole and written in one transaction: all of it or "
            "nothing.\nRe-running changes nothing. Needs graphiti-core (pip install "
            "'graphiti-core>=0.30,<0.31').\n\n"
            "examples:\n"
            "  graphmem import-graphiti --falkordb-file graphiti.rdb --dry-run\n"
            "  graphmem import-graphiti --neo4j-uri bolt://localhost:7687 --neo4j-user neo4j "
            "\\\n      --neo4j-password secret --group support --user-map support=ana"))
    src = p.add_argument_group("Graphiti source (exactly one)")
    src.add_argument("--falkordb-file", type=Path,
                     help="an embedded FalkorDB data file (falkordblite), one graph per group")
    src.add_argument("--falkordb-url", help="a FalkorDB server, redis://[:password@]host:port")
    src.add_argument("--neo4j-uri", help="a Neo4j server, bolt://host:7687")
    src.add_argument("--neo4j-user", default=os.environ.get("NEO4J_USER", "neo4j"),
                     help="(NEO4J_USER, default neo4j)")
    src.add_argument("--neo4j-password", default=os.environ.get("NEO4J_PASSWORD"),
                     help="(NEO4J_PASSWORD)")
    src.add_argument("--neo4j-database", default="neo4j", help="(default neo4j)")
    p.add_argument("--group", action="append",
                   help="import this group_id (repeatable; default every group found)")
    p.add_argument("--user-map", action="append", metavar="GROUP=USER",
                   help="write GROUP into graphmem user USER (repeatable; default: the "
                        "user named like the group)")
    p.add_argument("--dry-run", action="store_true",
                   help="read, map and check everything; print per group what would be "
                        "written and skipped, write nothing")
    p.add_argument("--out-dir", type=Path,
                   help="also keep each group's mapped document here, as a graphmem "
                        "export file (GROUP.jsonl)")
    _store_options(p)
    p.set_defaults(func=cmd_import_graphiti)

    p = sub.add_parser("check", help="verify a store's invariants (exit 1 on violations)",
                       description="Check every user's memory (or --user's): relations have "
                                   "their edges, no dangling SUPERSEDES/DISPUTED, at most one "
                                   "current relation per exclusive slot, no edge or id shared "
                                   "by two users, every instant in years 1..9999, required "
                                   "properties present. Reads only.")
    p.add_argument("--user", action="append", help="check this user (repeatable; default all)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    _store_options(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("reflect", help="draw abstractions from a user's relations",
                       description="Find repeated evidence in the user's current relations "
                                   "and write or re-version abstractions (conclusion, "
                                   "conditions, confidence, sources); prints the current ones.")
    p.add_argument("--user", required=True)
    p.add_argument("--scope", help="reflect this scope only (patterns never mix scopes)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    _store_options(p)
    p.set_defaults(func=cmd_reflect)

    p = sub.add_parser("gc", help="forget memories whose importance fell below the "
                                  "threshold (dry run unless --apply)",
                       description="List (or, with --apply, softly forget) the user's "
                                   "memories whose importance now is below the forgetting "
                                   "threshold, least important first. Episodes only unless "
                                   "--kinds says otherwise; sources of current abstractions "
                                   "are kept. Forgetting is soft: the restore mutation "
                                   "brings any of them back.")
    p.add_argument("--user", required=True)
    p.add_argument("--apply", action="store_true",
                   help="forget them (without it nothing is written)")
    p.add_argument("--older-than", metavar="TIME",
                   help="only memories from before TIME (ISO-8601, e.g. 2025-01-01)")
    p.add_argument("--session", metavar="SESSION_ID", default=None,
                   help="every episode of this session, whatever its importance (delete a "
                        "session; relations and abstractions learned from it stay)")
    p.add_argument("--scope", default=None,
                   help="every memory of this scope among --kinds, whatever its importance "
                        "(delete a project; user-level memories are in no scope)")
    p.add_argument("--kinds", nargs="+", choices=["episode", "relation", "abstraction"],
                   help="what to look at (default: episode)")
    p.add_argument("--max-importance", type=float, default=None,
                   help="threshold (default GRAPHMEM_FORGET_THRESHOLD)")
    p.add_argument("--limit", type=int, default=1000, help="at most this many (default 1000)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    _store_options(p)
    p.set_defaults(func=cmd_gc)

    p = sub.add_parser("reembed", help="embed stored memories again with the configured "
                                       "embedder (after changing it)",
                       description="Re-embed every episode, entity, relation and abstraction "
                                   "whose vector was made by another model than the "
                                   "configured one (GRAPHMEM_EMBEDDER or --model), in "
                                   "batches of one transaction each; a vector index of "
                                   "another length, or made with older options (M, "
                                   "efRuntime), is made again first. Resumable: run it "
                                   "again after an interruption; a second run writes nothing.")
    p.add_argument("--user", action="append", help="this user only (repeatable; default all)")
    p.add_argument("--model", choices=["minilm+use", "minilm", "use", "e5", "hashing",
                                        "openai"],
                   help="the embedder to re-embed with (default GRAPHMEM_EMBEDDER)")
    p.add_argument("--batch", type=int, default=200, help="nodes per transaction (200)")
    p.add_argument("--dry-run", action="store_true",
                   help="only count the nodes that would be re-embedded (and, with "
                        "--passages, the passages that would be added)")
    p.add_argument("--passages", action="store_true",
                   help="also write the passages this version makes that stored episodes "
                        "lack (a store written by an earlier version, imported, or with "
                        "GRAPHMEM_PASSAGES=false); a second run adds nothing")
    _store_options(p)
    p.set_defaults(func=cmd_reembed)

    p = sub.add_parser("mcp", help="serve the memory to an agent over MCP (stdio)",
                       formatter_class=fmt, description=(
                           "Speak the Model Context Protocol on stdin/stdout: tools remember, "
                           "remember_fact, recall, history, what_changed, forget, restore, "
                           "reflect, abstractions; resources graphmem://users/{id}/facts and "
                           "/episodes. Opens the store in-process, or with --url talks to a "
                           "running graphmem server\n(which holds its embedded data dir) "
                           "through graphmem.client, authorised by --api-key.\nNeeds "
                           "pip install 'graphmem[mcp]'.\n\n"
                           "examples (an agent's MCP config):\n"
                           '  {"command": "graphmem", "args": ["mcp", "--user", "ana", '
                           '"--data-dir", "/path/to/mem"]}\n'
                           '  {"command": "graphmem", "args": ["mcp", "--user", "ana", '
                           '"--url", "http://127.0.0.1:8420"],\n'
                           '   "env": {"GRAPHMEM_API_KEY": "..."}}'))
    p.add_argument("--user", help="the user tools act on when a call names none")
    p.add_argument("--url", help="a running graphmem server (http://host:port): no store is "
                                 "opened, every call goes through its GraphQL API")
    p.add_argument("--api-key", default=os.environ.get("GRAPHMEM_API_KEY"),
                   help="API key for --url (GRAPHMEM_API_KEY)")
    _store_options(p)
    p.set_defaults(func=cmd_mcp)

    sub.add_parser("demo", help="load a demo history into a fresh data dir and ask it "
                                "temporal questions ('graphmem demo --help')", add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv and argv[0] == "demo":
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        return cmd_demo(argparse.Namespace(), argv[1:])
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.command == "serve":
        logging.getLogger("graphmem").setLevel(logging.INFO)
    try:
        return int(args.func(args) or 0)
    except InvalidInputError as e:
        print(f"graphmem {args.command}: {e.field}: {e.message}", file=sys.stderr)
        return 2
    except GraphMemError as e:
        print(f"graphmem {args.command}: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"graphmem {args.command}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
