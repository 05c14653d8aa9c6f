// The user's {label} nodes the index finds for the analysed term $term (at most $cap),
// with their terms, which the store counts and scores (graphmem/store/_fulltext.py). The
// index also stems the query word; the store drops nodes found through that stem alone.
CALL db.idx.fulltext.queryNodes('{label}', $term) YIELD node
WITH node
WHERE node.userId = $userId
RETURN node.id AS id, node.terms AS terms
LIMIT $cap
