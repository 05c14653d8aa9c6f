// Invariant check: every edge with an end among one user's {label} nodes, with both ends'
// labels and owners; edges leaving them, then edges reaching them from other owners' nodes.
MATCH (a:{label} {userId: $userId})-[r]->(b)
RETURN type(r) AS type, a.id AS src, labels(a) AS srcLabels, a.userId AS srcUser,
       b.id AS dst, labels(b) AS dstLabels, b.userId AS dstUser,
       r.at AS at, r.expiredAt AS expiredAt
UNION ALL
MATCH (a)-[r]->(b:{label} {userId: $userId})
WHERE a.userId IS NULL OR a.userId <> $userId
RETURN type(r) AS type, a.id AS src, labels(a) AS srcLabels, a.userId AS srcUser,
       b.id AS dst, labels(b) AS dstLabels, b.userId AS dstUser,
       r.at AS at, r.expiredAt AS expiredAt
