// What recall ranks and shows of some relations, with the system-time logs that say what
// was believed at knownAt (see recall_episodes).
MATCH (n:Relation)
WHERE n.id IN $ids AND n.userId = $userId
RETURN n {.id, .createdAt, .recordedAt, .expiredAt, .forgottenAt, .importance, .accessCount,
          .statement, .subject, .predicate, .object, .validFrom, .validUntil, .status,
          .untilLog, .statusLog, .aliveLog, .episodeIds, .sourceRefs} AS n
