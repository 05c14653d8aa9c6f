// Migration: a user's nodes by label (in the shared graph before, in its own after).
MATCH (n)
WHERE n.userId = $userId
RETURN labels(n) AS labels, count(n) AS nodes
