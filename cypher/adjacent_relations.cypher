// Relations that have one of the given entities as subject or object.
MATCH (e:Entity)-[:SUBJECT_OF|OBJECT]-(r:Relation)
WHERE e.id IN $ids AND e.userId = $userId
RETURN DISTINCT r.id AS id, r.subjectId AS subjectId, r.objectId AS objectId
LIMIT $limit
