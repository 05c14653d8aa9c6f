// Who speaks in a user's episodes, most frequent first (recall matches names in a question
// against them).
MATCH (ep:Episode)
WHERE ep.userId = $userId AND ep.speaker IS NOT NULL AND ep.forgottenAt IS NULL
RETURN ep.speaker AS speaker, count(ep) AS episodes
ORDER BY episodes DESC, speaker
LIMIT $limit
