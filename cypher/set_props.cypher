// Partial update of {label} nodes of one user; $rows: [{id, props}].
UNWIND $rows AS row
MATCH (n:{label} {id: row.id})
WHERE n.userId = $userId
SET n += row.props
