// What recall ranks and shows of some abstractions (see recall_episodes): the conclusion,
// its version's times (graphmem._abstractions.visible) and its sources.
MATCH (n:Abstraction)
WHERE n.id IN $ids AND n.userId = $userId
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n {.id, .createdAt, .recordedAt, .forgottenAt, .importance,
          accessCount: coalesce(a.count, n.accessCount),
          lastAccessedAt: coalesce(a.lastAt, n.lastAccessedAt), .importanceAdjust, .kind,
          .conclusion, .conditions, .status, .disputed, .disputes, .sourceIds,
          .validFrom, .validUntil, .expiredAt} AS n
