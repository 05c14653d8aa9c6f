// Create or update Relation nodes by id; $rows: [{id, props, embedding}].
UNWIND $rows AS row
MERGE (n:Relation {id: row.id})
SET n += row.props
SET n.embedding = row.embedding
