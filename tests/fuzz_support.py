"""The machinery of the fuzz suite (``tests/test_fuzz.py``): operation strategies built
from the app's schema, the properties every response is judged by, and their tally.

``GRAPHMEM_FUZZ_EXAMPLES`` sets the examples per test; with ``GRAPHMEM_FUZZ_STATS=<file>``
properties are recorded instead of asserted and a summary is written there at exit
(``bench/fuzz.py``).
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

import graphql
import hypothesis_graphql as hg
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis_graphql import nodes

from graphmem.api.schema import sdl
from graphmem.model import to_ms
from graphmem.store.base import EDGE_ENDS
from graphmem.store.falkor import FalkorStore
from graphmem.store.queries import LABELS

from .api_support import Api

SCHEMA = graphql.build_schema(sdl())
KEY_A, KEY_ADMIN = "fuzz-key-a", "fuzz-key-admin"


def examples(n: int) -> int:
    """``n`` examples, or ``GRAPHMEM_FUZZ_EXAMPLES`` per test when set (long runs)."""
    return max(1, int(os.environ.get("GRAPHMEM_FUZZ_EXAMPLES") or n))


FUZZ = settings(deadline=None, database=None, derandomize=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much,
                                       HealthCheck.function_scoped_fixture])


# --------------------------------------------------------------------------- recording


class Tally:
    """Operations tried and property failures; raises unless recording (``bench/fuzz.py``)."""

    def __init__(self) -> None:
        self.path = os.environ.get("GRAPHMEM_FUZZ_STATS")
        self.tried: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.samples: dict[str, dict[str, str]] = {}

    def fail(self, prop: str, test: str, detail: str, op: str) -> None:
        if not self.path:
            raise AssertionError(f"[{prop}] {detail}\noperation: {op[:2000]}")
        self.failed[prop] += 1
        key = f"{prop}: {_kind_of(detail)}"
        known = self.samples.get(key)
        if known is None or len(op) < len(known["operation"]):  # keep the smallest
            self.samples[key] = {"test": test, "detail": detail[:500], "operation": op[:2000]}

    def write(self) -> None:
        if self.path:
            with open(self.path, "w", encoding="utf-8") as f:
                json.dump({"tried": dict(self.tried), "failed": dict(self.failed),
                           "samples": self.samples}, f, indent=2, ensure_ascii=False)


def _kind_of(detail: str) -> str:
    """A failure's kind, for grouping samples: its text with ids and numbers blanked."""
    return re.sub(r"\d+|[0-9a-f]{24}", "#", detail)[:120]


TALLY = Tally()
atexit.register(TALLY.write)


# --------------------------------------------------------------------------- the app


@dataclass
class FuzzEnv:
    api: Api
    store: FalkorStore
    a: str
    b: str
    a_markers: list[str]
    b_markers: list[str]
    a_ids: list[str]
    b_ids: list[str]
    users: set[str] = field(default_factory=set)
    test: str = ""

    def send(self, op: str, variables: Any = None, *, key: str | None = KEY_A) -> Any:
        """POST one operation (None if the app raised instead of answering)."""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        body = json.dumps({"query": op, "variables": variables})  # ASCII: lone surrogates too
        shown = op if variables is None else f"{op}\nvariables: {json.dumps(variables)[:1000]}"
        return self.request("POST", "/graphql", shown, content=body.encode(),
                            headers={**headers, "content-type": "application/json"})

    def request(self, method: str, url: str, shown: str, **kwargs: Any) -> Any:
        TALLY.tried[self.test] += 1
        try:
            return self.api.client.request(method, url, **kwargs)
        except Exception as e:  # raised through the app: a real client gets a 500
            TALLY.fail("no-5xx", self.test, f"the app raised {type(e).__name__}: "
                                            f"{str(e)[:200]}", shown)
            return None


