"""A write plan as Cypher: the one translation both stores run.

``plan_steps`` turns a ``WritePlan`` into its statements, in order (nodes, then partial
updates, then closed edges, then new edges, so every edge finds its nodes). The neo4j store
runs the steps in one transaction; the embedded store sends them as one query
(``one_query``), which FalkorDB applies whole or, on a failure anywhere in it, rolls back.
"""

from __future__ import annotations

import re
from typing import Any

from graphmem.store._fulltext import with_terms
from graphmem.store._text_terms import complete_text
from graphmem.store.base import EDGE_ENDS, WritePlan
from graphmem.store.queries import Queries

Step = tuple[str, dict[str, Any]]

_PARAM = re.compile(r"\$([A-Za-z_]\w*)")


def plan_steps(queries: Queries, plan: WritePlan) -> list[Step]:
    """The statements that write ``plan``, each with its parameters."""
    u = plan.user_id
    steps: list[Step] = []
    for name, label, nodes in (("upsert_episodes", "Episode", plan.episodes),
                               ("upsert_entities", "Entity", plan.entities),
                               ("upsert_relations", "Relation", plan.relations),
                               ("upsert_abstractions", "Abstraction", plan.abstractions)):
        if nodes:
            # Each node's analysed text (``terms``), which its full-text index covers.
            steps.append((queries.get(name), {"rows": [
                {"id": n.id, "props": with_terms(label, n.props), "embedding": n.embedding}
                for n in nodes]}))
    if plan.passages:
        # after their episodes; a passage has no text of its own, so no terms either
        steps.append((queries.get("upsert_passages"), {"rows": [
            {"id": n.id, "props": n.props, "embedding": n.embedding} for n in plan.passages]}))
    for label, rows in plan.vectors.items():
        steps.append((queries.get("set_vectors", label=label), {"rows": rows, "userId": u}))
    for label, rows in plan.updates.items():
        # An update holding all of a label's text fields makes its terms again.
        rows = [{**r, "props": with_terms(label, r["props"])}
                if complete_text(label, r["props"]) else r for r in rows]
        steps.append((queries.get("set_props", label=label), {"rows": rows, "userId": u}))
    for edge, rows in plan.expire.items():
        src, dst = EDGE_ENDS[edge]
        steps.append((queries.get("expire_links", edge=edge, src=src, dst=dst),
                      {"rows": rows, "userId": u, "at": plan.at}))
    for edge, rows in plan.links.items():
        src, dst = EDGE_ENDS[edge]
        steps.append((queries.get("link", edge=edge, src=src, dst=dst),
                      {"rows": rows, "userId": u}))
    for edge, rows in plan.version_links.items():
        steps.append((queries.get("link", edge=edge, src="Abstraction", dst="Abstraction"),
                      {"rows": rows, "userId": u}))
    for edge, rows in plan.episode_links.items():
        steps.append((queries.get("link", edge=edge, src="Episode", dst="Episode"),
                      {"rows": rows, "userId": u}))
    return steps


def one_query(steps: list[Step]) -> Step:
    """The steps as one statement: each step's parameters renamed apart (``$rows`` of the
    third step becomes ``$s2_rows``), the steps joined by ``WITH count(*) AS _``.

    The aggregation ends each step's rows (and its variables) and always yields one row,
    so the next step runs once, whether the step before matched anything or not. Every
    write query is an ``UNWIND`` with no ``RETURN``, which is what makes them chainable.
    """
    texts: list[str] = []
    params: dict[str, Any] = {}
    for i, (text, step_params) in enumerate(steps):
        texts.append(_PARAM.sub(f"$s{i}_\\1", text.strip()))
        params.update({f"s{i}_{k}": v for k, v in step_params.items()})
    return "\nWITH count(*) AS _\n".join(texts), params
