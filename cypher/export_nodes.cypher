MATCH (n:{label} {userId: $userId})
OPTIONAL MATCH (a:Access {id: n.id})
RETURN n {.*, embedding: null, terms: null, termsVersion: null, accessCount: coalesce(a.count, n.accessCount),
          lastAccessedAt: coalesce(a.lastAt, n.lastAccessedAt)} AS n
ORDER BY n.id
SKIP $skip
LIMIT $limit
