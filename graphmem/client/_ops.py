"""The GraphQL operations the clients send, each with its variables and result parser.

The sync and async clients share these: an ``Op`` is the document, the variables and how
to read the answer, so each client method is one line over its transport.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

from pydantic import TypeAdapter

from graphmem.client._models import (
    Abstraction,
    AddEpisodeResult,
    Entity,
    EntityPage,
    EpisodeInput,
    EpisodePage,
    MemoryKind,
    MessageInput,
    RecallResult,
    Relation,
    RelationInput,
    RelationPage,
    Stats,
)

_REF = "{ id kind }"
_SOURCE = "{ id sourceRef occurredAt }"
RELATION_FIELDS = f"""id userId subject predicate object statement category exclusive
  validFrom validUntil recordedAt expiredAt status confidence importance forgottenAt
  sourceRefs accessCount scope sessionId supersedes {{ id }} supersededBy {{ id }} disputes {{ id }}
  sources {_SOURCE}"""
EPISODE_FIELDS = """id userId sessionId content kind role speaker occurredAt recordedAt source
  sourceRef forgottenAt status embeddingModel scope"""
ENTITY_FIELDS = """id userId name type aliases summary createdAt forgottenAt status
  resolutions { name matched score method at }"""
ABSTRACTION_FIELDS = f"""id conclusion conditions confidence version status kind createdAt
  validFrom validUntil recordedAt expiredAt sources {_REF} supersedes {_REF}
  disputes {_REF} scope"""
PAYLOAD_FIELDS = f"""episode {{ {EPISODE_FIELDS} }} relations {{ {RELATION_FIELDS} }}
  entities {{ {ENTITY_FIELDS} }} engine error redacted duplicate skippedLowConfidence"""
RECALL_FIELDS = f"""items {{ kind id text score
    scores {{ vector fulltext graph recency importance frequency temporal fused }}
    validFrom validUntil occurredAt status sources {_SOURCE}
    relation {{ {RELATION_FIELDS} }} episode {{ {EPISODE_FIELDS} }}
    entity {{ {ENTITY_FIELDS} }} }}
  conflicts {{ ids warning }} temporalWindow {{ start end phrase kind }} coldStart tookMs"""
STATS_FIELDS = """userId episodes entities relations abstractions forgotten
  byStatus { status count } embeddingModels mixedModelsWarning reflectionDue reflectionReason"""

_RELATION_FILTER_VARS = ("$userId: ID!, $subject: String, $predicate: String, $object: String, "
                         "$asOf: DateTime, $knownAt: DateTime, $includeHistory: Boolean!, "
                         "$newestFirst: Boolean, $scope: String, $sessionId: ID")
_RELATION_FILTER_ARGS = ("userId: $userId, subject: $subject, predicate: $predicate, "
                         "object: $object, asOf: $asOf, knownAt: $knownAt, "
                         "includeHistory: $includeHistory, newestFirst: $newestFirst, "
                         "scope: $scope, sessionId: $sessionId")


@dataclass(frozen=True, slots=True)
class Op[T]:
    """One GraphQL operation: send ``document`` with ``variables``, read ``field`` of the
    answer's data with ``parse``. ``mutation`` ops are not retried after a timeout."""

    document: str
    variables: dict[str, Any]
    field: str
    parse: Callable[[Any], T]
    mutation: bool = False

    def result(self, data: dict[str, Any]) -> T:
        return self.parse(data[self.field] if self.field else data)


def _adapter[T](tp: type[T]) -> Callable[[Any], T]:
    return TypeAdapter(tp).validate_python


def _list_of[T](tp: type[T]) -> Callable[[Any], list[T]]:
    return TypeAdapter(list[tp]).validate_python  # type: ignore[valid-type]


def _same(value: Any) -> Any:
    return value


