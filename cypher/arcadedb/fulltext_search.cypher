// ArcadeDB: one full-text index per label, named Type[property], over the analysed terms;
// otherwise as cypher/fulltext_search.cypher.
CALL db.index.fulltext.queryNodes('{label}[terms]', $term) YIELD node
WITH node
WHERE node.userId = $userId
RETURN node.id AS id, node.terms AS terms
LIMIT $cap
