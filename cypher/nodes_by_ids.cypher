MATCH (n:{label})
WHERE n.id IN $ids AND n.userId = $userId
RETURN n {.*, embedding: null} AS n
