// Nearest {label} nodes by cosine similarity through the native vector index. The index
// is shared by all users: it is asked for $fetch nearest nodes, of which this user's best
// $k are kept; `seen` tells the caller whether asking for more could help.
CALL db.index.vector.queryNodes('{label}_embedding', $fetch, $vector) YIELD node, score
WITH node, score
ORDER BY score DESC
WITH count(node) AS seen,
     collect(CASE WHEN node.userId = $userId THEN [node.id, score] END) AS mine
RETURN seen, mine[0..$k] AS mine
