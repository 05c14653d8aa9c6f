"""The Cypher dialect of the ArcadeDB Bolt server, through the official neo4j driver.

These tests pin what the neo4j backend of graphmem relies on (and the known differences
from Neo4j 5), so that a new ArcadeDB release that changes any of it fails here first.
docs/bolt_dialect.md summarises the findings.

All of it runs in a database of its own (``bolt_probe_*``) on the session's server, so
the types and indexes created here never meet the store's schema.
"""

from __future__ import annotations

import json
import math
import random
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

neo4j = pytest.importorskip("neo4j")
from neo4j.exceptions import (  # noqa: E402
    AuthError,
    ClientError,
    ConstraintError,
    CypherSyntaxError,
    CypherTypeError,
    DatabaseError,
    Neo4jError,
    TransactionError,
    TransientError,
)

try:  # tests/ on sys.path, else the package path (same dance as conftest.py)
    from bolt_server import ArcadeSQLError, BoltServer, create_database, drop_database, run_sql
except ImportError:  # pragma: no cover
    from tests.bolt_server import (
        ArcadeSQLError,
        BoltServer,
        create_database,
        drop_database,
        run_sql,
    )

pytestmark = pytest.mark.bolt


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def probe(bolt_server: BoltServer) -> Iterator[BoltServer]:
    """A fresh database on the shared server, dropped afterwards."""
    server = create_database(bolt_server, f"bolt_probe_{uuid.uuid4().hex[:8]}")
    yield server
    drop_database(server)


@pytest.fixture(scope="module")
def driver(probe: BoltServer) -> Iterator[Any]:
    drv = neo4j.GraphDatabase.driver(probe.uri, auth=(probe.user, probe.password))
    yield drv
    drv.close()


class Q:
    """Run Cypher in the probe database and get plain dicts back."""

    def __init__(self, driver: Any, db: str) -> None:
        self.driver = driver
        self.db = db

    def __call__(self, cypher: str, **params: Any) -> list[dict[str, Any]]:
        records, _, _ = self.driver.execute_query(cypher, params, database_=self.db)
        return [r.data() for r in records]

    def one(self, cypher: str, **params: Any) -> Any:
        rows = self(cypher, **params)
        assert len(rows) == 1, rows
        (value,) = rows[0].values()
        return value

    def session(self) -> Any:
        return self.driver.session(database=self.db)


@pytest.fixture(scope="module")
def q(driver: Any, probe: BoltServer) -> Q:
    return Q(driver, probe.database)


@pytest.fixture
def label() -> str:
    """A label (and type name) of its own for each test."""
    return f"T{uuid.uuid4().hex[:10]}"


def sql(server: BoltServer, command: str) -> list[dict[str, Any]]:
    return run_sql(server, command)


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


# --------------------------------------------------------------------------- server


def test_server_identifies_as_neo4j_5_compatible(driver: Any, probe: BoltServer) -> None:
    driver.verify_connectivity()
    info = driver.get_server_info()
    assert "ArcadeDB" in info.agent and "Neo4j/5" in info.agent
    assert info.protocol_version >= (4, 4)
    # The log shows the HTTPS listener is off (no port from the shared 2490-2499 range).
    if probe.log_path:
        assert "httpsPort=-" in open(probe.log_path, encoding="utf-8", errors="replace").read()


def test_databases_are_separate(driver: Any, bolt_server: BoltServer, q: Q) -> None:
    q("CREATE (:OnlyHere {id: 1})")
    assert q.one("MATCH (n:OnlyHere) RETURN count(n) AS c") == 1
    # The same label in the session's main database is a different world.
    recs, _, _ = driver.execute_query(
        "MATCH (n:OnlyHere) RETURN count(n) AS c", database_=bolt_server.database
    )
    assert recs[0]["c"] == 0
    with pytest.raises(ClientError) as e:
        driver.execute_query("RETURN 1", database_="no_such_db")
    assert e.value.code == "Neo.ClientError.Database.DatabaseNotFound"


def test_wrong_password_is_auth_error(probe: BoltServer) -> None:
    bad = neo4j.GraphDatabase.driver(probe.uri, auth=(probe.user, "not-the-password"))
    try:
        with pytest.raises(AuthError):
            bad.verify_connectivity()
    finally:
        bad.close()


# --------------------------------------------------------------------------- a. MERGE + SET +=

PROPS: dict[str, Any] = {
    "s": "héllo 中文 😀",
    "epochMs": 1_763_000_000_123,  # > 2^31
    "f": 0.25,
    "yes": True,
    "no": False,
    "nothing": None,
    "tags": ["a", "b"],
    "nums": [1, 2_000_000_000_000],
    "floats": [0.5, -1.25],
    "empty": [],
    "js": json.dumps({"k": [1, "x"], "n": None}),
}


def test_unwind_merge_set_plus_equals_round_trips_types(q: Q, label: str) -> None:
    merge = f"UNWIND $rows AS row MERGE (n:{label} {{id: row.id}}) SET n += row.props"
    q(merge, rows=[{"id": "r1", "props": PROPS}, {"id": "r2", "props": {"s": "x"}}])
    q(merge, rows=[{"id": "r1", "props": PROPS}])  # MERGE again: no duplicate
    assert q.one(f"MATCH (n:{label}) RETURN count(n) AS c") == 2

    node = q.one(f"MATCH (n:{label} {{id: 'r1'}}) RETURN n AS n")
    expected = {k: v for k, v in PROPS.items() if v is not None} | {"id": "r1"}
    assert node == expected  # null is not stored, everything else round-trips exactly
    assert type(node["epochMs"]) is int and type(node["f"]) is float and node["yes"] is True
    assert json.loads(node["js"]) == {"k": [1, "x"], "n": None}

    row = q(
        f"MATCH (n:{label} {{id: 'r1'}}) "
        "RETURN n.epochMs + 1 AS next, n.nums[1] AS big, size(n.tags) AS nt, keys(n) AS ks"
    )[0]
    assert row["next"] == 1_763_000_000_124 and row["big"] == 2_000_000_000_000
    assert row["nt"] == 2
    assert "nothing" not in row["ks"] and set(row["ks"]) == set(expected)

    # SET += with a null value removes the property; others are left alone.
    q(merge, rows=[{"id": "r1", "props": {"s": None, "f": 1.5}}])
    node = q.one(f"MATCH (n:{label} {{id: 'r1'}}) RETURN n AS n")
    assert "s" not in node and node["f"] == 1.5 and node["tags"] == ["a", "b"]


def test_set_equals_remove_and_property_type_rules(q: Q, label: str) -> None:
    q(f"CREATE (:{label} {{id: 'p', a: 1, b: 2}})")
    assert q.one(f"MATCH (n:{label}) SET n = {{id: 'p', c: 3}} RETURN properties(n) AS p") == {
        "id": "p",
        "c": 3,
    }
    assert q.one(f"MATCH (n:{label}) REMOVE n.c RETURN n.c AS c") is None
    # Maps as property values are refused, as in Neo4j.
    with pytest.raises(CypherTypeError):
        q(f"MATCH (n:{label}) SET n += $p", p={"m": {"nested": 1}})
    # Differs from Neo4j: a list holding null is accepted and stored as is.
    assert q.one(f"MATCH (n:{label}) SET n.l = [null, 1] RETURN n.l AS l") == [None, 1]


