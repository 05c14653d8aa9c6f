// What recall ranks and shows of some relations, with the system-time logs that say what
// was believed at knownAt (see recall_episodes).
MATCH (n:Relation)
WHERE n.id IN $ids AND n.userId = $userId
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n.id AS id, n.createdAt AS createdAt, n.recordedAt AS recordedAt,
       n.expiredAt AS expiredAt, n.forgottenAt AS forgottenAt, n.importance AS importance,
       coalesce(a.count, n.accessCount) AS accessCount,
       coalesce(a.lastAt, n.lastAccessedAt) AS lastAccessedAt,
       n.importanceAdjust AS importanceAdjust, n.category AS category,
       n.statement AS statement, n.subject AS subject, n.predicate AS predicate,
       n.object AS object, n.validFrom AS validFrom, n.validUntil AS validUntil,
       n.status AS status, n.untilLog AS untilLog, n.statusLog AS statusLog,
       n.aliveLog AS aliveLog, n.beliefAt AS beliefAt, n.beliefUntil AS beliefUntil,
       n.episodeIds AS episodeIds, n.sourceRefs AS sourceRefs,
       n.scope AS scope, n.sessionId AS sessionId
