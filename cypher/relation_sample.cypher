// What a user's memory is made of, from a sample of their relations (no order, no scan of
// them all): how many were sampled and how many no episode evidences (sent as relations).
MATCH (n:Relation {userId: $userId})
WITH n LIMIT $limit
RETURN count(n) AS sampled,
       sum(CASE WHEN n.episodeIds IS NULL OR size(n.episodeIds) = 0 THEN 1 ELSE 0 END) AS direct