# --------------------------------------------------------------------------- b. constraints, indexe


def test_unique_constraint_is_idempotent_enforced_and_listed(q: Q, label: str) -> None:
    ddl = f"CREATE CONSTRAINT {label}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE"
    q(ddl)
    q(ddl)  # idempotent
    with pytest.raises(ClientError):  # without IF NOT EXISTS the second one fails
        q(f"CREATE CONSTRAINT {label}_id FOR (n:{label}) REQUIRE n.id IS UNIQUE")
    q(f"CREATE INDEX {label}_user IF NOT EXISTS FOR (n:{label}) ON (n.userId)")
    q(f"CREATE INDEX {label}_user IF NOT EXISTS FOR (n:{label}) ON (n.userId)")

    constraints = q("SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties, ownedIndex")
    mine = [c for c in constraints if c["labelsOrTypes"] == [label]]
    assert mine == [
        {
            "name": f"{label}_id",
            "type": "UNIQUENESS",
            "labelsOrTypes": [label],
            "properties": ["id"],
            "ownedIndex": f"{label}[id]",  # ArcadeDB names indexes Type[prop,...]
        }
    ]
    indexes = {
        i["name"]: i
        for i in q("SHOW INDEXES YIELD name, type, labelsOrTypes, properties")
        if i["labelsOrTypes"] == [label]
    }
    assert set(indexes) == {f"{label}[id]", f"{label}_user"}
    assert {i["type"] for i in indexes.values()} == {"RANGE"}

    # Enforced across many records (not only within one bucket), and MERGE still upserts.
    q(f"UNWIND range(0, 299) AS i CREATE (:{label} {{id: 'n' + toString(i), userId: 'u'}})")
    for dup in ("n0", "n150", "n299"):
        with pytest.raises(ConstraintError) as e:
            q(f"CREATE (:{label} {{id: $id}})", id=dup)
        assert e.value.code == "Neo.ClientError.Schema.ConstraintValidationFailed"
    q(f"MERGE (n:{label} {{id: 'n150'}}) SET n.seen = true")
    assert q.one(f"MATCH (n:{label} {{id: 'n150'}}) RETURN count(n) AS c") == 1

    q(f"DROP INDEX {label}_user IF EXISTS")
    q(f"DROP INDEX {label}_user IF EXISTS")
    assert f"{label}_user" not in {i["name"] for i in q("SHOW INDEXES YIELD name")}


def test_relationship_unique_constraint_and_index(q: Q, label: str) -> None:
    q(f"CREATE CONSTRAINT {label}_rid IF NOT EXISTS FOR ()-[r:{label}]-() REQUIRE r.id IS UNIQUE")
    q(f"CREATE CONSTRAINT {label}_rid IF NOT EXISTS FOR ()-[r:{label}]-() REQUIRE r.id IS UNIQUE")
    cons = [c for c in q("SHOW CONSTRAINTS YIELD name, entityType") if c["name"] == f"{label}_rid"]
    assert cons == [{"name": f"{label}_rid", "entityType": "RELATIONSHIP"}]
    q(f"CREATE (a:N{label} {{id: 1}})-[:{label} {{id: 1}}]->(b:N{label} {{id: 2}})")
    with pytest.raises(ConstraintError):
        q(
            f"MATCH (a:N{label} {{id: 1}}), (b:N{label} {{id: 2}}) "
            f"CREATE (a)-[:{label} {{id: 1}}]->(b)"
        )
    assert q.one(f"MATCH ()-[r:{label}]->() RETURN count(r) AS c") == 1
    # IF NOT EXISTS goes by name: a different definition under a taken name is a silent no-op.
    q(f"CREATE CONSTRAINT {label}_rid IF NOT EXISTS FOR (n:Other{label}) REQUIRE n.id IS UNIQUE")
    assert not [
        c
        for c in q("SHOW CONSTRAINTS YIELD labelsOrTypes")
        if c["labelsOrTypes"] == [f"Other{label}"]
    ]
    # A range index on a relationship property.
    q(f"CREATE INDEX {label}_ridx IF NOT EXISTS FOR ()-[r:{label}]-() ON (r.w)")
    idx = [i for i in q("SHOW INDEXES YIELD name, entityType") if i["name"] == f"{label}_ridx"]
    assert idx == [{"name": f"{label}_ridx", "entityType": "RELATIONSHIP"}]


def test_concurrent_merge_of_same_id_second_commit_fails(q: Q, label: str) -> None:
    """Optimistic transactions: both MERGEs create; the second commit hits the unique index."""
    q(f"CREATE CONSTRAINT {label}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE")
    with q.session() as s1, q.session() as s2:
        t1, t2 = s1.begin_transaction(), s2.begin_transaction()
        t1.run(f"MERGE (n:{label} {{id: 'same'}}) SET n.who = 1").consume()
        t2.run(f"MERGE (n:{label} {{id: 'same'}}) SET n.who = 2").consume()
        t1.commit()
        with pytest.raises(ConstraintError):
            t2.commit()
    assert q(f"MATCH (n:{label}) RETURN n.who AS who") == [{"who": 1}]
    # Without a unique constraint, both commit: a duplicate.
    with q.session() as s1, q.session() as s2:
        t1, t2 = s1.begin_transaction(), s2.begin_transaction()
        t1.run(f"MERGE (n:U{label} {{id: 'same'}}) SET n.who = 1").consume()
        t2.run(f"MERGE (n:U{label} {{id: 'same'}}) SET n.who = 2").consume()
        t1.commit()
        t2.commit()
    assert q.one(f"MATCH (n:U{label} {{id: 'same'}}) RETURN count(n) AS c") == 2


# --------------------------------------------------------------------------- c. edges & reads


@pytest.fixture
def graph(q: Q, label: str) -> dict[str, str]:
    """Entities e0..e4, relations x0..x3 and SUBJECT_OF edges, under per-test labels."""
    E, R, S = f"E{label}", f"R{label}", f"S{label}"
    q(
        f"UNWIND $rows AS row MERGE (n:{E} {{id: row.id}}) SET n += row.props",
        rows=[
            {"id": f"e{i}", "props": {"name": f"E{i}", "userId": "alice" if i < 3 else "bob"}}
            for i in range(5)
        ],
    )
    q(
        f"UNWIND $rows AS row MERGE (n:{R} {{id: row.id}}) SET n += row.props",
        rows=[
            {"id": f"x{i}", "props": {"fact": f"fact {i}", "validAt": 1_700_000_000_000 + i}}
            for i in range(4)
        ],
    )
    edges = [
        {"src": "e0", "dst": "x0", "props": {"w": 1}},
        {"src": "e1", "dst": "x0", "props": {"w": 2}},
        {"src": "e1", "dst": "x1", "props": {"w": 3}},
        {"src": "e2", "dst": "x2", "props": {"w": 4}},
    ]
    merge = (
        f"UNWIND $rows AS row MATCH (a:{E} {{id: row.src}}), (b:{R} {{id: row.dst}}) "
        f"MERGE (a)-[r:{S}]->(b) SET r += row.props RETURN count(r) AS c"
    )
    assert q.one(merge, rows=edges) == 4
    edges[0]["props"] = {"w": 10}
    assert q.one(merge, rows=edges) == 4  # MERGE again: matched, updated, not duplicated
    return {"E": E, "R": R, "S": S}


