// One page of a user's episode ids in event-time order, with the total count.
MATCH (n:Episode {userId: $userId})
WHERE ($sessionId IS NULL OR n.sessionId = $sessionId)
  AND ($withForgotten OR n.forgottenAt IS NULL)
WITH n.id AS id, n.occurredAt AS t
ORDER BY t, id
WITH collect(id) AS ids
RETURN size(ids) AS total, ids[$offset..($offset + $limit)] AS page
