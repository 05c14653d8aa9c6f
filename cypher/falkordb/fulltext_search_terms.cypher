// Every node of the user's {label} nodes the index finds for each analysed term of
// $terms, with the term and the node's terms: the one round trip of a small user's
// full-text search (graphmem/store/_fulltext.py), where no term is capped. The index also
// stems the query word; the store drops nodes found through that stem alone.
UNWIND $terms AS term
CALL db.idx.fulltext.queryNodes('{label}', term) YIELD node
WITH term, node
WHERE node.userId = $userId
RETURN term, node.id AS id, node.terms AS terms
