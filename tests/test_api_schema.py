"""The exported SDL (schema.graphql) is the schema, and it keeps the contract's names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphmem.api.schema import build_schema, sdl
from graphmem.cli import main

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schema.graphql"


def test_schema_file_matches_the_code() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == sdl(), (
        "schema.graphql is stale: regenerate it with 'graphmem schema --out schema.graphql'")


def test_graphmem_schema_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert capsys.readouterr().out == SCHEMA_FILE.read_text(encoding="utf-8")


def _block(text: str, kind: str, name: str) -> str:
    m = re.search(rf"^{kind} {name} \{{\n(.*?)^\}}", text, re.S | re.M)
    assert m, f"{kind} {name} missing"
    return m.group(1)


def test_contract_names() -> None:
    text = sdl()
    assert "scalar DateTime" in text
    assert re.search(r"enum MemoryKind \{\s+EPISODE\s+ENTITY\s+RELATION\s+ABSTRACTION\s+\}", text)
    assert re.search(r"enum MemoryStatus \{\s+ACTIVE\s+SUPERSEDED\s+DISPUTED\s+FORGOTTEN\s+\}",
                     text)
    query = _block(text, "type", "Query")
    for field in ("recall(input: RecallInput!): RecallResult!",
                  "history(userId: ID!, relationId: ID!): [Relation!]!",
                  "stats(userId: ID!): Stats!"):
        assert field in query
    rel_q = next(line for line in query.splitlines() if line.strip().startswith("relations("))
    for arg in ("userId: ID!", "subject: String", "predicate: String", "asOf: DateTime",
                "knownAt: DateTime", "includeHistory: Boolean! = false"):
        assert arg in rel_q
    mutation = _block(text, "type", "Mutation")
    for field in ("addEpisode(input: EpisodeInput!): AddEpisodePayload!",
                  "addEpisodes(inputs: [EpisodeInput!]!): [AddEpisodePayload!]!",
                  "addRelation(input: RelationInput!): Relation!",
                  "forget(userId: ID!, id: ID!): Boolean!",
                  "restore(userId: ID!, id: ID!): Boolean!"):
        assert field in mutation
    # the contract's arguments, first and in order (extensions such as scope follow)
    assert "abstractions(userId: ID!, asOf: DateTime = null, knownAt: DateTime = null, " \
           "includeHistory: Boolean! = false" in query
    assert re.search(r"abstractions\([^)]*\): \[Abstraction!\]!", query)
    assert re.search(r"reflect\(userId: ID!(, scope: String = null)?\): \[Abstraction!\]!",
                     mutation)
    for name, fields in {
        "EpisodeInput": ["userId: ID!", "sessionId: ID", "occurredAt: DateTime!",
                         "content: String", "messages: [MessageInput!]", "source: String",
                         "sourceRef: String"],
        "RelationInput": ["userId: ID!", "subject: String!", "predicate: String!",
                          "object: String!", "validFrom: DateTime", "validUntil: DateTime",
                          "exclusive: Boolean", "confidence: Float", "sourceRef: String"],
        "RecallInput": ["userId: ID!", "query: String!", "asOf: DateTime", "knownAt: DateTime",
                        "limit: Int! = 10", "kinds: [MemoryKind!]"],
        "MessageInput": ["role: String!", "content: String!", "name: String"],
    }.items():
        block = _block(text, "input", name)
        for f in fields:
            assert f in block, (name, f)
    for name, fields in {
        "RecallItem": ["kind", "id", "text", "score", "scores", "validFrom", "validUntil",
                       "status", "sources"],
        "Scores": ["vector", "fulltext", "graph", "recency", "importance"],
        "Source": ["id", "sourceRef", "occurredAt"],
        "Relation": ["id", "subject", "predicate", "object", "statement", "validFrom",
                     "validUntil", "recordedAt", "expiredAt", "status", "confidence",
                     "supersedes", "supersededBy", "disputes"],
        "Abstraction": ["id", "conclusion", "conditions", "confidence", "version", "status",
                        "createdAt", "sources"],
        "RecallResult": ["items", "conflicts", "temporalWindow"],
    }.items():
        block = _block(text, "type", name)
        present = {line.strip().split(":")[0].split("(")[0] for line in block.splitlines()}
        assert set(fields) <= present, (name, set(fields) - present)


def test_schema_has_no_backend_fields() -> None:
    """Private backend data (claims logs, group keys, embeddings) stays out of the schema."""
    text = sdl()
    for leak in ("groupKey", "claims", "untilLog", "statusLog", "embedding:", "node:",
                 "subjectNorm", "episodeIds"):
        assert leak not in text, leak
    assert build_schema().get_type_by_name("Abstraction") is not None
