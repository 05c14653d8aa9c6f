// Invariant check: ids carried by more than one {label} node, with the owners of each.
MATCH (n:{label})
WITH n.id AS id, count(n) AS copies, collect(DISTINCT n.userId) AS owners
WHERE copies > 1
RETURN id, copies, owners
