// The user's write version: how many plans of theirs have been applied (0 before any).
MATCH (v:WriteVersion {userId: $userId})
RETURN max(v.n) AS n
