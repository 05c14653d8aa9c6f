// ArcadeDB: one full-text index per label, named Type[property].
CALL db.index.fulltext.queryNodes('{label}[{text}]', $text) YIELD node, score
WITH node, score
WHERE node.userId = $userId
RETURN node.id AS id, score
ORDER BY score DESC
LIMIT $k
