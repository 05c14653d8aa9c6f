// The graph's indexes with their options (a vector index's dimension among them).
CALL db.indexes() YIELD label, types, options
RETURN label, types, options
