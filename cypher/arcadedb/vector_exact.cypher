// Exact nearest {label} nodes of one user: cosine against each of the user's own nodes,
// read through the userId index, none of anyone else's (the store uses it for users with
// few such nodes: its cost grows with them). A vector of another length (an embedder changed,
// `graphmem reembed` not through yet) is left out, not compared. ArcadeDB's similarity is the raw
// cosine: turned into (1 + cosine) / 2, the vector index's score.
MATCH (n:{label})
WHERE n.userId = $userId AND n.embedding IS NOT NULL AND size(n.embedding) = size($vector)
WITH n.id AS id, (1 + vector.similarity.cosine(n.embedding, $vector)) / 2 AS score
ORDER BY score DESC, id
LIMIT $k
RETURN id, score
