MATCH (n:Relation {userId: $userId})
WHERE n.expiredAt IS NULL AND n.forgottenAt IS NULL
RETURN n.status AS status, count(n) AS total
