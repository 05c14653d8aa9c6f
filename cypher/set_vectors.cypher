// New vectors for {label} nodes of one user; $rows: [{id, embedding, model}].
UNWIND $rows AS row
MATCH (n:{label} {id: row.id})
WHERE n.userId = $userId
SET n.embedding = row.embedding, n.embeddingModel = row.model
