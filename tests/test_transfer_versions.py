"""Export and import keep every node and every version link: SUPERSEDES / DISPUTED between
relations, between abstraction versions and between episodes (a message restating
another), each with its properties, and the abstractions themselves. Exported from either
store, imported into a fresh embedded one, and exported again: the same nodes and edges."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.embed import HashingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.inputs import EpisodeIn, RelationIn
from graphmem.service import MemoryService
from graphmem.store.falkor import FalkorStore
from graphmem.transfer import export_user, import_file

from .conftest import DIM, make_settings


def _edges(text: str) -> list[tuple[str, str, str, str, str]]:
    out = []
    for line in text.splitlines():
        rec = json.loads(line)
        if rec["type"] == "edge":
            out.append((rec["edge"], "/".join(rec.get("ends") or []), rec["src"], rec["dst"],
                        json.dumps(rec["props"], sort_keys=True)))
    return sorted(out)


def _nodes(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        rec = json.loads(line)
        if rec["type"] == "node":
            out.setdefault(rec["label"], []).append(json.dumps(rec["props"], sort_keys=True))
    return {label: sorted(rows) for label, rows in out.items()}


def _history(service: MemoryService, user: str) -> None:
    def said(text: str, month: int, ref: str) -> None:
        service.add_episode(EpisodeIn(user_id=user, content=text, role="user", source_ref=ref,
                                      occurred_at=datetime(2025, month, 3, tzinfo=UTC)))

    said("Our rent is 1200 dollars a month, the biggest line in the budget.", 1, "rent-1")
    said("The landlord raised the rent, it's 1450 dollars a month from now on.", 6, "rent-2")
    for n in range(3):
        said("I prefer Neovim for editing.", 2 + n, f"nvim-{n}")
    service.reflect(user)
    said("I prefer Neovim for editing, still.", 8, "nvim-3")
    service.reflect(user)  # new evidence: the next version of the abstraction
    service.add_relations([RelationIn(user, "Ana", "lives_in", "Paris", exclusive=True,
                                      valid_from=datetime(2020, 1, 1, tzinfo=UTC)),
                           RelationIn(user, "Ana", "lives_in", "Berlin", exclusive=True,
                                      valid_from=datetime(2023, 1, 1, tzinfo=UTC))])


def test_version_links_survive_export_and_import(service: MemoryService, user: str,
                                                 tmp_path: Path) -> None:
    _history(service, user)
    first = io.StringIO()
    export_user(service, user, first)
    edges = _edges(first.getvalue())
    kinds = {(e[0], e[1]) for e in edges}
    assert ("SUPERSEDES", "Episode/Episode") in kinds  # the rent restated
    assert ("SUPERSEDES", "Abstraction/Abstraction") in kinds  # the next version
    assert ("SUPERSEDES", "") in kinds  # Berlin after Paris
    path = tmp_path / "export.jsonl"
    path.write_text(first.getvalue(), encoding="utf-8")

    target_store = FalkorStore(tmp_path / "target", dim=DIM)
    target = MemoryService(make_settings(), target_store, HashingEmbedder(DIM))
    target.open()
    try:
        import_file(target, path)
        again = io.StringIO()
        export_user(target, user, again)
        assert _edges(again.getvalue()) == edges
        # and every node as it was, abstractions (both versions) included
        assert _nodes(again.getvalue()) == _nodes(first.getvalue())
        assert len(_nodes(first.getvalue())["Abstraction"]) == 2
        # read back as versions: the earlier rent message is superseded by the later one
        (src, dst) = next((e[2], e[3]) for e in edges if e[1] == "Episode/Episode")
        assert [(r["type"], r["src"], r["dst"]) for r in
                target.store.episode_versions(user, [dst])] == [("SUPERSEDES", src, dst)]
    finally:
        target.close()


def test_an_edge_with_ends_its_type_cannot_join_is_refused(tmp_path: Path) -> None:
    user = "ends-check"
    lines = [{"type": "header", "format": "graphmem-export", "version": 1, "userId": user},
             {"type": "edge", "edge": "MENTIONS", "ends": ["Episode", "Episode"],
              "src": "epi_a", "dst": "epi_b", "props": {}}]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    store = FalkorStore(tmp_path / "store", dim=DIM)
    target = MemoryService(make_settings(), store, HashingEmbedder(DIM))
    target.open()
    try:
        with pytest.raises(InvalidInputError, match="line 2"):
            import_file(target, path)
    finally:
        target.close()
