// The one time-visibility rule for a relation node n (relations.visible_at is the same rule
// in Python): not forgotten, begun by $asOf, and as believed at $knownAt still valid at
// $asOf. beliefAt holds the system times at which the belief about n changed (ascending),
// beliefUntil the valid-until believed from each on (2^62: open; -2^62: not believed).
// Nodes written before those arrays existed are read from their current columns.
(n.forgottenAt IS NULL AND n.validFrom <= $asOf AND (
  (n.beliefAt IS NOT NULL
   AND size([x IN n.beliefAt WHERE x <= $knownAt]) > 0
   AND n.beliefUntil[size([x IN n.beliefAt WHERE x <= $knownAt]) - 1] > $asOf)
  OR (n.beliefAt IS NULL AND n.recordedAt <= $knownAt
      AND (n.expiredAt IS NULL OR n.expiredAt > $knownAt)
      AND (n.validUntil IS NULL OR n.validUntil > $asOf))))
