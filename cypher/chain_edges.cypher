// SUPERSEDES / DISPUTED edges touching the given relations: two index-led directions,
// never a scan over all of a user's edges.
MATCH (a:Relation)-[r:SUPERSEDES|DISPUTED]->(b:Relation)
WHERE a.id IN $ids AND a.userId = $userId
RETURN type(r) AS type, a.id AS src, b.id AS dst, r.at AS at, r.expiredAt AS expiredAt
UNION
MATCH (a:Relation)-[r:SUPERSEDES|DISPUTED]->(b:Relation)
WHERE b.id IN $ids AND b.userId = $userId
RETURN type(r) AS type, a.id AS src, b.id AS dst, r.at AS at, r.expiredAt AS expiredAt
