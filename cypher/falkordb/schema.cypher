// FalkorDB: exact-match indexes, vector indexes (cosine) and CJK-aware full-text indexes.
// Re-running a statement that already exists raises "already indexed"; the store ignores it.
CREATE INDEX FOR (n:Episode) ON (n.id)
;
CREATE INDEX FOR (n:Episode) ON (n.userId)
;
CREATE INDEX FOR (n:Entity) ON (n.id)
;
CREATE INDEX FOR (n:Entity) ON (n.userId)
;
CREATE INDEX FOR (n:Entity) ON (n.normName)
;
CREATE INDEX FOR (n:Relation) ON (n.id)
;
CREATE INDEX FOR (n:Relation) ON (n.userId)
;
CREATE INDEX FOR (n:Relation) ON (n.groupKey)
;
CREATE INDEX FOR (n:Abstraction) ON (n.id)
;
CREATE INDEX FOR (n:Abstraction) ON (n.userId)
;
CREATE VECTOR INDEX FOR (n:Episode) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine'}
;
CREATE VECTOR INDEX FOR (n:Entity) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine'}
;
CREATE VECTOR INDEX FOR (n:Relation) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine'}
;
CREATE VECTOR INDEX FOR (n:Abstraction) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine'}
;
CALL db.idx.fulltext.createNodeIndex({label: 'Episode', language: 'chinese'}, 'content')
;
CALL db.idx.fulltext.createNodeIndex({label: 'Entity', language: 'chinese'}, 'name', 'summary')
;
CALL db.idx.fulltext.createNodeIndex({label: 'Relation', language: 'chinese'}, 'statement')
;
CALL db.idx.fulltext.createNodeIndex({label: 'Abstraction', language: 'chinese'}, 'conclusion')
;
CREATE INDEX FOR (n:Access) ON (n.id)
