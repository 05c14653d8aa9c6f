// FalkorDB: exact-match indexes, vector indexes (cosine) and full-text indexes over each node's
// analysed terms (graphmem/store/_text_terms.py: stemmed, segmented, function words dropped
// already), taken as they are: no stemming, no stop words of the index's own.
// Re-running a statement that already exists raises "already indexed"; the store ignores it.
// The full-text indexes come first: a label's analyser language and stop words are set
// when its first index is made, and later ones must not change them.
CALL db.idx.fulltext.createNodeIndex({label: 'Episode', language: 'english', stopwords: []}, {field: 'terms', nostem: true})
;
CALL db.idx.fulltext.createNodeIndex({label: 'Entity', language: 'english', stopwords: []}, {field: 'terms', nostem: true})
;
CALL db.idx.fulltext.createNodeIndex({label: 'Relation', language: 'english', stopwords: []}, {field: 'terms', nostem: true})
;
CALL db.idx.fulltext.createNodeIndex({label: 'Abstraction', language: 'english', stopwords: []}, {field: 'terms', nostem: true})
;
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
CREATE INDEX FOR (n:Access) ON (n.id)
;
CREATE INDEX FOR (n:Passage) ON (n.id)
;
CREATE INDEX FOR (n:Passage) ON (n.userId)
;
CREATE VECTOR INDEX FOR (n:Passage) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine'}
