// Migration from the shared graph: one page of a user's {edge} edges between its own nodes.
MATCH (a:{src})-[r:{edge}]->(b:{dst})
WHERE a.userId = $userId AND b.userId = $userId AND ID(r) > $after
RETURN ID(r) AS rid, a.id AS src, b.id AS dst, properties(r) AS props
ORDER BY rid
LIMIT $limit
