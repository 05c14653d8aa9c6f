// One word ($term) of a full-text search: this user's matching {label} nodes, at most
// $cap of them (the store sums the words' scores per node).
CALL db.idx.fulltext.queryNodes('{label}', $term) YIELD node, score
WITH node, score
WHERE node.userId = $userId
RETURN node.id AS id, score
LIMIT $cap
