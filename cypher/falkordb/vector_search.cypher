// The index is shared by all users: it is asked for $fetch nearest nodes, of which this
// user's best $k are kept; `seen` tells the caller whether asking for more could help.
// FalkorDB returns cosine distance; turned into similarity here.
CALL db.idx.vector.queryNodes('{label}', 'embedding', $fetch, vecf32($vector)) YIELD node, score
WITH node, score
ORDER BY score ASC
WITH count(node) AS seen,
     collect(CASE WHEN node.userId = $userId THEN [node.id, 1.0 - score] END) AS mine
RETURN seen, mine[0..$k] AS mine
