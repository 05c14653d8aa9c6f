// Invariant check: the owners of {label} nodes (a store that keeps every user in one graph).
MATCH (n:{label})
WHERE n.userId IS NOT NULL
RETURN DISTINCT n.userId AS userId
