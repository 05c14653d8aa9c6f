// The graph's indexes by label: the fields each indexes and how, the analyser language
// (one per label), and whether they are built.
CALL db.indexes() YIELD label, types, language, status
RETURN label, types, language, status
