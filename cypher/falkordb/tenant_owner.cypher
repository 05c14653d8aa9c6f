// Who owns a tenant graph, and whether a migration finished filling it (no row: a graph
// still being made; two rows: a broken graph).
MATCH (t:Tenant)
RETURN t.userId AS userId, t.migratedAt AS migratedAt
LIMIT $limit
