// Migration into a tenant graph: access counters as read.
UNWIND $rows AS row
CREATE (n:Access)
SET n = row.props
