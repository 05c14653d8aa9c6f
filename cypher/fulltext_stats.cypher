// The user's {label} nodes (at most $sample of them) and their analysed terms in all: BM25's
// average length. $sep is the one space terms are joined by.
MATCH (n:{label} {userId: $userId})
WITH n LIMIT $sample
RETURN count(n) AS size,
       sum(CASE WHEN size(n.terms) = 0 THEN 0 ELSE size(split(n.terms, $sep)) END) AS total
