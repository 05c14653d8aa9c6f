// The tenant graph's owner: one :Tenant node per graph, made with the graph. A graph whose
// owner is another user (a name collision) is refused by the store.
MERGE (t:Tenant)
ON CREATE SET t.userId = $userId, t.createdAt = $at
RETURN t.userId AS userId
