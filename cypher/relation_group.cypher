// Every node of one relation group, expired ones included.
MATCH (n:Relation {userId: $userId, groupKey: $groupKey})
RETURN n {.*, embedding: null} AS n
