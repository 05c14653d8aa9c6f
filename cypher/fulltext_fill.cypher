// Store freshly analysed terms; $rows: [{id, terms}].
UNWIND $rows AS row
MATCH (n:{label} {id: row.id})
SET n.terms = row.terms, n.termsVersion = $version
