// The user's {label} nodes holding the analysed term $term, with their terms, which the
// store counts and scores (graphmem/store/_fulltext.py); at most $cap of them.
CALL db.index.fulltext.queryNodes('{label}_terms', $term) YIELD node
WITH node
WHERE node.userId = $userId
RETURN node.id AS id, node.terms AS terms
LIMIT $cap
