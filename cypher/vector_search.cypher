// Nearest {label} nodes by cosine similarity through the native vector index.
CALL db.index.vector.queryNodes('{label}_embedding', $k, $vector) YIELD node, score
WITH node, score
WHERE node.userId = $userId
RETURN node.id AS id, score
ORDER BY score DESC