def snapshot(store: FalkorStore, user: str) -> tuple[dict[str, int], str]:
    """A user's node counts per label and a digest of every node and edge."""
    digest = hashlib.sha256()
    counts: dict[str, int] = {}
    for label in LABELS:
        rows = store.export_nodes(label, user, 0, 1_000_000)
        counts[label] = len(rows)
        for r in rows:  # read counters move with reads, not writes
            r.pop("accessCount", None)
            r.pop("lastAccessedAt", None)
        digest.update(json.dumps(rows, sort_keys=True, default=str).encode())
    for edge in EDGE_ENDS:
        digest.update(json.dumps(store.export_edges(edge, user), sort_keys=True,
                                 default=str).encode())
    return counts, digest.hexdigest()


# --------------------------------------------------------------------------- judging

PY_TEXT = re.compile(
    r"Traceback|File \"|line \d+, in |object has no attribute|iterable argument|NoneType"
    r"|object is not (?:subscriptable|iterable|callable)|unsupported operand"
    r"|positional argument|unexpected keyword|\b\w+(?:Error|Exception)\b"
    r"|\bMATCH \(|\bUNWIND\b|\bMERGE \(|Neo\.\w+Error|GRAPH\.QUERY|redis|falkordb")


def judge(env: FuzzEnv, resp: Any, op: str, *, authenticated: bool = True) -> Any:
    """Check one response against every property; its JSON body (or None)."""
    def fail(prop: str, detail: str) -> None:
        TALLY.fail(prop, env.test, detail, op)

    if resp is None:
        return None
    if resp.status_code >= 500:
        fail("no-5xx", f"HTTP {resp.status_code}: {resp.text[:300]}")
    text = resp.text
    for marker in env.b_markers + ([] if authenticated else env.a_markers):
        if marker in text:
            fail("no-leak", f"response holds {marker!r}: {text[:300]}")
    try:
        body = resp.json()
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    data = body.get("data")
    if data:
        dumped = json.dumps(data)
        for node_id in env.b_ids:
            if node_id in dumped:
                fail("no-leak", f"data holds user B's node {node_id}: {dumped[:300]}")
        if not authenticated:
            fail("no-leak", f"a request without a valid key got data: {dumped[:300]}")
    for err in body.get("errors") or []:
        if not isinstance(err, dict):
            fail("error-code", f"error is not an object: {err!r}")
            continue
        message = str(err.get("message"))
        code = (err.get("extensions") or {}).get("code")
        if not code:
            fail("error-code", f"error without extensions.code: {message[:300]}")
        elif code == "INTERNAL_SERVER_ERROR":
            fail("no-internal-error", f"internal error at {err.get('path')}")
        # Python's own words, not the client's echoed back ("got '0Error'")
        if any(m.group(0) not in op for m in PY_TEXT.finditer(message)):
            fail("no-python-text", f"error message {message[:300]!r}")
    return body


def root_keys(op: str) -> list[str] | None:
    """The response keys of the operation's root fields (None: it does not parse)."""
    try:
        doc = graphql.parse(op)
    except graphql.GraphQLError:
        return None
    keys: list[str] = []
    for definition in doc.definitions:
        if isinstance(definition, graphql.OperationDefinitionNode):
            for sel in definition.selection_set.selections:
                if isinstance(sel, graphql.FieldNode):
                    keys.append((sel.alias or sel.name).value)
    return keys


def all_refused(body: Any, op: str) -> bool:
    """Whether nothing of the operation ran: a request error, or every root field failed."""
    if not isinstance(body, dict) or not body.get("errors"):
        return False
    errors = [e for e in body["errors"] if isinstance(e, dict)]
    if body.get("data") is None and any(not e.get("path") for e in errors):
        return True
    failed = {e["path"][0] for e in errors if e.get("path")}
    keys = root_keys(op)
    return keys is not None and bool(keys) and set(keys) <= failed


def guarded(env: FuzzEnv, op: str, run: Callable[[], Any]) -> Any:
    """Run a request that may write; if it was refused whole, user A must be unchanged."""
    before = snapshot(env.store, env.a)
    body = run()
    if all_refused(body, op):
        after = snapshot(env.store, env.a)
        if after != before:
            TALLY.fail("rejected-unchanged", env.test,
                       f"refused, yet user A changed: {before[0]} -> {after[0]}; errors "
                       f"{json.dumps(body.get('errors'))[:300]}", op)
    return body