def test_edge_merge_is_idempotent_and_parallel_create_is_not(q: Q, graph: dict[str, str]) -> None:
    E, R, S = graph["E"], graph["R"], graph["S"]
    assert q.one(f"MATCH ()-[r:{S}]->() RETURN count(r) AS c") == 4
    assert q.one(f"MATCH (:{E} {{id: 'e0'}})-[r:{S}]->() RETURN r.w AS w") == 10
    q(
        f"MATCH (a:{E} {{id: 'e0'}}), (b:{R} {{id: 'x3'}}) "
        f"CREATE (a)-[:M{S} {{n: 1}}]->(b) CREATE (a)-[:M{S} {{n: 2}}]->(b)"
    )
    rows = q(
        f"MATCH (a:{E} {{id: 'e0'}})-[r:M{S}]->(b) "
        "RETURN r.n AS n, type(r) AS t, startNode(r).id AS s, endNode(r).id AS e ORDER BY n"
    )
    assert rows == [
        {"n": 1, "t": f"M{S}", "s": "e0", "e": "x3"},
        {"n": 2, "t": f"M{S}", "s": "e0", "e": "x3"},
    ]
    # Relationship objects through the driver: type, properties, endpoints' element ids.
    records, _, _ = q.driver.execute_query(
        f"MATCH (a:{E} {{id: 'e0'}})-[r:M{S}]->(b) RETURN a, r, b ORDER BY r.n", database_=q.db
    )
    a, r, b = records[0]["a"], records[0]["r"], records[0]["b"]
    assert r.type == f"M{S}" and dict(r) == {"n": 1}
    assert r.start_node.element_id == a.element_id and r.end_node.element_id == b.element_id
    assert a.element_id.startswith("#")  # ArcadeDB RIDs, e.g. '#5:0'
    assert q.one(f"MATCH (a:{E} {{id: 'e0'}}) RETURN elementId(a) AS i") == a.element_id
    # MERGE on an undirected pattern creates it left-to-right; ON CREATE / ON MATCH work.
    merge = (
        f"MATCH (a:{E} {{id: 'e1'}}), (b:{E} {{id: 'e2'}}) MERGE (a)-[r:C{S} {{k: 'x'}}]-(b) "
        "ON CREATE SET r.created = 1 ON MATCH SET r.matched = 1 "
        "RETURN startNode(r).id AS s, r.created AS c, r.matched AS m"
    )
    assert q(merge) == [{"s": "e1", "c": 1, "m": None}]
    assert q(merge) == [{"s": "e1", "c": 1, "m": 1}]
    assert q.one(f"MATCH (:{E})-[r:C{S}]-(:{E}) DELETE r RETURN count(*) AS c") == 2  # both ends


def test_read_constructs(q: Q, graph: dict[str, str]) -> None:
    E, R, S = graph["E"], graph["R"], graph["S"]
    assert q(
        f"MATCH (e:{E}) OPTIONAL MATCH (e)-[r:{S}]->(x:{R}) "
        "WITH e, r, x ORDER BY x.id "
        "RETURN e.id AS id, collect(x.id) AS xs, count(r) AS n ORDER BY id"
    ) == [
        {"id": "e0", "xs": ["x0"], "n": 1},
        {"id": "e1", "xs": ["x0", "x1"], "n": 2},
        {"id": "e2", "xs": ["x2"], "n": 1},
        {"id": "e3", "xs": [], "n": 0},
        {"id": "e4", "xs": [], "n": 0},
    ]
    assert q(
        f"MATCH (e:{E}) RETURN e.id AS id, coalesce(e.missing, e.name, 'z') AS c, "
        "CASE WHEN e.userId = 'alice' THEN 1 ELSE 0 END AS a ORDER BY id DESC LIMIT 2"
    ) == [{"id": "e4", "c": "E4", "a": 0}, {"id": "e3", "c": "E3", "a": 0}]
    ids = f"MATCH (e:{E}) WHERE e.id IN $ids RETURN collect(e.id) AS ids"
    assert sorted(q.one(ids, ids=["e1", "e3", "nope"])) == ["e1", "e3"]
    assert q.one(ids, ids=[]) == []
    assert q.one(f"MATCH (n:{E}) RETURN count(*) AS c") == 5
    assert q(f"MATCH (e:{E}) RETURN e.id AS id ORDER BY id SKIP $s LIMIT $k", s=1, k=2) == [
        {"id": "e1"},
        {"id": "e2"},
    ]
    # ORDER BY puts nulls last ascending, first descending (as Neo4j).
    q(f"CREATE (:{R} {{id: 'nodate'}})")
    assert q(f"MATCH (x:{R}) RETURN x.id AS id ORDER BY x.validAt DESC LIMIT 2") == [
        {"id": "nodate"},
        {"id": "x3"},
    ]
    assert q(f"MATCH (x:{R}) RETURN x.id AS id ORDER BY x.validAt LIMIT 1") == [{"id": "x0"}]
    # WITH ... WHERE after aggregation, UNWIND of a list of maps, size(), keys().
    assert q(f"MATCH (e:{E}) WITH e.userId AS u, count(*) AS c WHERE c > 2 RETURN u, c") == [
        {"u": "alice", "c": 3}
    ]
    assert q(
        "UNWIND $maps AS m WITH m WHERE m.v > 1 RETURN m.k AS k, size(m.tags) AS s, keys(m) AS ks",
        maps=[{"k": "a", "v": 1, "tags": []}, {"k": "b", "v": 2, "tags": ["x", "y"]}],
    ) == [{"k": "b", "s": 2, "ks": ["k", "v", "tags"]}]
    # Subqueries and comprehensions.
    row = q(
        f"MATCH (e:{E} {{id: 'e1'}}) RETURN COUNT {{ (e)-[:{S}]->() }} AS deg, "
        f"EXISTS {{ (e)-[:{S}]->(:{R} {{id: 'x1'}}) }} AS has, "
        f"size([(e)-[:{S}]->(x) | x.id]) AS deg2, e {{.id, .name}} AS proj"
    )[0]
    assert row == {"deg": 2, "has": True, "deg2": 2, "proj": {"id": "e1", "name": "E1"}}
    assert q(
        f"CALL {{ MATCH (e:{E} {{id: 'e0'}}) RETURN e.id AS id, 1.0 AS s "
        f"UNION MATCH (x:{R} {{id: 'x0'}}) RETURN x.id AS id, 0.5 AS s }} "
        "RETURN id, s ORDER BY s DESC"
    ) == [{"id": "e0", "s": 1.0}, {"id": "x0", "s": 0.5}]
    assert q(
        f"MATCH (e:{E} {{id: 'e1'}}) CALL {{ WITH e MATCH (e)-[:{S}]->(x) RETURN count(x) AS c }} "
        "RETURN c"
    ) == [{"c": 2}]
    assert sorted(
        q.one(
            f"MATCH (a:{E}), (b:{R} {{id: 'x0'}}) WHERE NOT (a)-[:{S}]->(b) "
            "RETURN collect(a.id) AS c"
        )
    ) == ["e2", "e3", "e4"]


