// Relations within two relation-hops of the seed entities (entity-relation-entity-relation).
MATCH p = (e:Entity)-[:SUBJECT_OF|OBJECT*1..3]-(r:Relation)
WHERE e.id IN $ids AND e.userId = $userId AND r.userId = $userId
RETURN r.id AS id, min(length(p)) AS hops
ORDER BY hops
LIMIT $limit
