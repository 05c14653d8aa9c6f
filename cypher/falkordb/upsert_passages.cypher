// FalkorDB stores vectors as vecf32. A passage is a vector of one span of a long episode
// (graphmem/_passages.py), written in its episode's plan.
UNWIND $rows AS row
MERGE (n:Passage {id: row.id})
SET n += row.props
SET n.embedding = vecf32(row.embedding)