def test_variable_length_paths(q: Q, graph: dict[str, str]) -> None:
    E, R, S = graph["E"], graph["R"], graph["S"]
    # e0 -S-> x0 <-S- e1 -S-> x1 ; e2 -S-> x2
    one_two = f"MATCH (e:{E} {{id: 'e0'}})-[:{S}*1..2]-(m) RETURN DISTINCT m.id AS id ORDER BY id"
    assert q(one_two) == [{"id": "e1"}, {"id": "x0"}]
    three = f"MATCH (e:{E} {{id: 'e0'}})-[:{S}*1..3]-(m) RETURN DISTINCT m.id AS id ORDER BY id"
    # e0 itself is not reachable again: a path never reuses a relationship (as Neo4j).
    assert q(three) == [{"id": "e1"}, {"id": "x0"}, {"id": "x1"}]
    assert (
        q.one(f"MATCH p = (:{E} {{id: 'e0'}})-[:{S}*1..3]->(:{R}) RETURN max(length(p)) AS l") == 1
    )  # directed
    assert (
        q.one(
            f"MATCH p = shortestPath((a:{E} {{id: 'e0'}})-[*..4]-(b:{R} {{id: 'x1'}})) "
            "RETURN length(p) AS l"
        )
        == 3
    )


def test_unknown_labels_and_edge_types_are_created_on_the_fly(
    q: Q, probe: BoltServer, label: str
) -> None:
    q(f"MERGE (a:A{label} {{id: 1}}) MERGE (b:B{label} {{id: 2}}) MERGE (a)-[:NEW_{label}]->(b)")
    types = {t["name"]: t["type"] for t in sql(probe, "SELECT name, type FROM schema:types")}
    assert types[f"A{label}"] == "vertex" and types[f"NEW_{label}"] == "edge"
    # A type created inside a rolled-back transaction stays in the schema (data does not).
    with q.session() as s:
        tx = s.begin_transaction()
        tx.run(f"CREATE (:RB{label} {{id: 1}})").consume()
        tx.rollback()
    types = {t["name"] for t in sql(probe, "SELECT name FROM schema:types")}
    assert f"RB{label}" in types
    assert q.one(f"MATCH (n:RB{label}) RETURN count(n) AS c") == 0


def test_second_label_makes_a_subtype(q: Q, probe: BoltServer, label: str) -> None:
    """Differs from Neo4j in storage: (:A:B) lives in a type 'A~B' that extends A and B."""
    q(f"CREATE CONSTRAINT {label}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE")
    q(f"CREATE (:{label} {{id: 'a'}})")
    assert q.one(f"MATCH (n:{label} {{id: 'a'}}) SET n:X{label} RETURN labels(n) AS l") == [
        label,
        f"X{label}",
    ]
    assert q.one(f"MATCH (n:{label}) RETURN count(n) AS c") == 1
    assert q.one(f"MATCH (n:X{label}) RETURN count(n) AS c") == 1
    types = {t["name"] for t in sql(probe, "SELECT name FROM schema:types")}
    assert f"{label}~X{label}" in types
    with pytest.raises(ConstraintError):  # the parent's unique index covers the subtype
        q(f"CREATE (:{label}:X{label} {{id: 'a'}})")


def test_functions_used_by_a_store(q: Q) -> None:
    row = q(
        "RETURN timestamp() > 0 AS ts, datetime({epochMillis: 1700000000000}).year AS y, "
        "toLower('ÄB') AS low, size('中文') AS n, split('a,b', ',') AS sp, "
        "[x IN [1, 2, 3] WHERE x > 1 | x * 10] AS comp, reduce(s = 0, x IN [1, 2] | s + x) AS r, "
        "toInteger('x') AS bad, 7 / 2 AS idiv, round(1.234, 2) AS rnd"
    )[0]
    assert row == {
        "ts": True,
        "y": 2023,
        "low": "äb",
        "n": 2,
        "sp": ["a", "b"],
        "comp": [20, 30],
        "r": 3,
        "bad": None,
        "idiv": 3,
        "rnd": 1.23,
    }


# --------------------------------------------------------------------------- d. transactions


def test_explicit_transaction_rollback_and_commit(q: Q, label: str) -> None:
    count = f"MATCH (n:{label}) RETURN count(n) AS c"
    with q.session() as s:
        tx = s.begin_transaction()
        tx.run(f"CREATE (:{label} {{id: 'a'}})").consume()
        tx.run(f"UNWIND [1, 2] AS i CREATE (:{label} {{id: 'b' + toString(i)}})").consume()
        assert tx.run(count).single()["c"] == 3  # own writes visible inside
        assert q.one(count) == 0  # isolated from other sessions
        tx.rollback()
    assert q.one(count) == 0

    with q.session() as s, s.begin_transaction() as tx:
        tx.run(f"CREATE (:{label} {{id: 'a'}})").consume()
        tx.run(f"MATCH (a:{label} {{id: 'a'}}) CREATE (a)-[:E{label}]->(:{label} {{id: 'c'}})")
        tx.commit()
    assert q.one(count) == 2
    assert q.one(f"MATCH ()-[r:E{label}]->() RETURN count(r) AS c") == 1


def test_error_inside_transaction_fails_the_whole_transaction(q: Q, label: str) -> None:
    with q.session() as s:
        tx = s.begin_transaction()
        tx.run(f"CREATE (:{label} {{id: 'a'}})").consume()
        with pytest.raises(CypherSyntaxError):
            tx.run("THIS IS NOT CYPHER").consume()
        with pytest.raises(TransactionError):
            tx.commit()
        tx.close()
    assert q.one(f"MATCH (n:{label}) RETURN count(n) AS c") == 0


def test_execute_write_commits_and_rolls_back_on_exception(q: Q, label: str) -> None:
    def work(tx: Any, ids: list[str]) -> int:
        tx.run(f"UNWIND $ids AS i CREATE (:{label} {{id: i}})", ids=ids).consume()
        return tx.run(f"MATCH (n:{label}) RETURN count(n) AS c").single()["c"]

    with q.session() as s:
        assert s.execute_write(work, ["a", "b"]) == 2

    class Boom(Exception):
        pass

    def bad(tx: Any) -> None:
        tx.run(f"CREATE (:{label} {{id: 'boom'}})").consume()
        raise Boom

    with q.session() as s, pytest.raises(Boom):
        s.execute_write(bad)
    assert q.one(f"MATCH (n:{label} {{id: 'boom'}}) RETURN count(n) AS c") == 0
    with q.session() as s:
        assert (
            s.execute_read(
                lambda tx: tx.run(f"MATCH (n:{label}) RETURN count(n) AS c").single()["c"]
            )
            == 2
        )


