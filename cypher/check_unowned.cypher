// Invariant check: {label} nodes without an owner.
MATCH (n:{label})
WHERE n.userId IS NULL
RETURN n.id AS id
LIMIT $limit
