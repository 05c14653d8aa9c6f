// How many relations each of the given entities takes part in. FalkorDB keeps degrees per
// edge type, so this reads counters instead of walking a hub's edges.
MATCH (e:Entity)
WHERE e.id IN $ids AND e.userId = $userId
RETURN e.id AS id, outdegree(e, 'SUBJECT_OF') + indegree(e, 'OBJECT') AS degree
