// What recall ranks and shows of some entities (see recall_episodes).
MATCH (n:Entity)
WHERE n.id IN $ids AND n.userId = $userId
RETURN n {.id, .createdAt, .recordedAt, .forgottenAt, .importance, .accessCount, .name,
          .type, .summary} AS n
