"""A like and a dislike of one thing cannot both hold: the newer ends the older.

They live in different slots (``likes`` / ``prefers`` and ``dislikes`` are different
predicates), so the conflict rules alone would keep "likes olives" current beside a later
"dislikes olives". Each positive taste statement therefore also carries a stop of its
opposite, at the same time; a stop that finds nothing to end changes nothing.
"""

from __future__ import annotations

from graphmem.extract._lexicon import canonicalize
from graphmem.model import ExtractedRelation, Extraction, normalize

_LIKING = frozenset({"likes", "prefers"})


def _stop(rel: ExtractedRelation, predicate: str, category: str,
          exclusive: bool) -> ExtractedRelation:
    return rel.model_copy(update={
        "predicate": predicate, "category": category, "exclusive": exclusive, "stop": True,
        "statement": f"{rel.subject} no longer {predicate} {rel.object}"})


def opposite_stops(relations: list[ExtractedRelation],
                   min_confidence: float = 0.0) -> list[ExtractedRelation]:
    """The stops a list of relations implies for the opposite tastes it does not state;
    a statement too unsure to be kept (below ``min_confidence``) implies none."""
    said = {(normalize(r.subject), r.predicate, normalize(r.object)) for r in relations}
    out: list[ExtractedRelation] = []
    for rel in relations:
        if rel.stop or rel.confidence < min_confidence:
            continue
        key = (normalize(rel.subject), normalize(rel.object))
        if rel.predicate in _LIKING and (key[0], "dislikes", key[1]) not in said:
            out.append(_stop(rel, "dislikes", "preference", False))
        elif rel.predicate == "dislikes" and not any((key[0], p, key[1]) in said
                                                     for p in _LIKING):
            out.append(_stop(rel, "likes", "preference", False))
            _, term = canonicalize(rel.object)
            if term is not None:  # a known thing is liked in its domain's slot
                out.append(_stop(rel, "prefers", f"preference:{term.domain}", True))
    return out


def with_opposites(extraction: Extraction, min_confidence: float = 0.0) -> Extraction:
    """``extraction`` with the stops its tastes imply."""
    extra = opposite_stops(extraction.relations, min_confidence)
    if not extra:
        return extraction
    return extraction.model_copy(update={"relations": [*extraction.relations, *extra]})
