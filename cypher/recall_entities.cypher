// What recall ranks and shows of some entities (see recall_episodes).
MATCH (n:Entity)
WHERE n.id IN $ids AND n.userId = $userId
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n {.id, .createdAt, .recordedAt, .forgottenAt, .importance,
          accessCount: coalesce(a.count, n.accessCount),
          lastAccessedAt: coalesce(a.lastAt, n.lastAccessedAt), .importanceAdjust, .name,
          .type, .summary} AS n
