// What recall ranks and shows of some abstractions (see recall_episodes): the conclusion,
// its version's times (graphmem._abstractions.visible) and its sources.
MATCH (n:Abstraction)
WHERE n.id IN $ids AND n.userId = $userId
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n.id AS id, n.createdAt AS createdAt, n.recordedAt AS recordedAt,
       n.forgottenAt AS forgottenAt, n.importance AS importance,
       coalesce(a.count, n.accessCount) AS accessCount,
       coalesce(a.lastAt, n.lastAccessedAt) AS lastAccessedAt,
       n.importanceAdjust AS importanceAdjust, n.kind AS kind, n.conclusion AS conclusion,
       n.conditions AS conditions, n.status AS status, n.disputed AS disputed,
       n.disputes AS disputes, n.sourceIds AS sourceIds, n.validFrom AS validFrom,
       n.validUntil AS validUntil, n.expiredAt AS expiredAt, n.scope AS scope
