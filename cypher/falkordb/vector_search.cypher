// FalkorDB returns cosine distance; turned into similarity here.
CALL db.idx.vector.queryNodes('{label}', 'embedding', $k, vecf32($vector)) YIELD node, score
WITH node, score
WHERE node.userId = $userId
RETURN node.id AS id, 1.0 - score AS score
ORDER BY score DESC
