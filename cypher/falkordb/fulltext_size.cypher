// How many {label} nodes this tenant graph holds (the N of BM25's idf): the label's count,
// read without a scan (a tenant graph holds one user's nodes only; $userId routes).
MATCH (n:{label})
RETURN count(n) AS size
