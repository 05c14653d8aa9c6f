// How many {label} nodes the user has (the N of BM25's idf).
MATCH (n:{label} {userId: $userId})
RETURN count(n) AS size
