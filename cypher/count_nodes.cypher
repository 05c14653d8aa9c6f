MATCH (n:{label} {userId: $userId})
RETURN count(n) AS total, sum(CASE WHEN n.forgottenAt IS NULL THEN 0 ELSE 1 END) AS forgotten
