// Migration: the last write of a user's copy; a tenant graph without it is incomplete.
MERGE (t:Tenant)
ON CREATE SET t.userId = $userId, t.createdAt = $at
SET t.migratedAt = $at
RETURN t.userId AS userId
