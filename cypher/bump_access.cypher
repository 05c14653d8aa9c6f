// Batched access counters: $rows: [{id, delta, at}].
UNWIND $rows AS row
MATCH (n:{label} {id: row.id})
SET n.accessCount = coalesce(n.accessCount, 0) + row.delta,
    n.lastAccessedAt = CASE WHEN coalesce(n.lastAccessedAt, 0) > row.at THEN n.lastAccessedAt ELSE row.at END
