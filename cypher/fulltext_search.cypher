CALL db.index.fulltext.queryNodes('{label}_text', $text) YIELD node, score
WITH node, score
WHERE node.userId = $userId
RETURN node.id AS id, score
ORDER BY score DESC
LIMIT $k