def test_write_conflict_is_transient_and_execute_write_retries(q: Q, label: str) -> None:
    """Optimistic MVCC: a commit that lost a race on the same record raises
    TransientError (Neo.TransientError.Transaction.DeadlockDetected), which the driver's
    managed transactions retry; a constraint violation is not retried."""
    q(f"CREATE CONSTRAINT {label}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE")
    q(f"CREATE (:{label} {{id: 'w', v: 0}})")
    with q.session() as s1:
        t1 = s1.begin_transaction()
        t1.run(f"MATCH (n:{label} {{id: 'w'}}) SET n.v = 1").consume()
        q(f"MATCH (n:{label} {{id: 'w'}}) SET n.v = 2")  # commits first
        with pytest.raises(TransientError) as e:
            t1.commit()
        assert e.value.code == "Neo.TransientError.Transaction.DeadlockDetected"
        assert e.value.is_retryable()
    assert q.one(f"MATCH (n:{label} {{id: 'w'}}) RETURN n.v AS v") == 2

    calls: list[int] = []

    def work(tx: Any) -> int:
        calls.append(1)
        tx.run(f"MATCH (n:{label} {{id: 'w'}}) SET n.v = $v", v=10 * len(calls)).consume()
        if len(calls) == 1:  # someone else changes the record before we commit
            q(f"MATCH (n:{label} {{id: 'w'}}) SET n.v = -1")
        return len(calls)

    with q.session() as s:
        assert s.execute_write(work) == 2  # first attempt failed at commit, retried once
    assert q.one(f"MATCH (n:{label} {{id: 'w'}}) RETURN n.v AS v") == 20

    calls.clear()

    def dup(tx: Any) -> None:
        calls.append(1)
        tx.run(f"CREATE (:{label} {{id: 'w'}})").consume()

    with q.session() as s, pytest.raises(ConstraintError):
        s.execute_write(dup)
    assert len(calls) == 1


# --------------------------------------------------------------------------- e. vector index


def vector_ddl(probe: BoltServer, type_: str, dim: int, similarity: str = "COSINE") -> list[Any]:
    return [
        sql(probe, f"CREATE VERTEX TYPE {type_} IF NOT EXISTS"),
        sql(probe, f"CREATE PROPERTY {type_}.embedding IF NOT EXISTS ARRAY_OF_FLOATS"),
        sql(
            probe,
            f"CREATE INDEX IF NOT EXISTS ON {type_} (embedding) LSM_VECTOR "
            f"METADATA {{dimensions: {dim}, similarity: '{similarity}'}}",
        ),
    ]


VQ = "CALL db.index.vector.queryNodes($index, $k, $q) YIELD node, score RETURN node.id AS id, score"


def test_vector_index_ddl_is_idempotent(q: Q, probe: BoltServer, label: str) -> None:
    first = vector_ddl(probe, label, 4)
    assert [r[0]["created"] for r in first] == [True, True, True]
    assert first[2][0]["name"] == f"{label}[embedding]"
    again = vector_ddl(probe, label, 4)
    assert [r[0]["created"] for r in again] == [False, False, False]
    idx = [i for i in q("SHOW INDEXES YIELD name, type") if i["name"] == f"{label}[embedding]"]
    assert idx == [{"name": f"{label}[embedding]", "type": "VECTOR"}]
    # Neo4j's own vector DDL is refused.
    with pytest.raises(CypherSyntaxError):
        q(
            f"CREATE VECTOR INDEX v_{label} IF NOT EXISTS FOR (n:{label}) ON (n.embedding) "
            "OPTIONS {indexConfig: {`vector.dimensions`: 4, "
            "`vector.similarity_function`: 'cosine'}}"
        )


def test_vector_score_is_normalised_cosine_and_exact_on_small_data(
    q: Q, probe: BoltServer, label: str
) -> None:
    rng = random.Random(7)
    rows = [
        {
            "id": f"v{i}",
            "props": {
                "userId": "alice" if i % 2 == 0 else "bob",
                "embedding": [rng.gauss(0, 1) for _ in range(16)],
            },
        }
        for i in range(40)
    ]
    # Nodes first, index afterwards: existing nodes are indexed.
    q(f"UNWIND $rows AS row MERGE (n:{label} {{id: row.id}}) SET n += row.props", rows=rows)
    assert vector_ddl(probe, label, 16)[2][0]["totalIndexed"] == 40
    qv = [rng.gauss(0, 1) for _ in range(16)]
    exact = sorted(((cosine(qv, r["props"]["embedding"]), r["id"]) for r in rows), reverse=True)

    got = q(VQ, index=f"{label}[embedding]", k=40, q=qv)
    assert [g["id"] for g in got] == [i for _, i in exact]  # exact order, all 40
    for g, (c, _) in zip(got, exact, strict=True):
        assert g["score"] == pytest.approx((1 + c) / 2, abs=1e-5)  # Neo4j's cosine score
    assert 0.0 <= got[-1]["score"] < got[0]["score"] <= 1.0
    assert len(q(VQ, index=f"{label}[embedding]", k=1000, q=qv)) == 40  # k > n: all of them

    # Filtering happens after the top-k: over-fetch k to get k per tenant.
    alice = q(
        "CALL db.index.vector.queryNodes($index, $k, $q) YIELD node, score "
        "WHERE node.userId = $u RETURN node.id AS id, score",
        index=f"{label}[embedding]",
        k=10,
        q=qv,
        u="alice",
    )
    top10 = [i for _, i in exact[:10]]
    assert [a["id"] for a in alice] == [i for i in top10 if int(i[1:]) % 2 == 0]
    # vector.similarity.cosine is the raw cosine (Neo4j's is (1+cos)/2).
    raw = q.one(
        f"MATCH (n:{label} {{id: $id}}) RETURN vector.similarity.cosine(n.embedding, $q) AS s",
        id=exact[-1][1],
        q=qv,
    )
    assert raw == pytest.approx(exact[-1][0], abs=1e-5) and raw < 0


