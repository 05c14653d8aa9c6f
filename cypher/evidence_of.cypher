// Source episodes of relations.
MATCH (r:Relation)-[:EVIDENCED_BY]->(ep:Episode)
WHERE r.id IN $ids AND r.userId = $userId
RETURN r.id AS rid, ep.id AS id, ep.sourceRef AS sourceRef, ep.occurredAt AS occurredAt
