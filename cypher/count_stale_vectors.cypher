// How many of one user's {label} nodes have a vector not of the model $model, and of all.
MATCH (n:{label} {userId: $userId})
RETURN sum(CASE WHEN n.embeddingModel IS NULL OR n.embeddingModel <> $model THEN 1 ELSE 0 END)
       AS stale,
       count(n) AS total
