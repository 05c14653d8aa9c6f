"""Recall: vector + full-text + graph candidates, filtered in time, fused, explained.

Template (``orchestrator.Recaller``), one module a stage: validate -> read the question
(``analysis``: time window, when-question, the names of people who speak in this memory,
the facets it names) -> gather candidates (``retrieve``: per kind, from the stores'
indexes, then graph expansion from the entities those hits touch) -> load and filter on
both time axes (``items``) -> fuse (``fuse``: weighted reciprocal-rank or standout fusion) ->
conversational context (``context``: turns next to strong hits inherit part of their
score) -> recency / frequency / importance / time terms (``fuse``) -> episode versions
(``_recall_versions``), for a question about now newest first on its facets, among equals
and among the few that stand apart from the rest, per-kind quotas (``order``) ->
provenance and conflicts (``explain``).

Why the question is rewritten before searching: a person's name in a question ("When did
Caroline go to the support group?") pulls both the vector and the full-text search towards
the turns where *someone else* addresses Caroline ("Wow, Caroline!"), while the answer is in
Caroline's own words. So names of known speakers are taken out of the search text and used
as a filter-like bonus on who said it (or, for relations, who they are about) instead;
function words are dropped from the full-text query, which is an OR of words.

Why neighbours: an answer often leans on the turn before it ("How long have you had
them?" - "Three years now!"); the topical words are in one turn and the fact in the next.

The weights are data (``RecallTuning`` in ``recall_model``); ``ABLATIONS`` names presets
that switch one stage off each, so a benchmark can show what every stage buys. Reading the
question's words is ``question``; state kept between recalls is ``recall_access``.
"""

from graphmem.recall.analysis import asks_past, asks_yes_no
from graphmem.recall.fuse import _fuse as _fuse
from graphmem.recall.fuse import _standout as _standout
from graphmem.recall.items import in_scope
from graphmem.recall.orchestrator import Recaller
from graphmem.recall.order import (
    newer_kin_first,
    newest_first_among_equals,
    newest_first_among_standouts,
    newest_first_on_facet,
)
from graphmem.recall_access import AccessTracker, SpeakerCache
from graphmem.recall_model import (
    ABLATIONS,
    DEFAULT_TUNING,
    Conflict,
    RecallItem,
    RecallResult,
    RecallTuning,
    Scores,
    Source,
)

__all__ = ["ABLATIONS", "DEFAULT_TUNING", "AccessTracker", "Conflict", "RecallItem",
           "RecallResult", "RecallTuning", "Recaller", "Scores", "Source", "SpeakerCache",
           "asks_past", "asks_yes_no", "in_scope", "newer_kin_first", "newest_first_among_equals",
           "newest_first_among_standouts", "newest_first_on_facet"]
