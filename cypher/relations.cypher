// Candidate relations; the service applies the valid-until believed at $knownAt exactly.
MATCH (n:Relation {userId: $userId})
WHERE ($subject IS NULL OR n.subjectNorm = $subject)
  AND ($predicate IS NULL OR n.predicateNorm = $predicate)
  AND ($object IS NULL OR n.objectNorm = $object)
  AND n.recordedAt <= $knownAt
  AND ($includeExpired OR n.expiredAt IS NULL OR n.expiredAt > $knownAt)
  AND ($asOf IS NULL OR n.validFrom <= $asOf)
RETURN n {.*, embedding: null} AS n
ORDER BY n.validFrom, n.id
LIMIT $limit
