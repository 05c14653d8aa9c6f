// What recall ranks and shows of some episodes: no embedding, none of the bookkeeping (a
// recall loads a few hundred candidates, and every property returned is parsed). Access
// counts are read from the memory's :Access node (see bump_access).
MATCH (n:Episode)
WHERE n.id IN $ids AND n.userId = $userId
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n {.id, .createdAt, .recordedAt, .forgottenAt, .importance,
          accessCount: coalesce(a.count, n.accessCount),
          lastAccessedAt: coalesce(a.lastAt, n.lastAccessedAt), .importanceAdjust, .content,
          .speaker, .occurredAt, .sessionId, .sourceRef} AS n
