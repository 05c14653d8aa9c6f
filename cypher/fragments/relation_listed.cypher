// Which relation nodes n a listing shows: with $history every version recorded by $knownAt
// (forgotten ones too), else the visible ones (relation_visible); then only those after the
// cursor ($afterValidFrom, $afterRecordedAt, $afterId) in the listing's order ({cmp} is <
// for newest first, > for oldest first).
(($history AND n.recordedAt <= $knownAt) OR (NOT $history AND {@relation_visible}))
AND ($afterId IS NULL OR n.validFrom {cmp} $afterValidFrom
     OR (n.validFrom = $afterValidFrom AND (n.recordedAt {cmp} $afterRecordedAt
         OR (n.recordedAt = $afterRecordedAt AND n.id {cmp} $afterId))))
