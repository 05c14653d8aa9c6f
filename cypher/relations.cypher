// One page of a user's relations: filtered, visible or (with $history) every version, in a
// total order (validFrom, recordedAt, id; {dir} DESC is newest first), after a cursor.
MATCH (n:Relation {userId: $userId})
WHERE ($subject IS NULL OR n.subjectNorm = $subject)
  AND ($predicate IS NULL OR n.predicateNorm = $predicate)
  AND ($object IS NULL OR n.objectNorm = $object)
  AND ($scope IS NULL OR n.scope IS NULL OR n.scope = $scope)
  AND ($sessionId IS NULL OR n.sessionId = $sessionId)
  AND {@relation_listed}
RETURN n {.*, embedding: null} AS n
ORDER BY n.validFrom {dir}, n.recordedAt {dir}, n.id {dir}
LIMIT $limit
