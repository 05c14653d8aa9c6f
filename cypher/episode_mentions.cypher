// Episodes that mention the seed entities.
MATCH (ep:Episode)-[:MENTIONS]->(e:Entity)
WHERE e.id IN $ids AND e.userId = $userId
RETURN ep.id AS id, count(e) AS hits
ORDER BY hits DESC
LIMIT $limit
