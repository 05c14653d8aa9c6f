// Batched access counters: $rows: [{id, delta, at}] of one user's {label} nodes.
// The counts live on small :Access nodes (one per memory read at least once), not on the
// memory itself: an embedded store re-indexes a node (vector and full text included) on
// any property write, which made every flush cost ~1 ms per memory and held readers back.
// A count left on the memory by an older version is carried over on the first bump.
UNWIND $rows AS row
MATCH (n:{label} {id: row.id})
WHERE n.userId = $userId
MERGE (a:Access {id: row.id})
ON CREATE SET a.userId = $userId, a.count = coalesce(n.accessCount, 0),
              a.lastAt = n.lastAccessedAt
SET a.count = a.count + row.delta,
    a.lastAt = CASE WHEN coalesce(a.lastAt, 0) > row.at THEN a.lastAt ELSE row.at END
