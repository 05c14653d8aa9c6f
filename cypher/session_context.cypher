// The conversational context of some episodes: episodes of the same sessions, from $spanMs
// before the earliest to $spanMs after the latest of them (recall orders them by time and
// source numbering, and lets the neighbours of strong hits inherit); the fields of
// recall_episodes.
MATCH (s:Episode)
WHERE s.id IN $ids AND s.userId = $userId
// toInteger: a stored value that is no number (a hand edit) drops out instead of failing
// the arithmetic
WITH collect(DISTINCT s.sessionId) AS sessions, min(toInteger(s.occurredAt)) - $spanMs AS lo,
     max(toInteger(s.occurredAt)) + $spanMs AS hi
MATCH (n:Episode)
WHERE n.userId = $userId AND n.sessionId IN sessions AND toInteger(n.occurredAt) >= lo
  AND toInteger(n.occurredAt) <= hi
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n {.id, .createdAt, .recordedAt, .forgottenAt, .importance,
          accessCount: coalesce(a.count, n.accessCount),
          lastAccessedAt: coalesce(a.lastAt, n.lastAccessedAt), .importanceAdjust, .content,
          .speaker, .occurredAt, .sessionId, .sourceRef, .role, .scope, .toldOf} AS n
LIMIT $limit
