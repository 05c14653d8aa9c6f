"""The one place that picks a store backend from settings."""

from __future__ import annotations

from graphmem.settings import Settings
from graphmem.store.base import Store


def build_store(settings: Settings) -> Store:
    if settings.store == "neo4j":
        from graphmem.store.neo4j import Neo4jStore

        return Neo4jStore(
            uri=settings.neo4j_uri, user=settings.neo4j_user,
            password=settings.neo4j_password.get_secret_value(),
            database=settings.neo4j_database, dim=settings.vector_dim,
            index_mode=settings.neo4j_index_mode, http_url=settings.neo4j_http_url)
    from graphmem.store.falkor import FalkorStore

    return FalkorStore(settings.data_dir, graph=settings.graph_name, dim=settings.vector_dim,
                       start_timeout_s=settings.store_start_timeout_s,
                       query_timeout_s=settings.store_query_timeout_s)
