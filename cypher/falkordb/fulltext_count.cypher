// How many {label} nodes of this tenant graph the index finds for the analysed term $term
// (its document frequency; a tenant graph holds one user's nodes only).
CALL db.idx.fulltext.queryNodes('{label}', $term) YIELD node
RETURN count(node) AS df
