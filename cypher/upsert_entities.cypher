// Create or update Entity nodes by id; $rows: [{id, props, embedding}].
UNWIND $rows AS row
MERGE (n:Entity {id: row.id})
SET n += row.props
SET n.embedding = row.embedding
