// One page of the relations an entity is the subject or object of (see relations.cypher).
MATCH (e:Entity {id: $entityId, userId: $userId})-[:SUBJECT_OF|OBJECT]-(n:Relation)
WHERE n.userId = $userId AND {@relation_listed}
WITH DISTINCT n
RETURN n {.*, embedding: null} AS n
ORDER BY n.validFrom {dir}, n.recordedAt {dir}, n.id {dir}
LIMIT $limit
