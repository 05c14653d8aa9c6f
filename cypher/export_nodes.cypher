MATCH (n:{label} {userId: $userId})
RETURN properties(n) AS n
ORDER BY n.id
SKIP $skip
LIMIT $limit
