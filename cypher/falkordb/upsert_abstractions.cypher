// FalkorDB stores vectors as vecf32.
UNWIND $rows AS row
MERGE (n:Abstraction {id: row.id})
SET n += row.props
SET n.embedding = vecf32(row.embedding)
