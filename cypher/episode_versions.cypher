// SUPERSEDES / DISPUTED edges between episodes touching the given episodes (a later
// message restating a fact with a new value, or contradicting it): both directions,
// each led by the id index.
MATCH (a:Episode)-[r:SUPERSEDES|DISPUTED]->(b:Episode)
WHERE a.id IN $ids AND a.userId = $userId
RETURN type(r) AS type, a.id AS src, b.id AS dst, r.at AS at, r.reason AS reason,
       r.score AS score, a.occurredAt AS srcAt, b.occurredAt AS dstAt,
       a.forgottenAt AS srcForgotten, b.forgottenAt AS dstForgotten
UNION
MATCH (a:Episode)-[r:SUPERSEDES|DISPUTED]->(b:Episode)
WHERE b.id IN $ids AND b.userId = $userId
RETURN type(r) AS type, a.id AS src, b.id AS dst, r.at AS at, r.reason AS reason,
       r.score AS score, a.occurredAt AS srcAt, b.occurredAt AS dstAt,
       a.forgottenAt AS srcForgotten, b.forgottenAt AS dstForgotten