# --------------------------------------------------------------------------- strategies

_ZONES = [UTC, timezone(timedelta(hours=14)), timezone(-timedelta(hours=14)),
          timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=3, minutes=7))]
_EDGE_TIMES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "0001-01-01",
               "9999-12-31T23:59:59.999999Z", "1970-01-01T00:00:00Z", "2024-02-30",
               "2024-01-01T24:00:00Z", "now", "", " 2024-01-01 ", "2024-01-01T00:00:00+25:00",
               "+002024-01-01", "1e400", "2024-W01-1"]


def datetime_texts() -> st.SearchStrategy[str]:
    """DateTime literals: valid across the whole range and offsets, edge cases, junk."""
    valid = st.builds(lambda d, z: d.replace(tzinfo=z).isoformat(),
                      st.datetimes(min_value=datetime(1, 1, 1),
                                   max_value=datetime(9999, 12, 31, 23, 59, 59)),
                      st.sampled_from(_ZONES))
    return st.one_of(valid, st.dates().map(str), st.sampled_from(_EDGE_TIMES),
                     st.text(max_size=30))


SCALARS = {"DateTime": datetime_texts().map(nodes.String)}


def _as_document(doc: graphql.DocumentNode) -> graphql.DocumentNode:
    return doc  # printed after the userId / id arguments are retargeted


QUERIES = hg.queries(SCHEMA, custom_scalars=SCALARS, print_ast=_as_document)
MUTATIONS = hg.mutations(SCHEMA, custom_scalars=SCALARS, print_ast=_as_document)
INVALID = hg.from_schema(SCHEMA, mode=hg.Mode.NEGATIVE, custom_scalars=SCALARS,
                         print_ast=_as_document)


class _Retarget(graphql.Visitor):
    """Points generated userId / id arguments at the planted users and their nodes."""

    def __init__(self, draw: st.DrawFn, env: FuzzEnv) -> None:
        super().__init__()
        self.draw, self.env = draw, env

    def _swap(self, node: Any) -> Any:
        name = node.name.value
        if name == "userId":
            pick = self.draw(st.sampled_from([self.env.a, self.env.a, self.env.b,
                                              "nobody", None]))
        elif name in ("id", "relationId"):
            pick = self.draw(st.one_of(st.none(), st.sampled_from(self.env.a_ids),
                                       st.sampled_from(self.env.b_ids)))
        else:
            return None
        if pick is None:
            return None
        return type(node)(name=node.name, value=graphql.StringValueNode(value=pick))

    def enter_argument(self, node: Any, *_: Any) -> Any:
        return self._swap(node)

    def enter_object_field(self, node: Any, *_: Any) -> Any:
        return self._swap(node)


def retargeted(docs: st.SearchStrategy[Any], env: FuzzEnv) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        doc = draw(docs)
        return graphql.print_ast(graphql.visit(doc, _Retarget(draw, env)))

    return build()


