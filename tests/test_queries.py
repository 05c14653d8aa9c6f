"""Named Cypher queries: loaded once, dialect overrides, fixed template slots."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphmem.errors import GraphMemError
from graphmem.store.queries import EDGE_TYPES, REQUIRED, Queries, default_root


@pytest.mark.parametrize("dialect", ["falkordb", "neo4j", "arcadedb"])
def test_every_dialect_has_every_query(dialect: str) -> None:
    q = Queries(dialect).load()
    assert set(REQUIRED) <= set(q.names)


def test_dialect_files_override_the_common_ones() -> None:
    falkor = Queries("falkordb").load().get("vector_search", label="Entity")
    native = Queries("neo4j").load().get("vector_search", label="Entity")
    assert "vecf32" in falkor and "db.idx.vector.queryNodes" in falkor
    assert "db.index.vector.queryNodes('Entity_embedding'" in native


def test_unknown_names_and_slots_fail_fast(tmp_path: Path) -> None:
    q = Queries("falkordb").load()
    with pytest.raises(GraphMemError, match="unknown query"):
        q.get("no_such_query")
    with pytest.raises(GraphMemError, match="not allowed"):
        q.get("nodes_by_ids", label="Person) DETACH DELETE (n")
    with pytest.raises(GraphMemError, match="needs the slot"):
        q.get("nodes_by_ids")
    (tmp_path / "schema.cypher").write_text("RETURN 1")
    with pytest.raises(GraphMemError, match="missing queries"):
        Queries("falkordb", root=tmp_path).load()


def test_queries_take_values_only_as_parameters() -> None:
    root = default_root()
    for path in root.rglob("*.cypher"):
        text = "\n".join(ln for ln in path.read_text().splitlines()
                         if not ln.lstrip().startswith("//"))
        if path.stem == "schema":
            continue
        # no string literals except index/label names handed to procedures and the fixed
        # edge types handed to degree functions
        literals = re.findall(r"'([^']*)'", text)
        for lit in literals:
            assert lit in EDGE_TYPES or re.fullmatch(
                r"\{label\}(\[\{?\w+\}?\])?(_embedding|_text|_terms)?|embedding", lit), (path, lit)
        # a query either takes its values as parameters or has none to take (no number or
        # string in it at all, like listing a label's owners)
        assert "$" in text or not re.search(r"\d|'|\"", text), path


def test_the_installed_package_carries_its_queries() -> None:
    root = default_root()
    assert (root / "relations.cypher").is_file()
    assert (root / "falkordb" / "vector_search.cypher").is_file()


@pytest.mark.slow
def test_a_built_wheel_contains_the_queries_and_the_schema(tmp_path: Path) -> None:
    import subprocess
    import sys
    import zipfile

    repo = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(repo), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(tmp_path)], check=True,
                   capture_output=True)
    wheel = next(tmp_path.glob("graphmem-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "graphmem/cypher/relations.cypher" in names
    assert "graphmem/cypher/falkordb/schema.cypher" in names
    assert "graphmem/cypher/arcadedb/vector_search.cypher" in names
    assert "graphmem/schema.graphql" in names
