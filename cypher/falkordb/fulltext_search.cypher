CALL db.idx.fulltext.queryNodes('{label}', $text) YIELD node, score
WITH node, score
WHERE node.userId = $userId
RETURN node.id AS id, score
ORDER BY score DESC
LIMIT $k
