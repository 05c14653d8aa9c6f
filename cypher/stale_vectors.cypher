// Up to $limit of one user's {label} nodes whose vector is not of the model $model (made
// by another model, or with no model named), with the fields their text is made from
// (graphmem reembed); a node re-embedded drops out, so the next call gives the next ones.
MATCH (n:{label} {userId: $userId})
WHERE n.embeddingModel IS NULL OR n.embeddingModel <> $model
RETURN n.id AS id, n.embeddingModel AS embeddingModel, n.content AS content,
       n.name AS name, n.statement AS statement, n.conclusion AS conclusion
ORDER BY id
LIMIT $limit
