// What recall ranks and shows of some relations, with the system-time logs that say what
// was believed at knownAt (see recall_episodes).
MATCH (n:Relation)
WHERE n.id IN $ids AND n.userId = $userId
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n {.id, .createdAt, .recordedAt, .expiredAt, .forgottenAt, .importance,
          accessCount: coalesce(a.count, n.accessCount),
          lastAccessedAt: coalesce(a.lastAt, n.lastAccessedAt), .importanceAdjust, .category,
          .statement, .subject, .predicate, .object, .validFrom, .validUntil, .status,
          .untilLog, .statusLog, .aliveLog, .beliefAt, .beliefUntil, .episodeIds,
          .sourceRefs} AS n
