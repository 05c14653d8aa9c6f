// Drop the vector index of {label} (to make it again for vectors of another length).
DROP VECTOR INDEX FOR (n:{label}) ON (n.embedding)
