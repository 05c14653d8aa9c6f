// Create or update {edge} edges between nodes of one user; $rows: [{src, dst, props}].
UNWIND $rows AS row
MATCH (a:{src} {id: row.src})
MATCH (b:{dst} {id: row.dst})
WHERE a.userId = $userId AND b.userId = $userId
MERGE (a)-[r:{edge}]->(b)
SET r += row.props
