// Create or update Passage nodes by id; $rows: [{id, props, embedding}]. A passage is a
// vector of one span of a long episode (graphmem/_passages.py), written in its episode's plan.
UNWIND $rows AS row
MERGE (n:Passage {id: row.id})
SET n += row.props
SET n.embedding = row.embedding
