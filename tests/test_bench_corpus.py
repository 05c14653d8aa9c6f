"""The single-user benchmark corpus (bench/corpus.py): deterministic for a seed, and every
question answerable from the turns it names."""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402


@pytest.fixture(scope="module", params=corpus.VERSIONS)
def dev(request: pytest.FixtureRequest) -> Any:
    return corpus.generate(corpus.DEV_SEED, corpus.LANGS, users=3, version=request.param)


def _version(c: Any) -> str:
    return "v2" if "-v2s" in c.chats[0].user_id else "v1"


def test_same_seed_same_corpus_other_seed_other_corpus(dev: Any) -> None:
    again = corpus.generate(corpus.DEV_SEED, corpus.LANGS, users=3, version=_version(dev))
    assert json.dumps(again.to_json(), ensure_ascii=False) == \
        json.dumps(dev.to_json(), ensure_ascii=False)
    test = corpus.generate(corpus.TEST_SEED, corpus.LANGS, users=3, version=_version(dev))
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


def test_v1_is_the_corpus_its_results_were_measured_on() -> None:
    # bench/results/single_user_seed<N>.json came from this generator; --corpus v1 keeps it
    v1 = corpus.generate(corpus.DEV_SEED, corpus.LANGS, users=2, version="v1")
    digest = hashlib.sha256(json.dumps(v1.to_json(), ensure_ascii=False).encode()).hexdigest()
    assert digest == "df55834de95c6f167c7ce2200cb9c026f196ff6efac9d7f43bef8f93f39639aa"
    assert corpus.generate(1, ("en",), 1).chats[0].user_id.startswith("en-v2s1-")  # default


def test_v2_turns_are_long_requests_with_the_fact_inside() -> None:
    v2 = corpus.generate(corpus.DEV_SEED, corpus.LANGS, users=2, version="v2")
    messages = {m.id: m for c in v2.chats for m in c.messages}
    for lang, long_chars in (("en", 1000), ("zh", 400)):
        user = [m for c in v2.chats if c.lang == lang for m in c.messages if m.role == "user"]
        answers = [m for c in v2.chats if c.lang == lang for m in c.messages
                   if m.role == "assistant"]
        assert len(user) > 200
        assert sum(len(m.content) >= long_chars for m in user) > 0.3 * len(user), lang
        assert sum(len(m.content) for m in answers) > 0.3 * sum(len(m.content) for m in user)
        evidence = [(q, messages[r].content) for q in v2.questions if q.lang == lang
                    for r in q.evidence]
        # the fact said in passing: somewhere inside long turns, not in the opening line
        buried = [t for q, t in evidence
                  if len(t) >= long_chars and t.find(q.support[0]) > len(t.split("\n")[0])]
        assert len(buried) > 0.3 * len(evidence), lang


def test_v2_questions_paraphrase_and_events_are_dated_relative_to_the_telling() -> None:
    v2 = corpus.generate(corpus.TEST_SEED, corpus.LANGS, users=3, version="v2")
    messages = {m.id: m for c in v2.chats for m in c.messages}
    for q in v2.questions:
        said = messages[q.evidence[0]].content
        assert q.text not in said
        if q.kind == "when":
            told = datetime.fromisoformat(messages[q.evidence[0]].occurred_at)
            assert q.answer not in said  # only a relative day is said ...
            assert any(p in said.lower() for p in ("yesterday", "two days ago", "last ", "昨天",
                                           "前天", "上周"))
            # ... and the answer is a day within the two weeks before the telling
            for back in range(1, 14):
                if corpus.fmt_date(told - timedelta(days=back), q.lang) == q.answer:
                    break
            else:
                raise AssertionError((q, said))
