// Create or update Abstraction nodes by id; $rows: [{id, props, embedding}].
UNWIND $rows AS row
MERGE (n:Abstraction {id: row.id})
SET n += row.props
SET n.embedding = row.embedding
