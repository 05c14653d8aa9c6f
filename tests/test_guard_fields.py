"""Secrets and personal data never reach the store, through any field of any write path.

The attack tests write secrets into every text field of every write mutation of the real
GraphQL app, then read everything back through every query, the export, the raw store and
(embedded store) the bytes of its data directory: the raw values must appear nowhere.

Fake secrets are assembled from pieces so that secret scanners on the repository do not
mistake the test data for leaked keys.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.errors import GraphMemError, InvalidInputError, UnavailableError
from graphmem.guard import GuardPolicy, redact, scan
from graphmem.model import make_id, normalize
from graphmem.settings import Settings
from graphmem.store.base import EDGE_ENDS
from graphmem.store.falkor import FalkorStore
from graphmem.transfer import LABELS, export_user, import_file

from .api_support import Api, make_service, serve_api
from .conftest import DIM, FakeClock, make_settings

# --------------------------------------------------------------------------- the secrets

KEY = "sk-" + "proj-" + "Zx8Qw2Lm9Rt4Yp6Ks1Dv3Hj7Nb5Cf0Gt2Wq8Ae4Ur6Io1"
KEY_HEAD, KEY_TAIL = "sk-" + "proj-" + "Qm4Vx9Lp2Rz7", "Tk3Wn8Hs5Jd1Yc6Bf0Gh2Pq"
SPLIT_KEY = KEY_HEAD + "\u200b" + KEY_TAIL  # a zero-width space inside the key
EMAIL = "ann.lee" + "@" + "example.org"
PHONE_CN = "138" + "1234" + "5678"
PHONE_INTL = "+44 20 " + "7946 0958"
CN_ID = "110105" + "19491231" + "002X"  # the checksum letter X is valid for these digits
CARD = "6222 0212 " + "3456 7894"  # UnionPay prefix, Luhn-valid
WIFI = "hunter2"
CN_PASSWORD = "Xq7" + "pLm29"

# Every raw value that must vanish (the split key is checked by its two halves).
RAW = [KEY, KEY_HEAD, KEY_TAIL, EMAIL, PHONE_CN, "7946 0958", CN_ID, CARD, WIFI, CN_PASSWORD]


def leaks(haystack: str) -> list[str]:
    """The raw values found in ``haystack``, as written or in normalised (id/match) form."""
    folded = normalize(haystack)
    return [s for s in RAW if s in haystack or normalize(s) in folded]


# --------------------------------------------------------------------------- detection


@pytest.mark.parametrize(("kind", "text", "value"), [
    ("email", "write to {v} today", EMAIL),
    ("email", "邮箱{v}", EMAIL),
    ("email", "Email:{v}", EMAIL),
    ("email", "users/{v}/inbox", EMAIL),
    ("phone", "call {v}", PHONE_CN),
    ("phone", "手机{v}，晚上打", PHONE_CN),
    ("phone", "手机号 138-1234-5678", "138-1234-5678"),
    ("phone", "ring {v} after six", PHONE_INTL),
    ("phone", "phone: 020 7946 0958", "020 7946 0958"),
    ("cn_id", "身份证号{v}", CN_ID),
    ("cn_id", "ID {v} on file", "440304199003072515"),
    ("credit_card", "银行卡 {v}", CARD),
    ("credit_card", "card {v}", "6217000123456789019"),
    ("password", "my wifi password {v}", WIFI),
    ("password", "the password for the router is {v}", "Tr0ub4dor"),
    ("password", "wifi密码{v}", CN_PASSWORD),
    ("openai_key", "key {v} here", SPLIT_KEY),
])
def test_personal_data_and_plain_language_passwords_are_found(kind: str, text: str,
                                                              value: str) -> None:
    result = GuardPolicy().guard(text.format(v=value))
    assert kind in result.kinds, result
    assert value not in result.text
    assert f"[REDACTED:{kind}]" in result.text


def test_a_key_split_by_invisible_characters_is_found_whole() -> None:
    for mark in ("\u200b", "\u200c", "\u200d", "\ufeff", "\u00ad", "\u202e", "\u2066", "\u2060"):
        text = f"my key {KEY_HEAD}{mark}{KEY_TAIL} keep it"
        result = redact(text)
        assert result.text == "my key [REDACTED:openai_key] keep it", (mark, result.text)


def test_invisible_characters_outside_a_finding_are_kept() -> None:
    text = "zero\u200bwidth text with " + EMAIL
    result = GuardPolicy().guard(text)
    assert result.text == "zero\u200bwidth text with [REDACTED:email]"
    (finding,) = result.findings
    assert text[finding.start:finding.end] == EMAIL


def test_fullwidth_forms_do_not_hide_personal_data() -> None:
    wide = "".join(chr(ord(c) + 0xFEE0) for c in PHONE_CN)  # １３８...
    assert GuardPolicy().guard(f"手机{wide}").kinds == ["phone"]


def test_cn_id_needs_its_checksum_and_a_date() -> None:
    policy = GuardPolicy()
    assert policy.guard("ID 440304199003072511 on file").clean  # wrong check digit
    assert policy.guard("order 440304199013072515").clean  # month 13
    assert policy.guard("id 11010519491231002x").kinds == ["cn_id"]  # lower-case x


def test_each_kind_has_its_own_mode() -> None:
    text = f"mail {EMAIL} or {PHONE_CN}"
    only_phone = GuardPolicy(pii_modes={"email": "allow"}).guard(text)
    assert only_phone.text == f"mail {EMAIL} or [REDACTED:phone]"
    with pytest.raises(InvalidInputError) as info:
        GuardPolicy(pii_modes={"phone": "reject"}).guard(text, "source")
    assert info.value.field == "source" and "phone" in info.value.message
    assert PHONE_CN not in str(info.value) and EMAIL not in str(info.value)
    # secrets follow secret_mode, personal data its own mode
    mixed = f"{KEY} {EMAIL}"
    with pytest.raises(InvalidInputError):
        GuardPolicy(secret_mode="reject").guard(mixed)
    assert GuardPolicy(pii_modes={"email": "reject"}, secret_mode="redact").guard(KEY).kinds \
        == ["openai_key"]
    assert GuardPolicy(pii_modes={"credit_card": "allow"}).guard(f"card {CARD}").clean


def test_ip_addresses_are_allowed_unless_asked() -> None:
    text = "the NAS is at 203.0.113.7"
    assert GuardPolicy().guard(text).clean
    assert GuardPolicy(pii_modes={"ip_address": "redact"}).guard(text).text \
        == "the NAS is at [REDACTED:ip_address]"


def test_modes_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_PII_MODES", '{"email": "allow", "cn_id": "reject"}')
    monkeypatch.setenv("GRAPHMEM_SECRET_MODE", "reject")
    policy = GuardPolicy.from_settings(Settings(_env_file=None))  # type: ignore[call-arg]
    assert policy.mode_of("email") == "allow"
    assert policy.mode_of("cn_id") == "reject"
    assert policy.mode_of("phone") == "redact"  # not named: the default
    assert policy.mode_of("openai_key") == "reject"
    monkeypatch.setenv("GRAPHMEM_PII_MODES", '{"shoe_size": "redact"}')
    with pytest.raises(ValueError):
        Settings(_env_file=None)  # type: ignore[call-arg]


ORDINARY = [
    "We met on 2024-05-20 and again on 20/05/2024 at 10:30.",
    "Released 2.14.3 (build 20240520.1) after 1.9.12.",
    "It cost $1,299.99 or ¥8,999 with 13% VAT.",
    "Order #20240520123456 shipped; tracking 1Z999AA10123456784.",
    "Logged at 2025-01-02T10:00:00+02:00 and 2025-01-02T08:00:00Z (1735804800).",
    "I ran 5 km in 27 minutes, 3 times a week; room 4012, floor 12.",
    "会议定在2024年5月20日下午3点，预算12000元。",
    "版本 3.11.4 和 3.12.0 都能用。",
    "Password reset links expire after 24 hours.",
    "I changed my password yesterday.",
    "The password manager is 1Password now.",
    "密码错误3次后会被锁定。",
    "Call me after 6, or ping me on Slack.",
    "Timestamps like 1684539840000 are milliseconds.",
    "My phone number is on the fridge and my e-mail is in the contacts.",
    "ISBN 978-3-16-148410-0 is on the back cover.",
    "Python 3.12.1.0 and node v20.11.1 are installed.",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text: str) -> None:
    result = GuardPolicy().guard(text)
    assert result.clean, result
    assert result.text == text


def test_scan_stays_linear_on_new_patterns() -> None:
    for text in ("1." * 20_000, "1 " * 20_000, "a@" * 20_000, "password " * 5_000,
                 "\u200b" * 40_000, "密码" * 20_000, "phone " * 8_000):
        GuardPolicy(pii_modes={"ip_address": "redact"}).guard(text)  # returns in time


# --------------------------------------------------------------------------- attack through the API

ADD_EPISODE = """mutation($in: EpisodeInput!) { addEpisode(input: $in) {
  episode { id content speaker source sessionId sourceRef role }
  relations { id subject predicate object statement category sourceRefs }
  entities { id name aliases } redacted duplicate } }"""
ADD_EPISODES = """mutation($in: [EpisodeInput!]!) { addEpisodes(inputs: $in) {
  episode { id content speaker source sessionId sourceRef role }
  relations { id subject object statement } entities { name } redacted } }"""
REL_FIELDS = "id subject predicate object statement category sourceRefs"
ADD_RELATION = f"mutation($in: RelationInput!) {{ addRelation(input: $in) {{ {REL_FIELDS} }} }}"
ADD_RELATIONS = ("mutation($in: [RelationInput!]!) { addRelations(inputs: $in) { "
                 f"{REL_FIELDS} }} }}")
EPISODES = """query($u: ID!) { episodes(userId: $u, limit: 100, includeForgotten: true) {
  items { id content kind role speaker sessionId source sourceRef } } }"""
RELATIONS = f"""query($u: ID!) {{ relations(userId: $u, includeHistory: true, limit: 100) {{
  {REL_FIELDS} subjectEntity {{ name aliases summary }} objectEntity {{ name aliases }}
  evidence {{ content speaker source sessionId sourceRef }} sources {{ sourceRef }}
  supersedes {{ statement }} supersededBy {{ statement }} disputes {{ statement }} }} }}"""
ENTITIES = """query($u: ID!) { entities(userId: $u, limit: 100, includeForgotten: true) {
  items { id name type aliases summary relations(includeHistory: true) {
    subject object statement sourceRefs } } } }"""
RECALL = """query($in: RecallInput!) { recall(input: $in) {
  items { kind text sources { sourceRef } } conflicts { warning } } }"""
HISTORY = "query($u: ID!, $r: ID!) { history(userId: $u, relationId: $r) { " + REL_FIELDS + " } }"


def _attack_writes(api: Api, user: str) -> list[Any]:
    """Secrets in every text field of every write mutation; returns the write responses."""
    out: list[Any] = []
    out.append(api.data(ADD_EPISODE, {"in": {
        "userId": user, "occurredAt": "2024-03-01T09:00:00Z",
        "content": f"I use key {KEY} and my wifi password {WIFI}. Mail me at {EMAIL}.",
        "speaker": f"Ann {EMAIL}", "source": f"sms from {PHONE_CN}",
        "sessionId": f"session/{EMAIL}", "sourceRef": f"msg-{PHONE_CN}",
        "role": f"agent {PHONE_CN}", "kind": "message"}}))
    out.append(api.data(ADD_EPISODES, {"in": [{
        "userId": user, "occurredAt": "2024-03-02T09:00:00Z",
        "sessionId": f"chat {CN_ID}", "sourceRef": f"thread {SPLIT_KEY}",
        "source": f"{PHONE_INTL} line",
        "messages": [
            {"role": "user", "name": f"Bob {EMAIL}",
             "content": f"My ID is {CN_ID} and my card {CARD}. I prefer tea."},
            {"role": "assistant", "name": f"bot {PHONE_CN}",
             "content": f"Noted the key {SPLIT_KEY} and wifi密码{CN_PASSWORD}."},
        ]}]}))
    out.append(api.data(ADD_RELATION, {"in": {
        "userId": user, "subject": f"Ann {EMAIL}", "predicate": f"calls {PHONE_CN}",
        "object": f"card {CARD}", "statement": f"Ann ({CN_ID}) pays with {CARD}",
        "category": f"fact {PHONE_INTL}", "sourceRef": f"ref {KEY}",
        "validFrom": "2024-03-03T00:00:00Z"}}))
    out.append(api.data(ADD_RELATIONS, {"in": [
        {"userId": user, "subject": "Ann", "predicate": "uses", "object": SPLIT_KEY,
         "statement": f"my wifi password {WIFI}", "sourceRef": f"r-{CN_ID}",
         "validFrom": "2024-03-04T00:00:00Z"},
        {"userId": user, "subject": f"wifi密码{CN_PASSWORD}", "predicate": "prefers",
         "object": EMAIL, "category": f"contact {EMAIL}", "exclusive": True,
         "validFrom": "2024-03-05T00:00:00Z"},
    ]}))
    return out


def _read_everything(api: Api, user: str, service: Any) -> list[Any]:
    seen: list[Any] = [api.data(EPISODES, {"u": user}), api.data(ENTITIES, {"u": user})]
    rels = api.data(RELATIONS, {"u": user})
    seen.append(rels)
    for rel in rels["relations"]:
        seen.append(api.data(HISTORY, {"u": user, "r": rel["id"]}))
    for query in ("what key, wifi password, email and phone do I have?", "Ann card ID",
                  "tea"):
        seen.append(api.data(RECALL, {"in": {"userId": user, "query": query, "limit": 50}}))
    out = io.StringIO()
    export_user(service, user, out)
    seen.append(out.getvalue())
    return seen


def _raw_store(store: Any, user: str) -> str:
    rows: list[Any] = []
    for label in LABELS:
        rows.extend(store.export_nodes(label, user, 0, 10_000))
    for edge in EDGE_ENDS:
        rows.extend(store.export_edges(edge, user))
    return json.dumps(rows, ensure_ascii=False)


def _text(items: list[Any]) -> str:
    return "\n".join(i if isinstance(i, str) else json.dumps(i, ensure_ascii=False)
                     for i in items)


def test_secrets_in_every_field_are_stored_nowhere(store: Any, user: str,
                                                   clock: FakeClock) -> None:
    service = make_service(store, clock)
    with serve_api(service) as api:
        writes = _attack_writes(api, user)
        reads = _read_everything(api, user, service)
    assert leaks(_text(writes)) == []
    assert leaks(_text(reads)) == []
    raw = _raw_store(store, user)
    assert leaks(raw) == []
    # the fields were stored (redacted), not dropped
    ep = writes[0]["addEpisode"]["episode"]
    assert ep["speaker"] == "Ann [REDACTED:email]"
    assert ep["source"] == "sms from [REDACTED:phone]"
    assert ep["sessionId"] == "session/[REDACTED:email]"
    assert ep["sourceRef"] == "msg-[REDACTED:phone]"
    assert writes[0]["addEpisode"]["redacted"] == ["email", "openai_key", "password", "phone"]
    batch = writes[1]["addEpisodes"][0]
    assert batch["redacted"] == ["cn_id", "credit_card", "email", "openai_key", "password",
                                 "phone"]
    assert "Bob [REDACTED:email]: My ID is [REDACTED:cn_id]" in batch["episode"]["content"]
    assert "\u200b" not in batch["episode"]["sourceRef"]
    rel = writes[2]["addRelation"]
    assert rel["subject"].endswith("[REDACTED:email]")  # (or the entity it resolved to)
    assert rel["predicate"] == "calls [REDACTED:phone]"
    assert rel["statement"] == "Ann ([REDACTED:cn_id]) pays with [REDACTED:credit_card]"
    assert rel["category"] == "fact [REDACTED:phone]"
    assert rel["sourceRefs"] == ["ref [REDACTED:openai_key]"]
    assert "[REDACTED:" in raw


def test_a_resent_episode_with_secrets_in_its_ids_is_still_a_duplicate(
        embedded_store: FalkorStore, user: str, clock: FakeClock) -> None:
    episode = {"userId": user, "occurredAt": "2024-03-01T09:00:00Z", "content": "hello",
               "sessionId": f"s-{EMAIL}", "sourceRef": f"m-{KEY}"}
    with serve_api(make_service(embedded_store, clock)) as api:
        first = api.data(ADD_EPISODE, {"in": episode})["addEpisode"]
        again = api.data(ADD_EPISODE, {"in": episode})["addEpisode"]
    assert first["duplicate"] is False and again["duplicate"] is True
    assert again["episode"]["id"] == first["episode"]["id"]


def test_reject_modes_refuse_the_write_and_name_the_field(embedded_store: FalkorStore,
                                                         user: str, clock: FakeClock) -> None:
    service = make_service(embedded_store, clock, pii_modes={"email": "reject"})
    with serve_api(service) as api:
        errors = api.errors(ADD_EPISODE, {"in": {
            "userId": user, "occurredAt": "2024-03-01T09:00:00Z", "content": "hello",
            "source": f"mail {EMAIL}"}})
        assert errors[0]["extensions"]["code"] == "BAD_USER_INPUT"
        assert errors[0]["extensions"]["field"] == "source"
        errors = api.errors(ADD_RELATIONS, {"in": [
            {"userId": user, "subject": "Ann", "predicate": "likes", "object": "tea"},
            {"userId": user, "subject": "Ann", "predicate": "mails", "object": EMAIL}]})
        assert errors[0]["extensions"]["field"] == "inputs[1].object"
        assert EMAIL not in json.dumps(errors)
        assert api.data(EPISODES, {"u": user})["episodes"]["items"] == []
    assert _raw_store(embedded_store, user) == "[]"


def test_the_data_directory_holds_no_secret(tmp_path: Path, user: str, clock: FakeClock) -> None:
    store = FalkorStore(tmp_path / "db", dim=DIM)
    store.open()
    service = make_service(store, clock)
    canary = "Quokkaberry"  # stored as written: proves the scan below sees stored text
    try:
        with serve_api(service) as api:
            _attack_writes(api, user)
            api.data(ADD_EPISODE, {"in": {"userId": user, "occurredAt": "2024-03-09T00:00:00Z",
                                          "content": f"I like {canary} jam."}})
    finally:
        service.close()
    blobs = b"".join(p.read_bytes() for p in sorted((tmp_path / "db").rglob("*"))
                     if p.is_file())
    assert canary.encode() in blobs
    assert [s for s in RAW if s.encode() in blobs] == []


# --------------------------------------------------------------------------- import


def _old_export(service: Any, user: str, target: str, path: Path) -> None:
    """An export as an older graphmem wrote it: secrets raw in every field, for ``target``."""
    service.add_episode(_episode_in(user))
    service.add_relation(_relation_in(user))
    buf = io.StringIO()
    export_user(service, user, buf)
    swap = {"zzmailzz": EMAIL, "zzphonezz": PHONE_CN, "zzkeyzz": KEY, user: target}
    lines = [json.loads(line) for line in buf.getvalue().splitlines()]
    ids = {r["props"]["id"] for r in lines if r["type"] == "node"}
    swap.update({i: make_id(i.split("_")[0], "import", i) for i in ids})

    def rewrite(value: Any) -> Any:
        if isinstance(value, str):
            for old, new in swap.items():
                value = value.replace(old, new)
            return value
        if isinstance(value, list):
            return [rewrite(v) for v in value]
        if isinstance(value, dict):
            return {k: rewrite(v) for k, v in value.items()}
        return value

    out = []
    for rec in lines:
        rec = rewrite(rec)
        props = rec.get("props") or {}
        if rec.get("label") == "Relation":  # the normalised forms an old version derived
            for key in ("subject", "predicate", "object"):
                props[key + "Norm"] = normalize(props[key])
            props["claims"] = json.dumps([[props["objectNorm"], *c[1:]]
                                          for c in json.loads(props["claims"])])
        if rec.get("label") == "Entity":
            props["normName"] = normalize(props["name"])
        out.append(json.dumps(rec, ensure_ascii=False))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _episode_in(user: str) -> Any:
    from graphmem.inputs import EpisodeIn

    return EpisodeIn(user_id=user, occurred_at="2024-01-01T00:00:00Z",
                     content="Ann's mail is zzmailzz and her key zzkeyzz.",
                     speaker="zzmailzz", source="zzphonezz", session_id="s-zzphonezz",
                     source_ref="ref-zzkeyzz")


def _relation_in(user: str) -> Any:
    from graphmem.inputs import RelationIn

    return RelationIn(user_id=user, subject="Ann zzphonezz", predicate="mails",
                      object="zzmailzz", statement="Ann mails zzmailzz",
                      category="contact zzphonezz", source_ref="ref-zzkeyzz")


@pytest.fixture
def old_export(embedded_store: FalkorStore, tmp_path: Path, user: str,
               clock: FakeClock) -> Iterator[tuple[Path, str]]:
    target = f"{user}-imported"
    path = tmp_path / "old.jsonl"
    _old_export(make_service(embedded_store, clock), user, target, path)
    text = path.read_text(encoding="utf-8")
    assert EMAIL in text and PHONE_CN in text and normalize(EMAIL) in text  # the attack is real
    yield path, target


def test_import_guards_every_field(embedded_store: FalkorStore, clock: FakeClock,
                                   old_export: tuple[Path, str]) -> None:
    path, target = old_export
    service = make_service(embedded_store, clock)
    import_file(service, path)
    raw = _raw_store(embedded_store, target)
    assert leaks(raw) == []
    assert "[REDACTED:email]" in raw
    # the redacted relation is still found by its (redacted) object
    (rel,) = service.relations(target, object="[REDACTED:email]")
    assert rel.statement == "Ann mails [REDACTED:email]"
    assert rel.subject == "Ann [REDACTED:phone]"


def test_import_in_reject_mode_writes_nothing(embedded_store: FalkorStore, clock: FakeClock,
                                              old_export: tuple[Path, str]) -> None:
    path, target = old_export
    service = make_service(embedded_store, clock, pii_modes={"phone": "reject"})
    with pytest.raises(InvalidInputError) as info:
        import_file(service, path)
    assert "phone" in info.value.message and PHONE_CN not in str(info.value)
    assert _raw_store(embedded_store, target) == "[]"


# --------------------------------------------------------------------------- logs


@contextlib.contextmanager
def _failing(store: Any, attr: str, error: Exception) -> Iterator[None]:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    setattr(store, attr, fail)
    yield


def test_rejected_fulltext_queries_are_not_logged_with_their_words(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    from graphmem.store.neo4j import Neo4jStore

    word = "Hunter2Quokka"
    falkor = FalkorStore(tmp_path / "unused", dim=DIM)
    neo = Neo4jStore(uri="bolt://127.0.0.1:1", user="u", password="p", database="d", dim=DIM)
    neo._q.load()
    caplog.set_level(logging.DEBUG)
    with _failing(falkor, "_query", UnavailableError("down")), \
            contextlib.suppress(GraphMemError):
        falkor.fulltext_search("Episode", "u1", f"my wifi {word}", 10)
    with _failing(neo, "_run", GraphMemError("down")), contextlib.suppress(GraphMemError):
        neo.fulltext_search("Episode", "u1", f"my wifi {word}", 10)
    assert word.lower() not in caplog.text.lower()


def test_settings_default_modes() -> None:
    policy = GuardPolicy.from_settings(make_settings())
    assert {k: policy.mode_of(k) for k in ("email", "phone", "cn_id", "credit_card",
                                          "ip_address", "password", "high_entropy")} == {
        "email": "redact", "phone": "redact", "cn_id": "redact", "credit_card": "redact",
        "ip_address": "allow", "password": "redact", "high_entropy": "redact"}
    assert scan(f"{EMAIL}", pii=False) == []  # the low-level scan still asks for PII
