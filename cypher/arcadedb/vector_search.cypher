// ArcadeDB names indexes Type[property]; score is (1 + cosine) / 2 as in Neo4j.
CALL db.index.vector.queryNodes('{label}[embedding]', $k, $vector) YIELD node, score
WITH node, score
WHERE node.userId = $userId
RETURN node.id AS id, score
ORDER BY score DESC
