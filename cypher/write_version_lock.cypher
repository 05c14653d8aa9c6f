// First step of a write: the user's version node, locked (SET takes the write lock, and
// what is read after it is the latest committed value).
MERGE (v:WriteVersion {userId: $userId})
ON CREATE SET v.n = 0
SET v.lockedBy = $userId
RETURN v.n AS n
