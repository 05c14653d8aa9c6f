// Exact nearest {label} nodes of one user: cosine against each of the user's nodes (the
// user's own graph holds no one else's). The store uses it below a size where it costs
// little, for its answer is exact where the HNSW index's is not: on a user's passages
// (repeated sentences, near-identical vectors) the index missed 14 % of the true top 40
// and, after the store was reopened and the index rebuilt, the best match itself.
MATCH (n:{label})
WHERE n.userId = $userId AND n.embedding IS NOT NULL
WITH n.id AS id, 1.0 - vec.cosineDistance(n.embedding, vecf32($vector)) AS score
ORDER BY score DESC, id
LIMIT $k
RETURN id, score
