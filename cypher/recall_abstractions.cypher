// What recall ranks and shows of some abstractions (see recall_episodes).
MATCH (n:Abstraction)
WHERE n.id IN $ids AND n.userId = $userId
RETURN n {.id, .createdAt, .recordedAt, .forgottenAt, .importance, .accessCount,
          .conclusion, .status} AS n
