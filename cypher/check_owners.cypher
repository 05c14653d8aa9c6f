// Invariant check: the owners of {label} nodes and how many each owns (a null userId is a
// node nobody can read).
MATCH (n:{label})
RETURN n.userId AS userId, count(n) AS nodes
