MATCH (n:{label} {userId: $userId})
RETURN n {.*, embedding: null} AS n
ORDER BY n.id
SKIP $skip
LIMIT $limit
