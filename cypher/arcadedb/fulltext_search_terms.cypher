// ArcadeDB: one full-text index per label, named Type[property], over the analysed terms;
// otherwise as cypher/falkordb/fulltext_search_terms.cypher.
UNWIND $terms AS term
CALL db.index.fulltext.queryNodes('{label}[terms]', term) YIELD node
WITH term, node
WHERE node.userId = $userId
RETURN term, node.id AS id, node.terms AS terms
