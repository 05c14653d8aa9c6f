// FalkorDB: exact-match indexes, vector indexes (cosine) and full-text indexes over each node's
// analysed terms (graphmem/store/_text_terms.py: stemmed, segmented, function words dropped
// already), taken as they are: no stemming, no stop words of the index's own.
// Re-running a statement that already exists raises "already indexed"; the store ignores it.
// Vector indexes: M 32 and efRuntime 200 (FalkorDB's defaults are 16 and 10). A user's
// passages repeat sentences; with the defaults, their index reopened from disk held 87 % of
// the true top 40 of the single-user dev questions, with these 100 % (built, and reopened).
// The store searches users up to 10,000 nodes of a label exactly anyway (vector_exact);
// an index made before with smaller options is made again by `graphmem reembed`.
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
CREATE VECTOR INDEX FOR (n:Episode) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine', M: 32, efRuntime: 200}
;
CREATE VECTOR INDEX FOR (n:Entity) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine', M: 32, efRuntime: 200}
;
CREATE VECTOR INDEX FOR (n:Relation) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine', M: 32, efRuntime: 200}
;
CREATE VECTOR INDEX FOR (n:Abstraction) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine', M: 32, efRuntime: 200}
;
CREATE INDEX FOR (n:Access) ON (n.id)
;
CREATE INDEX FOR (n:Passage) ON (n.id)
;
CREATE INDEX FOR (n:Passage) ON (n.userId)
;
CREATE VECTOR INDEX FOR (n:Passage) ON (n.embedding) OPTIONS {dimension: {dim}, similarityFunction: 'cosine', M: 32, efRuntime: 200}
