// {label} nodes (of any user: a migration) whose terms are missing or were made by another
// analysis than $version, with the text their terms come from.
MATCH (n:{label})
WHERE n.termsVersion IS NULL OR n.termsVersion <> $version
RETURN n.id AS id, n {.content, .name, .summary, .statement, .conclusion} AS text
LIMIT $page
