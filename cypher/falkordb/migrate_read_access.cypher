// Migration from the shared graph: one page of a user's access counters.
MATCH (n:Access)
WHERE n.userId = $userId AND ID(n) > $after
RETURN ID(n) AS nid, properties(n) AS props
ORDER BY nid
LIMIT $limit
