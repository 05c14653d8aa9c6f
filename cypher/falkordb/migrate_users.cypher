// Migration from the shared graph: the owners (userId) of its nodes and how many each has;
// a null owner is nodes nobody could read.
MATCH (n)
RETURN n.userId AS userId, count(n) AS nodes
ORDER BY userId
SKIP $skip
LIMIT $limit
