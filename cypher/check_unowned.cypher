// Invariant check: {label} nodes without an owner. $userId names the graph to look in
// (one per user on a store with tenant graphs); in a shared graph this is every such node.
MATCH (n:{label})
WHERE n.userId IS NULL AND $userId IS NOT NULL
RETURN n.id AS id
LIMIT $limit
