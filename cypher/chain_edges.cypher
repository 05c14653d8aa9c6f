// SUPERSEDES / DISPUTED edges touching the given relations.
MATCH (a:Relation)-[r:SUPERSEDES|DISPUTED]->(b:Relation)
WHERE a.userId = $userId AND (a.id IN $ids OR b.id IN $ids)
RETURN type(r) AS type, a.id AS src, b.id AS dst, r.at AS at, r.expiredAt AS expiredAt
