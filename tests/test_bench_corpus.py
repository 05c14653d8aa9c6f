"""The single-user benchmark corpus (bench/corpus.py): deterministic for a seed, and every
question answerable from the turns it names."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402


@pytest.fixture(scope="module")
def dev() -> Any:
    return corpus.generate(corpus.DEV_SEED, corpus.LANGS, users=3)


def test_same_seed_same_corpus_other_seed_other_corpus(dev: Any) -> None:
    again = corpus.generate(corpus.DEV_SEED, corpus.LANGS, users=3)
    assert json.dumps(again.to_json(), ensure_ascii=False) == \
        json.dumps(dev.to_json(), ensure_ascii=False)
    test = corpus.generate(corpus.TEST_SEED, corpus.LANGS, users=3)
    assert [m.content for m in test.chats[0].messages] != \
        [m.content for m in dev.chats[0].messages]


def test_every_question_has_existing_evidence_that_holds_its_answer(dev: Any) -> None:
    messages = {m.id: (c, m) for c in dev.chats for m in c.messages}
    assert len(messages) == sum(len(c.messages) for c in dev.chats)  # ids are unique
    for q in dev.questions:
        assert q.evidence, q
        for ref in (*q.evidence, *q.old, *q.new):
            chat, msg = messages[ref]
            assert chat.user_id == q.user_id and msg.role == "user", (q, ref)
        texts = [messages[ref][1].content for ref in q.evidence]
        for needle in q.support:
            assert any(needle in t for t in texts), (q, texts)


def test_question_kinds_carry_their_structure(dev: Any) -> None:
    messages = {m.id: m for c in dev.chats for m in c.messages}
    at = {ref: datetime.fromisoformat(m.occurred_at) for ref, m in messages.items()}
    for lang in corpus.LANGS:
        kinds = {q.kind for q in dev.questions if q.lang == lang}
        assert kinds == set(corpus.KINDS), lang
    for q in dev.questions:
        if q.kind == "current":
            assert q.new == q.evidence and q.old and q.answer in messages[q.new[0]].content
            assert all(at[o] < at[q.new[0]] for o in q.old)
            assert all(q.answer not in messages[o].content for o in q.old)  # a new value
        elif q.kind == "past":
            assert q.as_of is not None
            assert at[q.evidence[0]] <= datetime.fromisoformat(q.as_of)
        elif q.kind == "how_many":
            assert len(q.evidence) == int(q.answer) >= 2
            assert all(q.support[0] in messages[r].content for r in q.evidence)
            assert len({messages[r].content for r in q.evidence}) == len(q.evidence)
        elif q.kind == "contradiction":
            assert len(q.evidence) == 2 and at[q.evidence[0]] < at[q.evidence[1]]
        elif q.kind == "multi_session":
            sessions = {r.rsplit(":", 1)[0] for r in q.evidence}
            assert len(q.evidence) == 3 and len(sessions) == 3


def test_a_past_question_asks_a_month_before_the_next_version(dev: Any) -> None:
    current = {(q.user_id, q.slot): q for q in dev.questions if q.kind == "current"}
    messages = {m.id: m for c in dev.chats for m in c.messages}
    for q in dev.questions:
        if q.kind != "past":
            continue
        chain = [*current[(q.user_id, q.slot)].old, *current[(q.user_id, q.slot)].new]
        i = chain.index(q.evidence[0])
        assert i < len(chain) - 1  # never the current version
        nxt = datetime.fromisoformat(messages[chain[i + 1]].occurred_at)
        assert datetime.fromisoformat(q.as_of or "") < nxt
