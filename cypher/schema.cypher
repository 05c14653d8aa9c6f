// Idempotent schema bootstrap for Neo4j 5 (native indexes). One statement per block.
// The userId indexes serve every per-user read, the exact vector search of a small
// tenant (vector_exact) among them.
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (n:Episode) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT relation_id IF NOT EXISTS FOR (n:Relation) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT abstraction_id IF NOT EXISTS FOR (n:Abstraction) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT write_version_user IF NOT EXISTS FOR (n:WriteVersion) REQUIRE n.userId IS UNIQUE
;
CREATE INDEX relation_group IF NOT EXISTS FOR (n:Relation) ON (n.userId, n.groupKey)
;
CREATE INDEX entity_norm IF NOT EXISTS FOR (n:Entity) ON (n.userId, n.normName)
;
CREATE INDEX episode_user IF NOT EXISTS FOR (n:Episode) ON (n.userId)
;
CREATE INDEX entity_user IF NOT EXISTS FOR (n:Entity) ON (n.userId)
;
CREATE INDEX relation_user IF NOT EXISTS FOR (n:Relation) ON (n.userId)
;
CREATE INDEX abstraction_user IF NOT EXISTS FOR (n:Abstraction) ON (n.userId)
;
CREATE VECTOR INDEX Episode_embedding IF NOT EXISTS FOR (n:Episode) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: {dim}, `vector.similarity_function`: 'cosine'}}
;
CREATE VECTOR INDEX Entity_embedding IF NOT EXISTS FOR (n:Entity) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: {dim}, `vector.similarity_function`: 'cosine'}}
;
CREATE VECTOR INDEX Relation_embedding IF NOT EXISTS FOR (n:Relation) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: {dim}, `vector.similarity_function`: 'cosine'}}
;
CREATE VECTOR INDEX Abstraction_embedding IF NOT EXISTS FOR (n:Abstraction) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: {dim}, `vector.similarity_function`: 'cosine'}}
;
DROP INDEX Episode_text IF EXISTS
;
CREATE FULLTEXT INDEX Episode_terms IF NOT EXISTS FOR (n:Episode) ON EACH [n.terms] OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
DROP INDEX Entity_text IF EXISTS
;
CREATE FULLTEXT INDEX Entity_terms IF NOT EXISTS FOR (n:Entity) ON EACH [n.terms] OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
DROP INDEX Relation_text IF EXISTS
;
CREATE FULLTEXT INDEX Relation_terms IF NOT EXISTS FOR (n:Relation) ON EACH [n.terms] OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
DROP INDEX Abstraction_text IF EXISTS
;
CREATE FULLTEXT INDEX Abstraction_terms IF NOT EXISTS FOR (n:Abstraction) ON EACH [n.terms] OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}
;
CREATE CONSTRAINT access_id IF NOT EXISTS FOR (n:Access) REQUIRE n.id IS UNIQUE
;
CREATE CONSTRAINT passage_id IF NOT EXISTS FOR (n:Passage) REQUIRE n.id IS UNIQUE
;
CREATE INDEX passage_user IF NOT EXISTS FOR (n:Passage) ON (n.userId)
;
CREATE VECTOR INDEX Passage_embedding IF NOT EXISTS FOR (n:Passage) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: {dim}, `vector.similarity_function`: 'cosine'}}
