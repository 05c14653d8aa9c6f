// Exact nearest {label} nodes of one user: cosine against each of the user's own nodes,
// read through the userId index, none of anyone else's. At most $scan nodes are read;
// `total` tells the caller whether that was all of them. Neo4j's similarity is already
// (1 + cosine) / 2, the vector index's score.
MATCH (n:{label})
WHERE n.userId = $userId AND n.embedding IS NOT NULL
WITH n LIMIT $scan
WITH n.id AS id, vector.similarity.cosine(n.embedding, $vector) AS score
ORDER BY score DESC, id
WITH collect([id, score]) AS hits
RETURN size(hits) AS total, hits[0..$k] AS hits
