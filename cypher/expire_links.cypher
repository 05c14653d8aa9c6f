// Close {edge} edges in system time (never deleted); $rows: [{src, dst}].
UNWIND $rows AS row
MATCH (a:{src} {id: row.src})-[r:{edge}]->(b:{dst} {id: row.dst})
WHERE a.userId = $userId
SET r.expiredAt = $at
