"""The guard applied to whole records: a relation batch, and nodes and edges of an import.

Episodes are guarded field by field in ``graphmem.ingest``. Here the same policy covers the
relation inputs (before any id or group key is derived from them) and every stored text of
an imported node, including the normalised copies (``subjectNorm``, ``normName``, a claim's
object...) that an older version derived from a value now redacted: those are derived again
from the redacted value, so an imported relation is still found by what it now says.
"""

from __future__ import annotations

import json
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.guard import FieldGuard, GuardPolicy
from graphmem.inputs import RelationIn
from graphmem.model import normalize
from graphmem.settings import Settings

_RELATION_FIELDS = ("subject", "predicate", "object", "statement", "category", "source_ref",
                    "scope", "session_id")
_CAMEL = {"source_ref": "sourceRef", "session_id": "sessionId"}

# Node properties that point at other nodes: a secret in one cannot be redacted without
# breaking what points there, so it refuses the import.
_REFERENCES = frozenset({"id", "subjectId", "objectId", "episodeIds", "groupKey"})
# Not guarded: the tenant key (checked against the export's header, as on every write) and
# values the import sets itself.
_AS_IS = frozenset({"userId", "embeddingModel"})
# JSON-encoded logs: their string leaves are guarded, the JSON stays valid.
_JSON = frozenset({"claims", "untilLog", "aliveLog", "statusLog", "feedbackLog"})
# display property -> the normalised copy derived from it
_NORMS = {"Relation": {"subject": "subjectNorm", "predicate": "predicateNorm",
                       "object": "objectNorm"},
          "Entity": {"name": "normName"}}
_CLAIM_OBJ, _CLAIM_EPISODE = 0, 5


def guard_relations(batch: list[RelationIn], settings: Settings) -> list[str]:
    """Guard every stored text of validated relation inputs, in place; the kinds redacted.

    A rejection names the field as validation does (``inputs[i].object`` in a batch).
    """
    policy = GuardPolicy.from_settings(settings)
    kinds: set[str] = set()
    for i, data in enumerate(batch):
        guard = FieldGuard(policy, f"inputs[{i}]." if len(batch) > 1 else "")
        for name in _RELATION_FIELDS:
            setattr(data, name, guard(getattr(data, name), _CAMEL.get(name, name)))
        kinds.update(guard.kinds)
    return sorted(kinds)


def may_reject(policy: GuardPolicy) -> bool:
    """Whether a finding can refuse a write under ``policy`` (an import then checks first)."""
    return policy.secret_mode == "reject" or "reject" in policy.pii_modes.values()


def guard_node(label: str, props: dict[str, Any], policy: GuardPolicy) -> dict[str, Any]:
    """An imported node's properties with every stored text guarded (a new dict)."""
    where = f"{label} {str(props.get('id'))[:40]}"
    guard = FieldGuard(policy, f"{where}: ")
    out: dict[str, Any] = {}
    for key, value in props.items():
        if key in _AS_IS:
            out[key] = value
        elif key in _REFERENCES:
            _check_reference(policy, value, f"{where}: {key}")
            out[key] = value
        elif key in _JSON:
            out[key] = value  # after the plain texts: a claim's object follows objectNorm
        else:
            out[key] = _guard_value(guard, value, key)
    _rederive_norms(label, props, out)
    for key in _JSON & out.keys():
        out[key] = _guard_json(guard, policy, key, props, out, where)
    return out


def guard_edge(edge: dict[str, Any], policy: GuardPolicy, where: str) -> dict[str, Any]:
    """An imported edge record: ends checked like ids, string properties guarded."""
    for end in ("src", "dst"):
        _check_reference(policy, edge.get(end), f"{where}: {end}")
    guard = FieldGuard(policy, f"{where}: ")
    props = edge.get("props") or {}
    return {**edge, "props": {k: _guard_value(guard, v, k) for k, v in props.items()}}


def _check_reference(policy: GuardPolicy, value: Any, field: str) -> None:
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, str) and policy.guard(item, field).findings:
            raise InvalidInputError(field, "contains sensitive data; an id cannot be "
                                           "redacted, so the import is refused")


def _guard_value(guard: FieldGuard, value: Any, key: str) -> Any:
    if isinstance(value, str):
        return guard(value, key)
    if isinstance(value, list):
        return [guard(v, key) if isinstance(v, str) else v for v in value]
    return value


def _rederive_norms(label: str, before: dict[str, Any], after: dict[str, Any]) -> None:
    """Normalised copies of a redacted display value are derived from its redacted form."""
    for display, norm in _NORMS.get(label, {}).items():
        if isinstance(after.get(display), str) and after[display] != before.get(display):
            after[norm] = normalize(after[display])
    if label == "Entity" and isinstance(after.get("aliases"), list) \
            and isinstance(after.get("aliasNorms"), list):
        changed = [(a, b) for a, b in zip(before.get("aliases") or [], after["aliases"],
                                          strict=False) if a != b]
        if changed:
            dropped = {normalize(a) for a, _ in changed if isinstance(a, str)}
            kept = [n for n in after["aliasNorms"] if n not in dropped]
            after["aliasNorms"] = sorted({*kept, *(normalize(b) for _, b in changed)})


def _guard_json(guard: FieldGuard, policy: GuardPolicy, key: str, before: dict[str, Any],
                after: dict[str, Any], where: str) -> Any:
    raw = after[key]
    if not isinstance(raw, str):
        return raw
    try:
        data = json.loads(raw)
    except ValueError:
        return guard(raw, key)  # not JSON: guarded as text (the import's checks judge it)
    if key == "claims" and isinstance(data, list):
        old_obj, new_obj = before.get("objectNorm"), after.get("objectNorm")
        for claim in data:
            if not isinstance(claim, list) or len(claim) <= _CLAIM_EPISODE:
                continue
            if old_obj != new_obj and claim[_CLAIM_OBJ] == old_obj:
                claim[_CLAIM_OBJ] = new_obj
            _check_reference(policy, claim[_CLAIM_EPISODE], f"{where}: {key}")
    return json.dumps(_guard_leaves(guard, data, key))


def _guard_leaves(guard: FieldGuard, data: Any, key: str) -> Any:
    if isinstance(data, str):
        return guard(data, key)
    if isinstance(data, list):
        return [_guard_leaves(guard, v, key) for v in data]
    if isinstance(data, dict):
        return {k: _guard_leaves(guard, v, key) for k, v in data.items()}
    return data


def guard_record(record: dict[str, Any], policy: GuardPolicy) -> dict[str, Any]:
    """One export record (node or edge) with its texts guarded; other records as they are."""
    if record.get("type") == "node" and isinstance(record.get("props"), dict):
        return {**record, "props": guard_node(str(record.get("label")), record["props"],
                                              policy)}
    if record.get("type") == "edge":
        return guard_edge(record, policy, f"{record.get('edge')} edge")
    return record
