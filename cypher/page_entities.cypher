// One page of a user's entity ids (exact name first, then by name), with the total count.
MATCH (n:Entity {userId: $userId})
WHERE ($withForgotten OR n.forgottenAt IS NULL)
  AND ($needle IS NULL OR n.normName CONTAINS $needle
       OR any(a IN coalesce(n.aliasNorms, []) WHERE a CONTAINS $needle))
WITH n.id AS id, n.normName AS name,
     CASE WHEN $needle IS NOT NULL AND n.normName = $needle THEN 0 ELSE 1 END AS exact
ORDER BY exact, name, id
WITH collect(id) AS ids
RETURN size(ids) AS total, ids[$offset..($offset + $limit)] AS page