def test_vector_index_follows_writes_and_transactions(q: Q, probe: BoltServer, label: str) -> None:
    vector_ddl(probe, label, 4)  # index on an empty type
    index = f"{label}[embedding]"
    q(
        f"UNWIND $rows AS r CREATE (:{label} {{id: r[0], embedding: r[1]}})",
        rows=[["a", [1.0, 0.0, 0.0, 0.0]], ["b", [0.0, 1.0, 0.0, 0.0]]],
    )
    assert q(VQ, index=index, k=1, q=[0.0, 1.0, 0.0, 0.0]) == [{"id": "b", "score": 1.0}]
    stored = q.one(f"MATCH (n:{label} {{id: 'a'}}) RETURN n.embedding AS e")
    assert stored == [1.0, 0.0, 0.0, 0.0]  # ARRAY_OF_FLOATS stores float32
    special = [0.0, 0.0, 1.0, 0.0]
    with q.session() as s:
        tx = s.begin_transaction()
        tx.run(f"CREATE (:{label} {{id: 'rb', embedding: $e}})", e=special).consume()
        seen = tx.run(VQ, index=index, k=1, q=special).data()
        assert seen == [{"id": "rb", "score": 1.0}]  # own uncommitted write is visible
        tx.rollback()
    assert [r["id"] for r in q(VQ, index=index, k=3, q=special)] != ["rb"]
    assert "rb" not in {r["id"] for r in q(VQ, index=index, k=10, q=special)}
    with q.session() as s, s.begin_transaction() as tx:
        tx.run(f"CREATE (:{label} {{id: 'c', embedding: $e}})", e=special).consume()
        tx.commit()
    assert q(VQ, index=index, k=1, q=special) == [{"id": "c", "score": 1.0}]
    q(f"MATCH (n:{label} {{id: 'c'}}) SET n.embedding = [0.0, 0.0, 0.0, 1.0]")
    assert q(VQ, index=index, k=1, q=[0.0, 0.0, 0.0, 1.0])[0]["id"] == "c"
    # The old vector is gone from the index: nothing matches `special` exactly any more.
    assert q(VQ, index=index, k=1, q=special)[0]["score"] == pytest.approx(0.5)
    q(f"MATCH (n:{label} {{id: 'c'}}) DETACH DELETE n")
    assert "c" not in {r["id"] for r in q(VQ, index=index, k=10, q=[0.0, 0.0, 0.0, 1.0])}
    # Nodes without the property are fine; a wrong dimension is refused at write time.
    q(f"CREATE (:{label} {{id: 'none'}})")
    with pytest.raises(ClientError):
        q(f"CREATE (:{label} {{id: 'bad', embedding: [1.0, 2.0]}})")
    with pytest.raises(ClientError):  # wrong query dimension
        q(VQ, index=index, k=1, q=[1.0, 2.0])
    with pytest.raises(ClientError):  # unknown index
        q(VQ, index=f"Nope{label}[embedding]", k=1, q=special)


def test_vector_recall_384d(q: Q, probe: BoltServer, label: str) -> None:
    rng = random.Random(3)
    vector_ddl(probe, label, 384)
    rows = [{"id": f"b{i}", "embedding": [rng.gauss(0, 1) for _ in range(384)]} for i in range(300)]
    q(f"UNWIND $rows AS r CREATE (:{label} {{id: r.id, embedding: r.embedding}})", rows=rows)
    hits = 0
    for _ in range(5):
        qv = [rng.gauss(0, 1) for _ in range(384)]
        exact = {
            i
            for _, i in sorted(((cosine(qv, r["embedding"]), r["id"]) for r in rows), reverse=True)[
                :10
            ]
        }
        got = {r["id"] for r in q(VQ, index=f"{label}[embedding]", k=10, q=qv)}
        hits += len(got & exact)
    assert hits / 50 >= 0.9  # measured 1.0 here (also on 1000 nodes)


def test_other_vector_similarities(q: Q, probe: BoltServer, label: str) -> None:
    vector_ddl(probe, f"{label}E", 2, "EUCLIDEAN")
    q(
        f"UNWIND [[1.0, 0.0], [0.0, 1.0], [3.0, 4.0]] AS v "
        f"CREATE (:{label}E {{id: toString(v[0]), embedding: v}})"
    )
    scores = {r["id"]: r["score"] for r in q(VQ, index=f"{label}E[embedding]", k=3, q=[1.0, 0.0])}
    assert scores == pytest.approx({"1.0": 1.0, "0.0": 1 / 3, "3.0": 1 / 21})  # 1 / (1 + d²)


# --------------------------------------------------------------------------- f. full-text index

FT = (
    "CALL db.index.fulltext.queryNodes($index, $q) YIELD node, score "
    "RETURN node.id AS id, score ORDER BY score DESC, id"
)

DOCS = [
    ("ep1", "Alice", "Alice moved to Berlin and started working on TypeScript projects."),
    ("ep2", "Bob", "Bob prefers React over Vue for frontend work."),
    ("ep3", "Carol", "我喜欢这个项目，后来改用了TypeScript和React。"),
    ("ep4", "Dave", "The BERLIN office is closing; Dave works remotely from Munich."),
    ("ep5", "Eve", "running runs ran runner"),
    ("ep6", "Frank", "欢迎光临，我们的项目很好"),
]


def fulltext_ddl(probe: BoltServer, type_: str, props: list[str], metadata: str = "") -> list[Any]:
    out = [sql(probe, f"CREATE VERTEX TYPE {type_} IF NOT EXISTS")]
    # FULL_TEXT needs the properties declared in the schema first.
    out += [sql(probe, f"CREATE PROPERTY {type_}.{p} IF NOT EXISTS STRING") for p in props]
    meta = f" METADATA {metadata}" if metadata else ""
    out.append(
        sql(probe, f"CREATE INDEX IF NOT EXISTS ON {type_} ({', '.join(props)}) FULL_TEXT{meta}")
    )
    return out


@pytest.fixture(scope="module")
def episodes(q: Q, probe: BoltServer) -> str:
    t = f"Ep{uuid.uuid4().hex[:8]}"
    assert fulltext_ddl(probe, t, ["content"])[-1][0]["name"] == f"{t}[content]"
    assert fulltext_ddl(probe, t, ["content"])[-1][0]["created"] is False  # idempotent
    assert fulltext_ddl(probe, t, ["name", "content"])[-1][0]["name"] == f"{t}[name,content]"
    q(
        f"UNWIND $rows AS r CREATE (:{t} {{id: r[0], name: r[1], content: r[2]}})",
        rows=[list(d) for d in DOCS],
    )
    return t


def ft_ids(q: Q, index: str, text: str) -> list[str]:
    return [r["id"] for r in q(FT, index=index, q=text)]


def test_fulltext_words_are_case_insensitive_or_by_default(q: Q, episodes: str) -> None:
    idx = f"{episodes}[content]"
    for word in ("berlin", "Berlin", "BERLIN"):
        assert ft_ids(q, idx, word) == ["ep1", "ep4"]
    rows = q(FT, index=idx, q="berlin typescript")
    assert sorted(r["id"] for r in rows) == ["ep1", "ep3", "ep4"]
    assert rows[0]["id"] == "ep1" and rows[0]["score"] > rows[1]["score"] > 0  # BM25, unbounded
    assert ft_ids(q, idx, "run") == []  # StandardAnalyzer: no stemming
    assert ft_ids(q, idx, "Bob's") == []  # the apostrophe stays inside the token


def test_fulltext_lucene_query_syntax(q: Q, episodes: str) -> None:
    idx = f"{episodes}[content]"
    assert ft_ids(q, idx, "berlin AND typescript") == ["ep1"]
    assert ft_ids(q, idx, "+berlin -dave") == ["ep1"]
    assert ft_ids(q, idx, '"started working"') == ["ep1"]
    assert sorted(ft_ids(q, idx, "type*")) == ["ep1", "ep3"]
    assert sorted(ft_ids(q, idx, "Berl*")) == ["ep1", "ep4"]
    assert sorted(ft_ids(q, idx, "berlni~")) == ["ep1", "ep4"]
    assert sorted(ft_ids(q, idx, "content:react")) == ["ep2", "ep3"]
    for broken in ("", "foo:bar)", "a AND"):
        with pytest.raises(ClientError):  # CypherSyntaxError (a ClientError subclass)
            q(FT, index=idx, q=broken)


