MATCH (a:{src} {userId: $userId})-[r:{edge}]->(b:{dst})
RETURN a.id AS src, b.id AS dst, properties(r) AS props
ORDER BY src, dst
