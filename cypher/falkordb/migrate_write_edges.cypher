// Migration into a tenant graph: {edge} edges as read, joined by the ends' ids.
UNWIND $rows AS row
MATCH (a:{src} {id: row.src})
MATCH (b:{dst} {id: row.dst})
CREATE (a)-[r:{edge}]->(b)
SET r = row.props
