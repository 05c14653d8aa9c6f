// Create or update Episode nodes by id; $rows: [{id, props, embedding}].
UNWIND $rows AS row
MERGE (n:Episode {id: row.id})
SET n += row.props
SET n.embedding = row.embedding
