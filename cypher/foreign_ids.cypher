// Ids among $ids held by a {label} node of another user (or of none): an import names only
// its own user's nodes, so it must not touch these.
MATCH (n:{label})
WHERE n.id IN $ids AND (n.userId IS NULL OR n.userId <> $userId)
RETURN n.id AS id
