// ArcadeDB's Bolt server: uniqueness in Cypher; vector and full-text indexes are created by
// the store with ArcadeDB SQL over HTTP (its Cypher refuses that DDL).
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
CREATE INDEX relation_group IF NOT EXISTS FOR (n:Relation) ON (n.groupKey)
;
CREATE INDEX entity_norm IF NOT EXISTS FOR (n:Entity) ON (n.normName)
;
CREATE CONSTRAINT access_id IF NOT EXISTS FOR (n:Access) REQUIRE n.id IS UNIQUE
