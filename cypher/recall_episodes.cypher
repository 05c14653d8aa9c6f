// What recall ranks and shows of some episodes: no embedding, none of the bookkeeping (a
// recall loads a few hundred candidates, and every property returned is parsed). Access
// counts are read from the memory's :Access node (see bump_access). Columns, not a map:
// the embedded store's client parses a map's keys again on every row (twice the time for
// a relation row); the store names each row's values by the aliases after RETURN.
MATCH (n:Episode)
WHERE n.id IN $ids AND n.userId = $userId
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n.id AS id, n.createdAt AS createdAt, n.recordedAt AS recordedAt,
       n.forgottenAt AS forgottenAt, n.importance AS importance,
       coalesce(a.count, n.accessCount) AS accessCount,
       coalesce(a.lastAt, n.lastAccessedAt) AS lastAccessedAt,
       n.importanceAdjust AS importanceAdjust, n.content AS content, n.speaker AS speaker,
       n.occurredAt AS occurredAt, n.sessionId AS sessionId, n.sourceRef AS sourceRef,
       n.role AS role, n.scope AS scope, n.toldOf AS toldOf
