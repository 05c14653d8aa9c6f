// The user's {label} nodes with something to report at or after $since (system time):
// recorded, expired, forgotten, or carrying a forget/restore or feedback log (few nodes do;
// the logs are read whole and filtered by the service, graphmem/_events.py).
MATCH (n:{label})
WHERE n.userId = $userId
  AND (coalesce(n.recordedAt, n.createdAt) >= $since OR n.expiredAt >= $since
       OR n.forgottenAt >= $since OR n.forgetLog IS NOT NULL OR n.feedbackLog IS NOT NULL)
RETURN n.id AS id, coalesce(n.recordedAt, n.createdAt) AS recordedAt,
       n.expiredAt AS expiredAt, n.forgottenAt AS forgottenAt, n.forgetLog AS forgetLog,
       n.feedbackLog AS feedbackLog,
       coalesce(n.statement, n.content, n.conclusion, n.name) AS text, n.scope AS scope
