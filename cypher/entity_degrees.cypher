// How many relations each of the given entities takes part in.
MATCH (e:Entity)
WHERE e.id IN $ids AND e.userId = $userId
OPTIONAL MATCH (e)-[x:SUBJECT_OF|OBJECT]-(:Relation)
RETURN e.id AS id, count(x) AS degree
