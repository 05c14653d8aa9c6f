// Migration from the shared graph: one page of a user's {label} nodes, all properties.
MATCH (n:{label})
WHERE n.userId = $userId AND ID(n) > $after
RETURN ID(n) AS nid, properties(n) AS props
ORDER BY nid
LIMIT $limit
