// New vectors for {label} nodes of one user; $rows: [{id, embedding, model}]. FalkorDB
// stores vectors as vecf32.
UNWIND $rows AS row
MATCH (n:{label} {id: row.id})
WHERE n.userId = $userId
SET n.embedding = vecf32(row.embedding), n.embeddingModel = row.model