def test_fulltext_multi_property_index_and_names(q: Q, episodes: str) -> None:
    both = f"{episodes}[name,content]"
    assert ft_ids(q, both, "frank") == ["ep6"]  # only in name
    assert sorted(ft_ids(q, both, "react")) == ["ep2", "ep3"]  # only in content
    assert ft_ids(q, both, "name:alice") == ["ep1"]
    with pytest.raises(ClientError):  # the name lists the properties in creation order
        q(FT, index=f"{episodes}[content,name]", q="alice")
    with pytest.raises(ClientError):
        q(FT, index=f"{episodes}[name]", q="alice")
    # Options map: skip / limit only.
    rows = q(
        "CALL db.index.fulltext.queryNodes($i, 'berlin', {limit: 1}) YIELD node "
        "RETURN node.id AS id",
        i=f"{episodes}[content]",
    )
    assert len(rows) == 1
    with pytest.raises(ClientError):
        q(
            "CALL db.index.fulltext.queryNodes($i, 'berlin', {analyzer: 'x'}) "
            "YIELD node RETURN node",
            i=f"{episodes}[content]",
        )


def test_fulltext_chinese_standard_vs_cjk_analyzer(q: Q, probe: BoltServer, episodes: str) -> None:
    std = f"{episodes}[content]"
    # StandardAnalyzer: one token per Han character, OR-ed: 喜欢 also finds 欢迎 (ep6).
    assert ft_ids(q, std, "喜欢") == ["ep3", "ep6"]
    assert ft_ids(q, std, '"喜欢"') == ["ep3"]  # a phrase query keeps them together
    assert sorted(ft_ids(q, std, "项目")) == ["ep3", "ep6"]
    assert ft_ids(q, std, "改用") == ["ep3"]
    assert sorted(ft_ids(q, std, "TypeScript")) == ["ep1", "ep3"]  # Latin inside CJK text

    cjk = f"Cjk{uuid.uuid4().hex[:8]}"
    fulltext_ddl(
        probe, cjk, ["content"], '{"analyzer": "org.apache.lucene.analysis.cjk.CJKAnalyzer"}'
    )
    q(
        f"UNWIND $rows AS r CREATE (:{cjk} {{id: r[0], content: r[2]}})",
        rows=[list(d) for d in DOCS],
    )
    idx = f"{cjk}[content]"
    # CJKAnalyzer: overlapping bigrams, so 喜欢 no longer matches 欢迎.
    assert ft_ids(q, idx, "喜欢") == ["ep3"]
    assert ft_ids(q, idx, "欢") == []  # a lone character is not a token
    assert sorted(ft_ids(q, idx, "项目")) == ["ep3", "ep6"]
    assert ft_ids(q, idx, "喜欢 AND 项目") == ["ep3"]
    assert ft_ids(q, idx, "我喜欢这个项目")[0] == "ep3"
    assert sorted(ft_ids(q, idx, "TYPESCRIPT")) == ["ep1", "ep3"]  # still lower-cases Latin
    assert sorted(ft_ids(q, idx, "berlin")) == ["ep1", "ep4"]


def test_fulltext_other_metadata_options(q: Q, probe: BoltServer) -> None:
    t = f"Ft{uuid.uuid4().hex[:8]}"
    fulltext_ddl(probe, t, ["content"], '{"defaultOperator": "AND", "allowLeadingWildcard": true}')
    en = f"En{uuid.uuid4().hex[:8]}"
    fulltext_ddl(
        probe, en, ["content"], '{"analyzer": "org.apache.lucene.analysis.en.EnglishAnalyzer"}'
    )
    q(
        f"CREATE (:{t} {{id: 'a1', content: 'alice berlin'}}), "
        f"(:{t} {{id: 'a2', content: 'alice munich'}})"
    )
    q(f"CREATE (:{en} {{id: 'n1', content: 'running runs ran runner'}})")
    assert ft_ids(q, f"{t}[content]", "alice berlin") == ["a1"]
    assert ft_ids(q, f"{t}[content]", "*lin") == ["a1"]
    assert ft_ids(q, f"{en}[content]", "run") == ["n1"]  # stemming


def test_fulltext_follows_writes_and_transactions(q: Q, probe: BoltServer) -> None:
    t = f"Tx{uuid.uuid4().hex[:8]}"
    fulltext_ddl(probe, t, ["content"])
    idx = f"{t}[content]"
    with q.session() as s:
        tx = s.begin_transaction()
        tx.run(f"CREATE (:{t} {{id: 'q', content: 'zanzibar quokka'}})").consume()
        assert tx.run(FT, index=idx, q="quokka").data()[0]["id"] == "q"
        tx.rollback()
    assert ft_ids(q, idx, "quokka") == []
    q(f"CREATE (:{t} {{id: 'q', content: 'zanzibar quokka'}})")
    assert ft_ids(q, idx, "quokka") == ["q"]
    q(f"MATCH (n:{t} {{id: 'q'}}) SET n.content = 'nothing here'")
    assert ft_ids(q, idx, "quokka") == [] and ft_ids(q, idx, "nothing") == ["q"]
    q(f"MATCH (n:{t}) DELETE n")
    assert ft_ids(q, idx, "nothing") == []


def test_fulltext_on_relationships(q: Q, probe: BoltServer, label: str) -> None:
    sql(probe, f"CREATE EDGE TYPE SAYS_{label} IF NOT EXISTS")
    sql(probe, f"CREATE PROPERTY SAYS_{label}.fact IF NOT EXISTS STRING")
    sql(probe, f"CREATE INDEX IF NOT EXISTS ON SAYS_{label} (fact) FULL_TEXT")
    q(f"CREATE (:{label})-[:SAYS_{label} {{fact: 'alice likes green tea'}}]->(:{label})")
    rows = q(
        "CALL db.index.fulltext.queryRelationships($i, 'tea') YIELD relationship, score "
        "RETURN relationship.fact AS f, type(relationship) AS t, score",
        i=f"SAYS_{label}[fact]",
    )
    assert len(rows) == 1 and rows[0]["t"] == f"SAYS_{label}" and rows[0]["score"] > 0


def test_neo4j_fulltext_and_text_index_ddl(q: Q, label: str) -> None:
    with pytest.raises(CypherSyntaxError):
        q(f"CREATE FULLTEXT INDEX ft_{label} IF NOT EXISTS FOR (n:{label}) ON EACH [n.content]")
    with pytest.raises(DatabaseError):  # Neo4j 4 procedure: unknown
        q(f"CALL db.index.fulltext.createNodeIndex('ft_{label}', ['{label}'], ['content'])")
    # CREATE TEXT INDEX is accepted but makes a plain RANGE index, not a full-text one.
    q(f"CREATE TEXT INDEX tx_{label} IF NOT EXISTS FOR (n:{label}) ON (n.content)")
    idx = [i for i in q("SHOW INDEXES YIELD name, type") if i["name"] == f"tx_{label}"]
    assert idx == [{"name": f"tx_{label}", "type": "RANGE"}]


