// ArcadeDB: how many of the user's {label} nodes hold the analysed term $term.
CALL db.index.fulltext.queryNodes('{label}[terms]', $term) YIELD node
WITH node
WHERE node.userId = $userId
RETURN count(node) AS df
