// Migration: the edges touching a user's nodes by type and end labels; `own` is false for
// an edge whose other end belongs to someone else (such an edge is not copied).
MATCH (a)-[r]->(b)
WHERE a.userId = $userId OR b.userId = $userId
RETURN a.userId = $userId AND b.userId = $userId AS own, type(r) AS type,
       labels(a) AS srcLabels, labels(b) AS dstLabels, count(r) AS edges
