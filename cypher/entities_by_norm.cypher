// Entities of one user whose normalised name or alias is one of $norms.
MATCH (n:Entity {userId: $userId})
WHERE n.normName IN $norms OR any(a IN n.aliasNorms WHERE a IN $norms)
RETURN n {.*, embedding: null} AS n
