// How many of the user's {label} nodes hold the analysed term $term (its document frequency).
CALL db.index.fulltext.queryNodes('{label}_terms', $term) YIELD node
WITH node
WHERE node.userId = $userId
RETURN count(node) AS df
