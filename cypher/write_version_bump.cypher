// Last step of a write: one more plan applied for the user.
MATCH (v:WriteVersion {userId: $userId})
SET v.n = v.n + 1
