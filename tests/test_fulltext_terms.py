"""How a search text becomes full-text query terms (shared by both stores), and the rough
stems recall compares words by."""

from __future__ import annotations

import pytest

from graphmem.store._text_terms import query_terms
from graphmem.store.base import prefix_term


def test_terms_drop_query_syntax_and_repeats() -> None:
    assert query_terms('Hugo (editor) | "hugo" -Vim*') == ["hugo", "editor", "vim"]
    assert query_terms("?? !! ::") == []
    assert len(query_terms(" ".join(f"w{i}" for i in range(100)))) == 32


@pytest.mark.parametrize(("word", "query"), [
    ("works", "work*"), ("worked", "work*"), ("working", "work*"), ("prefers", "prefer*"),
    ("matches", "match*"), ("editor", "editor*"),
    ("press", "press*"), ("status", "status*"), ("analysis", "analysis*"),  # not plurals
    ("uses", "uses*"), ("living", "living*"),  # the stem would be under four letters
    ("go", "go"), ("art", "art"),  # short words are matched as they are
    ("咖啡", "咖啡"), ("café", "café"), ("R2D2", "R2D2"),  # not plain ASCII letters
])
def test_english_words_become_stem_prefixes(word: str, query: str) -> None:
    assert prefix_term(word) == query
