// Migration into a tenant graph: {label} nodes as read, the vector back as vecf32.
UNWIND $rows AS row
CREATE (n:{label})
SET n = row.props
FOREACH (v IN CASE WHEN row.embedding IS NULL THEN [] ELSE [row.embedding] END |
  SET n.embedding = vecf32(v))
