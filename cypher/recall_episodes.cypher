// What recall ranks and shows of some episodes: no embedding, none of the bookkeeping (a
// recall loads a few hundred candidates, and every property returned is parsed).
MATCH (n:Episode)
WHERE n.id IN $ids AND n.userId = $userId
RETURN n {.id, .createdAt, .recordedAt, .forgottenAt, .importance, .accessCount, .content,
          .speaker, .occurredAt, .sessionId, .sourceRef} AS n