# --------------------------------------------------------------------------- g. SQL DDL rules


def test_sql_ddl_needs_type_and_property_first(q: Q, probe: BoltServer, label: str) -> None:
    with pytest.raises(ArcadeSQLError) as e:
        sql(probe, f"CREATE INDEX IF NOT EXISTS ON {label} (content) FULL_TEXT")
    assert e.value.status == 500 and "was not found" in e.value.detail["detail"]
    with pytest.raises(ArcadeSQLError):
        sql(probe, f"CREATE PROPERTY {label}.embedding IF NOT EXISTS ARRAY_OF_FLOATS")
    assert sql(probe, f"CREATE VERTEX TYPE {label} IF NOT EXISTS")[0]["created"] is True
    assert sql(probe, f"CREATE VERTEX TYPE {label} IF NOT EXISTS")[0]["created"] is False
    with pytest.raises(ArcadeSQLError) as e:
        sql(probe, f"CREATE VERTEX TYPE {label}")
    assert "already exists" in e.value.detail["detail"]
    with pytest.raises(ArcadeSQLError) as e:  # the property must be declared
        sql(probe, f"CREATE INDEX IF NOT EXISTS ON {label} (content) FULL_TEXT")
    assert "property does not exist" in e.value.detail["detail"]
    with pytest.raises(ArcadeSQLError):
        sql(
            probe,
            f"CREATE INDEX IF NOT EXISTS ON {label} (embedding) LSM_VECTOR "
            "METADATA {dimensions: 4, similarity: 'COSINE'}",
        )
    assert sql(probe, f"CREATE EDGE TYPE E_{label} IF NOT EXISTS")[0]["created"] is True
    assert sql(probe, f"CREATE EDGE TYPE E_{label} IF NOT EXISTS")[0]["created"] is False
    # A label created by Cypher is a vertex type SQL can index afterwards.
    q(f"CREATE CONSTRAINT c_{label} IF NOT EXISTS FOR (n:C{label}) REQUIRE n.id IS UNIQUE")
    assert (
        sql(probe, f"CREATE PROPERTY C{label}.content IF NOT EXISTS STRING")[0]["created"] is True
    )
    with pytest.raises(ArcadeSQLError) as e:
        sql(probe, "SELEC nonsense")
    assert e.value.status == 400
    assert e.value.detail["exception"] == "com.arcadedb.exception.CommandSQLParsingException"
    # The HTTP API also speaks Cypher.
    assert run_sql(probe, "RETURN $x AS x", {"x": 5}, language="cypher") == [{"x": 5}]


# --------------------------------------------------------------------------- h. parameters


def test_parameters(q: Q, label: str) -> None:
    row = q(
        "RETURN $v AS v, size($v) AS n, $m.nested.b AS b, keys($m) AS k, $p IS NULL AS isnull, "
        "coalesce($p, 'dflt') AS c, $big + 1 AS big1, $s AS s",
        v=[0.1, 0.2, 1e-9],
        m={"a": 1, "nested": {"b": [1, "x", None]}, "n": None},
        p=None,
        big=2**53 + 1,
        s="emoji 😀 中文",
    )[0]
    assert row == {
        "v": [0.1, 0.2, 1e-9],
        "n": 3,
        "b": [1, "x", None],
        "k": ["a", "nested", "n"],
        "isnull": True,
        "c": "dflt",
        "big1": 2**53 + 2,
        "s": "emoji 😀 中文",
    }
    q(
        f"UNWIND $rows AS r CREATE (:{label} {{id: r.id, userId: r.u, validAt: r.t}})",
        rows=[{"id": "a", "u": "alice", "t": 10}, {"id": "b", "u": "bob", "t": 20}],
    )
    opt = (
        f"MATCH (n:{label}) WHERE ($u IS NULL OR n.userId = $u) "
        "AND ($ids IS NULL OR n.id IN $ids) AND ($t IS NULL OR n.validAt <= $t) "
        "RETURN collect(n.id) AS ids"
    )
    assert sorted(q.one(opt, u=None, ids=None, t=None)) == ["a", "b"]
    assert q.one(opt, u="alice", ids=None, t=None) == ["a"]
    assert q.one(opt, u=None, ids=["b"], t=None) == ["b"]
    assert q.one(opt, u=None, ids=None, t=15) == ["a"]
    assert q(
        f"UNWIND $rows AS row MERGE (n:{label} {{id: row.id}}) RETURN count(n) AS c", rows=[]
    ) == [{"c": 0}]
    with pytest.raises(ClientError) as e:
        q("RETURN $missing AS m")
    assert e.value.code == "Neo.ClientError.Statement.ParameterMissing"


# --------------------------------------------------------------------------- i. errors


@pytest.mark.parametrize(
    ("cypher", "exc", "code"),
    [
        ("MATCH (n RETURN n", CypherSyntaxError, "Neo.ClientError.Statement.SyntaxError"),
        ("MATCH (n) RETURN n.x +", CypherSyntaxError, "Neo.ClientError.Statement.SyntaxError"),
        ("RETURN unknownFn(1)", CypherSyntaxError, "Neo.ClientError.Statement.SyntaxError"),
        ("RETURN 1 / 0 AS x", ClientError, "Neo.ClientError.Statement.ArithmeticError"),
        ("CALL no.such.proc()", DatabaseError, "Neo.DatabaseError.General.UnknownError"),
    ],
)
def test_error_types(q: Q, cypher: str, exc: type[Neo4jError], code: str) -> None:
    with pytest.raises(exc) as e:
        q(cypher)
    assert e.value.code == code


# --------------------------------------------------------------------------- timings


def test_round_trip_latency_is_sane(q: Q, label: str) -> None:
    """Not a benchmark: catches a pathological slowdown (numbers in docs/bolt_dialect.md)."""
    q(f"CREATE CONSTRAINT {label}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE")
    rows = [{"id": f"m{i}", "props": {"userId": "u", "n": i}} for i in range(1000)]
    t0 = time.perf_counter()
    q(f"UNWIND $rows AS row MERGE (n:{label} {{id: row.id}}) SET n += row.props", rows=rows)
    merge_s = time.perf_counter() - t0
    lat = []
    for i in range(20):
        t0 = time.perf_counter()
        q(f"MATCH (n:{label} {{id: $id}}) RETURN n.n AS n", id=f"m{i * 7}")
        lat.append(time.perf_counter() - t0)
    lat.sort()
    assert merge_s < 20 and lat[10] < 0.5, (merge_s, lat[10])


def test_parallel_sessions(q: Q, label: str) -> None:
    """Several threads writing through one driver (its connection pool) at once."""
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            with q.session() as s:
                for i in range(10):
                    s.execute_write(
                        lambda tx, i=i: tx.run(
                            f"CREATE (:{label} {{id: $id}})", id=f"{n}-{i}"
                        ).consume()
                    )
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert q.one(f"MATCH (n:{label}) RETURN count(n) AS c") == 40
