// One index query per word of $terms, scores summed per node (a node matching more and
// rarer words ranks higher), then this user's best $k.
UNWIND $terms AS term
CALL db.idx.fulltext.queryNodes('{label}', term) YIELD node, score
WITH node, score
WHERE node.userId = $userId
WITH node, sum(score) AS score
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $k
