// Invariant check: ids of one user's {label} nodes that another node of that label also
// carries: twice within the user, then on another owner's (or nobody's) node.
MATCH (n:{label} {userId: $userId})
WITH n.id AS id, count(n) AS copies
WHERE copies > 1
RETURN id, $userId AS owner
UNION ALL
MATCH (n:{label} {userId: $userId})
WITH collect(n.id) AS ids
MATCH (m:{label})
WHERE m.id IN ids AND (m.userId IS NULL OR m.userId <> $userId)
RETURN m.id AS id, m.userId AS owner
