// What recall ranks and shows of some entities (see recall_episodes).
MATCH (n:Entity)
WHERE n.id IN $ids AND n.userId = $userId
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n.id AS id, n.createdAt AS createdAt, n.recordedAt AS recordedAt,
       n.forgottenAt AS forgottenAt, n.importance AS importance,
       coalesce(a.count, n.accessCount) AS accessCount,
       coalesce(a.lastAt, n.lastAccessedAt) AS lastAccessedAt,
       n.importanceAdjust AS importanceAdjust, n.name AS name, n.type AS type,
       n.summary AS summary
