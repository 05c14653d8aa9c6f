// Whether the user has any {label} node: the first one found answers (no count, no scan).
MATCH (n:{label} {userId: $userId})
RETURN n.id AS id
LIMIT 1