def _iso(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.isoformat()


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


class RelationFilter(TypedDict, total=False):
    """What ``relations`` / ``relation_page`` / ``iter_relations`` filter on."""

    subject: str | None
    predicate: str | None
    object: str | None
    as_of: datetime | str | None
    known_at: datetime | str | None
    include_history: bool
    newest_first: bool | None
    scope: str | None  # that scope's and the user level's
    session_id: str | None


class RecallOptions(TypedDict, total=False):
    as_of: datetime | str | None
    known_at: datetime | str | None
    between: tuple[datetime | str, datetime | str] | None
    reference_time: datetime | str | None
    limit: int
    kinds: Sequence[MemoryKind | str] | None
    include_history: bool
    hops: int
    scope: str | None  # that scope's memories and the user level's
    session_id: str | None  # only episodes and relations of that session


class EpisodeOptions(TypedDict, total=False):
    content: str | None
    messages: Sequence[MessageInput | dict[str, Any]] | None
    session_id: str | None
    source: str | None
    source_ref: str | None
    kind: str | None
    role: str | None
    speaker: str | None
    scope: str | None


class RelationOptions(TypedDict, total=False):
    valid_from: datetime | str | None
    valid_until: datetime | str | None
    exclusive: bool | None
    confidence: float | None
    importance: float | None
    category: str | None
    statement: str | None
    source_ref: str | None
    scope: str | None
    session_id: str | None


def _relation_vars(user_id: str, f: RelationFilter) -> dict[str, Any]:
    return {"userId": user_id, "subject": f.get("subject"), "predicate": f.get("predicate"),
            "object": f.get("object"), "asOf": _iso(f.get("as_of")),
            "knownAt": _iso(f.get("known_at")),
            "includeHistory": bool(f.get("include_history", False)),
            "newestFirst": f.get("newest_first"), "scope": f.get("scope"),
            "sessionId": f.get("session_id")}


# --------------------------------------------------------------------------- writes


def episode_input(user_id: str, occurred_at: datetime | str,
                  opts: EpisodeOptions) -> EpisodeInput:
    messages = opts.get("messages")
    return EpisodeInput.model_validate({
        **{k: v for k, v in opts.items() if k != "messages"},
        "user_id": user_id, "occurred_at": occurred_at,
        "messages": None if messages is None else [
            m if isinstance(m, MessageInput) else MessageInput.model_validate(m)
            for m in messages]})


def add_episodes(episodes: Sequence[EpisodeInput | dict[str, Any]]) -> Op[list[AddEpisodeResult]]:
    inputs = [e if isinstance(e, EpisodeInput) else EpisodeInput.model_validate(e)
              for e in episodes]
    return Op(f"mutation($inputs: [EpisodeInput!]!) {{ addEpisodes(inputs: $inputs) "
              f"{{ {PAYLOAD_FIELDS} }} }}", {"inputs": [i.to_variables() for i in inputs]},
              "addEpisodes", _list_of(AddEpisodeResult), mutation=True)


def add_episode(episode: EpisodeInput) -> Op[AddEpisodeResult]:
    return Op(f"mutation($input: EpisodeInput!) {{ addEpisode(input: $input) "
              f"{{ {PAYLOAD_FIELDS} }} }}", {"input": episode.to_variables()},
              "addEpisode", _adapter(AddEpisodeResult), mutation=True)


def relation_input(user_id: str, subject: str, predicate: str, object: str,
                   opts: RelationOptions) -> RelationInput:
    return RelationInput.model_validate({**opts, "user_id": user_id, "subject": subject,
                                         "predicate": predicate, "object": object})


def add_relation(relation: RelationInput) -> Op[Relation]:
    return Op(f"mutation($input: RelationInput!) {{ addRelation(input: $input) "
              f"{{ {RELATION_FIELDS} }} }}", {"input": relation.to_variables()},
              "addRelation", _adapter(Relation), mutation=True)


def add_relations(relations: Sequence[RelationInput | dict[str, Any]]) -> Op[list[Relation]]:
    inputs = [r if isinstance(r, RelationInput) else RelationInput.model_validate(r)
              for r in relations]
    return Op(f"mutation($inputs: [RelationInput!]!) {{ addRelations(inputs: $inputs) "
              f"{{ {RELATION_FIELDS} }} }}", {"inputs": [i.to_variables() for i in inputs]},
              "addRelations", _list_of(Relation), mutation=True)


def forget(user_id: str, memory_id: str) -> Op[bool]:
    return Op("mutation($userId: ID!, $id: ID!) { forget(userId: $userId, id: $id) }",
              {"userId": user_id, "id": memory_id}, "forget", bool, mutation=True)


def restore(user_id: str, memory_id: str) -> Op[bool]:
    return Op("mutation($userId: ID!, $id: ID!) { restore(userId: $userId, id: $id) }",
              {"userId": user_id, "id": memory_id}, "restore", bool, mutation=True)


def reflect(user_id: str, scope: str | None = None) -> Op[list[Abstraction]]:
    return Op(f"mutation($userId: ID!, $scope: String) {{ reflect(userId: $userId, "
              f"scope: $scope) {{ {ABSTRACTION_FIELDS} }} }}",
              {"userId": user_id, "scope": scope}, "reflect",
              _list_of(Abstraction), mutation=True)


# --------------------------------------------------------------------------- reads


def recall(user_id: str, query: str, opts: RecallOptions) -> Op[RecallResult]:
    between = opts.get("between")
    kinds = opts.get("kinds")
    variables = _drop_none({
        "userId": user_id, "query": query, "asOf": _iso(opts.get("as_of")),
        "knownAt": _iso(opts.get("known_at")),
        "between": {"start": _iso(between[0]), "end": _iso(between[1])} if between else None,
        "referenceTime": _iso(opts.get("reference_time")), "limit": opts.get("limit"),
        "kinds": [str(MemoryKind(str(k).upper())) for k in kinds] if kinds else None,
        "includeHistory": opts.get("include_history"), "hops": opts.get("hops"),
        "scope": opts.get("scope"), "sessionId": opts.get("session_id")})
    return Op(f"query($input: RecallInput!) {{ recall(input: $input) {{ {RECALL_FIELDS} }} }}",
              {"input": variables}, "recall", _adapter(RecallResult))


def relations(user_id: str, limit: int, f: RelationFilter) -> Op[list[Relation]]:
    return Op(f"query({_RELATION_FILTER_VARS}, $limit: Int!) {{ relations("
              f"{_RELATION_FILTER_ARGS}, limit: $limit) {{ {RELATION_FIELDS} }} }}",
              {**_relation_vars(user_id, f), "limit": limit}, "relations", _list_of(Relation))


def relation_page(user_id: str, first: int, after: str | None,
                  f: RelationFilter) -> Op[RelationPage]:
    return Op(f"query({_RELATION_FILTER_VARS}, $first: Int!, $after: String) {{ relationPage("
              f"{_RELATION_FILTER_ARGS}, first: $first, after: $after) "
              f"{{ items {{ {RELATION_FIELDS} }} nextCursor }} }}",
              {**_relation_vars(user_id, f), "first": first, "after": after}, "relationPage",
              _adapter(RelationPage))


def relation(user_id: str, relation_id: str, known_at: datetime | str | None) -> Op[Relation]:
    return Op(f"query($userId: ID!, $id: ID!, $knownAt: DateTime) {{ relation(userId: $userId, "
              f"id: $id, knownAt: $knownAt) {{ {RELATION_FIELDS} }} }}",
              {"userId": user_id, "id": relation_id, "knownAt": _iso(known_at)}, "relation",
              _adapter(Relation))


def history(user_id: str, relation_id: str) -> Op[list[Relation]]:
    return Op(f"query($userId: ID!, $id: ID!) {{ history(userId: $userId, relationId: $id) "
              f"{{ {RELATION_FIELDS} }} }}", {"userId": user_id, "id": relation_id}, "history",
              _list_of(Relation))


def abstractions(user_id: str, as_of: datetime | str | None, known_at: datetime | str | None,
                 include_history: bool, scope: str | None = None) -> Op[list[Abstraction]]:
    return Op(f"query($userId: ID!, $asOf: DateTime, $knownAt: DateTime, $h: Boolean!, "
              f"$scope: String) {{ abstractions(userId: $userId, asOf: $asOf, "
              f"knownAt: $knownAt, includeHistory: $h, scope: $scope) "
              f"{{ {ABSTRACTION_FIELDS} }} }}",
              {"userId": user_id, "asOf": _iso(as_of), "knownAt": _iso(known_at),
               "h": include_history, "scope": scope}, "abstractions", _list_of(Abstraction))


def entities(user_id: str, name: str | None, limit: int, offset: int,
             include_forgotten: bool) -> Op[EntityPage]:
    return Op(f"query($userId: ID!, $name: String, $limit: Int!, $offset: Int!, $f: Boolean!) "
              f"{{ entities(userId: $userId, name: $name, limit: $limit, offset: $offset, "
              f"includeForgotten: $f) {{ items {{ {ENTITY_FIELDS} }} total limit offset }} }}",
              {"userId": user_id, "name": name, "limit": limit, "offset": offset,
               "f": include_forgotten}, "entities", _adapter(EntityPage))


def episodes(user_id: str, session_id: str | None, limit: int, offset: int,
             include_forgotten: bool) -> Op[EpisodePage]:
    return Op(f"query($userId: ID!, $s: ID, $limit: Int!, $offset: Int!, $f: Boolean!) "
              f"{{ episodes(userId: $userId, sessionId: $s, limit: $limit, offset: $offset, "
              f"includeForgotten: $f) {{ items {{ {EPISODE_FIELDS} }} total limit offset }} }}",
              {"userId": user_id, "s": session_id, "limit": limit, "offset": offset,
               "f": include_forgotten}, "episodes", _adapter(EpisodePage))


def entity(user_id: str, entity_id: str) -> Op[Entity]:
    return Op(f"query($userId: ID!, $id: ID!) {{ entity(userId: $userId, id: $id) "
              f"{{ {ENTITY_FIELDS} }} }}", {"userId": user_id, "id": entity_id}, "entity",
              _adapter(Entity))


def stats(user_id: str) -> Op[Stats]:
    return Op(f"query($userId: ID!) {{ stats(userId: $userId) {{ {STATS_FIELDS} }} }}",
              {"userId": user_id}, "stats", _adapter(Stats))


def raw(document: str, variables: dict[str, Any] | None) -> Op[Any]:
    """Any operation; the whole ``data`` object back. A document that may hold a mutation
    is not sent again after a timeout."""
    return Op(document, variables or {}, "", _same, mutation="mutation" in document)