def mutated(ops: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A valid document with a few characters deleted, inserted or repeated."""
    @st.composite
    def build(draw: st.DrawFn) -> str:
        text = draw(ops)
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(text)))
            j = draw(st.integers(i, min(len(text), i + 8)))
            edit = draw(st.sampled_from(["delete", "insert", "repeat"]))
            if edit == "delete":
                text = text[:i] + text[j:]
            elif edit == "insert":
                text = text[:i] + draw(st.text(st.sampled_from('{}()[]:$@!."\\ \n#,&|=0a'),
                                               min_size=1, max_size=4)) + text[i:]
            else:
                text = text[:j] + text[i:j] * 3 + text[j:]
        return text

    return build()


JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-2**80, 2**80),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20),
                        datetime_texts())
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12)


def _typed_value(type_: Any, env: FuzzEnv, depth: int = 0) -> st.SearchStrategy[Any]:
    """A variable value for ``type_``: well typed most of the time, a wrong type sometimes."""
    nullable = not isinstance(type_, graphql.GraphQLNonNull)
    inner = type_.of_type if not nullable else type_
    if isinstance(inner, graphql.GraphQLList):
        good: st.SearchStrategy[Any] = st.lists(
            _typed_value(inner.of_type, env, depth + 1), max_size=3)
    elif isinstance(inner, graphql.GraphQLInputObjectType):
        fields = {name: f for name, f in inner.fields.items()
                  if isinstance(f.type, graphql.GraphQLNonNull) or depth < 2}
        good = st.fixed_dictionaries(
            {n: _typed_value(f.type, env, depth + 1) for n, f in fields.items()
             if isinstance(f.type, graphql.GraphQLNonNull)},
            optional={n: _typed_value(f.type, env, depth + 1) for n, f in fields.items()
                      if not isinstance(f.type, graphql.GraphQLNonNull)})
    elif isinstance(inner, graphql.GraphQLEnumType):
        good = st.sampled_from(list(inner.values))
    else:
        good = {"String": st.text(max_size=40), "Int": st.integers(-5, 300),
                "Float": st.floats(-1, 2), "Boolean": st.booleans(),
                "DateTime": datetime_texts(),
                "ID": st.one_of(st.sampled_from([env.a, env.a, env.b] + env.a_ids + env.b_ids),
                                st.text(max_size=20))}.get(inner.name, st.text(max_size=20))
    choices = [good, JSON_LEAVES] + ([st.none()] if nullable or depth else [])
    return st.one_of(*choices)


def _selection(type_: Any) -> str:
    named = graphql.get_named_type(type_)
    if isinstance(named, graphql.GraphQLObjectType):
        scalars = [n for n, f in named.fields.items()
                   if isinstance(graphql.get_named_type(f.type),
                                 graphql.GraphQLScalarType | graphql.GraphQLEnumType)
                   and not f.args]
        return " { " + " ".join(scalars or ["__typename"]) + " }"
    return ""


def with_variables(env: FuzzEnv) -> st.SearchStrategy[tuple[str, Any]]:
    """A root field called through variables, whose values may be of the wrong type."""
    roots = [("query", n, f) for n, f in SCHEMA.query_type.fields.items()]  # type: ignore[union-attr]
    roots += [("mutation", n, f) for n, f in SCHEMA.mutation_type.fields.items()]  # type: ignore[union-attr]

    @st.composite
    def build(draw: st.DrawFn) -> tuple[str, Any]:
        kind, name, fld = draw(st.sampled_from(roots))
        decl = ", ".join(f"${a}: {arg.type}" for a, arg in fld.args.items())
        call = ", ".join(f"{a}: ${a}" for a in fld.args)
        op = f"{kind}{f'({decl})' if decl else ''} {{ {name}{f'({call})' if call else ''}" \
             f"{_selection(fld.type)} }}"
        values = draw(st.fixed_dictionaries({}, optional={
            a: _typed_value(arg.type, env) for a, arg in fld.args.items()}))
        return op, draw(st.one_of(st.just(values), JSON_VALUES))

    return build()


# --------------------------------------------------------------------------- transports

_PATHOLOGICAL = [b"null", b'"query"', b"42", b"[]", b"\xff\xfe{", b'{"query": "{', b"{}",
                 b'{"query": null}', b'{"query": ["{ __typename }"]}',
                 b'{"query": "{ __typename }", "variables": ' + b"[" * 5000 + b"]" * 5000 + b"}",
                 b'{"query": "query($l: Int!) { episodes(userId: \\"x\\", limit: $l) '
                 b'{ total } }", "variables": {"l": ' + b"9" * 5000 + b"}}",
                 b'{"query": "{ __typename }", "extensions": ' + b'{"a":' * 3000
                 + b"1" + b"}" * 3000 + b"}"]


def _encode_name(draw: st.DrawFn, name: str) -> str:
    """The parameter name, some characters percent-encoded, maybe upper-cased."""
    out = []
    for ch in name:
        how = draw(st.sampled_from(["plain", "plain", "escape", "escape", "upper"]))
        out.append(f"%{ord(ch):02X}" if how == "escape" else ch.upper() if how == "upper"
                   else ch)
    return "".join(out)


@st.composite
def requests_(draw: st.DrawFn, env: FuzzEnv) -> dict[str, Any]:
    op = draw(st.one_of(retargeted(QUERIES, env), retargeted(MUTATIONS, env),
                        st.text(max_size=40)))
    key = draw(st.sampled_from([None, None, "wrong", KEY_A, KEY_A]))
    style = draw(st.sampled_from(["bearer", "x-api-key", "lower", "basic"]))
    headers: dict[str, str] = {}
    if key is not None:
        headers = {"bearer": {"Authorization": f"Bearer {key}"},
                   "x-api-key": {"X-API-Key": key},
                   "lower": {"authorization": f"bearer {key}"},
                   "basic": {"Authorization": f"Basic {key}"}}[style]
    method = draw(st.sampled_from(["GET", "GET", "POST", "POST", "PUT"]))
    if method == "GET":
        params = [(_encode_name(draw, "query"), quote(op, safe=""))]
        if draw(st.booleans()):
            params.append((_encode_name(draw, "variables"),
                           quote(json.dumps(draw(JSON_VALUES)), safe="")))
        if draw(st.integers(0, 3)) == 0:
            params.insert(0, ("query", draw(st.sampled_from(["", "{ __typename }"]))))
        qs = "&".join(f"{k}={v}" for k, v in params)
        return {"method": "GET", "url": f"/graphql?{qs}", "headers": headers,
                "content": None, "op": op, "key": key, "style": style}
    ctype = draw(st.sampled_from(["application/json", "application/json", "application/graphql",
                                  "text/plain", "application/x-www-form-urlencoded", None,
                                  "multipart/form-data; boundary=x"]))
    if ctype:
        headers["content-type"] = ctype
    body = draw(st.one_of(
        st.builds(lambda q, v, o, e: json.dumps({"query": q, "variables": v,
                                                 "operationName": o, "extensions": e}),
                  st.just(op), JSON_VALUES, st.none() | st.text(max_size=8), JSON_VALUES
                  ).map(str.encode),
        st.just(op.encode("utf-8", "surrogatepass")),
        JSON_VALUES.map(lambda v: json.dumps(v).encode()),
        st.sampled_from(_PATHOLOGICAL), st.binary(max_size=60)))
    return {"method": method, "url": "/graphql", "headers": headers, "content": body,
            "op": op, "key": key, "style": style}


# --------------------------------------------------------------------------- read back

# Text as clients send it: mostly printable (so most writes are accepted and read back), and
# any code point, lone surrogates, controls and NUL included.
PRINTABLE = st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"]),
                     min_size=1, max_size=40)
TEXTS = st.one_of(PRINTABLE, PRINTABLE, PRINTABLE, st.text(max_size=40),
                  st.text(st.sampled_from("aZ 09_-.:\u00e9\u4e2d\u200b\u202e\U0001f600\t\n"),
                          min_size=1, max_size=30),
                  st.sampled_from(["sk-proj-" + "a1B2" * 12, "password=hunter2", "  padded  ",
                                   "ann@example.com", "+1 415 555 0100", "Python 3.12",
                                   "x\u0000y", "\ud800", "Ann\u200bSmith"]))

_REDACTED = re.compile(r"\[REDACTED:[a-z_]+\]")


def same_text(sent: str, got: Any) -> bool:
    """``got`` is ``sent`` trimmed, each secret in it possibly replaced by a redaction mark."""
    if not isinstance(got, str):
        return False
    want = sent.strip()
    if got == want:
        return True
    parts = _REDACTED.split(got)
    if len(parts) == 1:
        return False
    pattern = "(?s)" + ".+?".join(re.escape(p) for p in parts)
    return re.fullmatch(pattern, want) is not None


def instant_ms(text: str) -> int | None:
    """The epoch ms of an ISO date-time (naive: UTC), None if Python cannot read it."""
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return to_ms(value if value.tzinfo else value.replace(tzinfo=UTC))
