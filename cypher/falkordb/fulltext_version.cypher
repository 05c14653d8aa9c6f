// Which analysis made the terms of every node in this tenant graph (null: not all filled).
MATCH (t:Tenant)
RETURN t.termsVersion AS version
