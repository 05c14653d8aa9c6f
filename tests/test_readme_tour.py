"""The README's five-minute tour, run as written on a fresh server with the default settings
(MiniLM embedder, rule engine, embedded store): every operation must answer exactly the
JSON the README shows after it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from graphmem.api.app import create_app
from graphmem.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def tour_steps() -> list[tuple[str, object]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # the tour runs to the next heading (the sections after it have their own examples)
    section = re.split(r"\n#{2,3} ", text.split("## Five-minute tour", 1)[1], maxsplit=1)[0]
    blocks = re.findall(r"```(\w+)\n(.*?)```", section, flags=re.S)
    steps = []
    for (lang, body), (next_lang, answer) in zip(blocks, blocks[1:], strict=False):
        if lang == "graphql":
            assert next_lang == "json", f"no answer shown after:\n{body}"
            steps.append((body, json.loads(answer)))
    return steps


def test_the_tour_shows_its_answers() -> None:
    assert len(tour_steps()) >= 5


@pytest.mark.slow
def test_the_tour_answers_as_shown(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    settings = Settings(data_dir=tmp_path / "graphmem-data")  # everything else default
    with TestClient(create_app(settings)) as client:
        for query, shown in tour_steps():
            resp = client.post("/graphql", json={"query": query})
            body = resp.json()
            assert resp.status_code == 200 and not body.get("errors"), body
            assert body["data"] == shown, query
