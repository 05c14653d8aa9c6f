MATCH (n:{label})
WHERE n.id IN $ids AND n.userId = $userId
RETURN properties(n) AS n
