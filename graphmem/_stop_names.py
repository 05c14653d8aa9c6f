"""An ending said with a shorter or longer name than the fact it ends.

"I do all my writing in Microsoft Word" and later "I've ditched Word": the stop claim names
"Word", the current fact "Microsoft Word"; "I sold the Mazda" after "I drive a Mazda CX-5".
Without help the stop lands in a slot of its own (or ends nothing in its exclusive slot)
and the old fact stays current. Before a stop the user said is written, the user's current
facts with the same subject and predicate are read; when exactly one of them names the
stopped thing in other words — one name's words are a run of the other's ("Word" in
"Microsoft Word", "gaming" in "video games": compared by stem), or for Chinese one name
is inside the other (综艺 in 综艺节目) — the stop is aimed at that fact. Two or more such
facts ("Coke Zero" and "Diet Coke") leave the stop as it was said: guessing between them
would end the wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from graphmem.model import normalize
from graphmem.relations import page_query
from graphmem.store._text_terms import stem
from graphmem.store.base import Row, Store

_HAN = re.compile(r"[\u3400-\u9fff]")
_CURRENT_LIMIT = 200  # facts of one subject and predicate read per stop


def same_thing(a: str, b: str) -> bool:
    """Whether two different normalised names plausibly name one thing."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if _HAN.search(short):
        return len(short) >= 2 and short in long_
    # compared by stem: "gaming" ends "video games"
    words = [stem(w) for w in short.split()]
    longer = [stem(w) for w in long_.split()]
    if not words or len(short) < 3:
        return False
    n = len(words)
    return any(longer[i:i + n] == words for i in range(len(longer) - n + 1))


def ending_target(stopped: str, current: Iterable[str]) -> str | None:
    """The one current object ``stopped`` names in other words, or None (already the same
    name, no such object, or more than one)."""
    key = normalize(stopped)
    names = {normalize(c): c for c in current}
    if not key or key in names:
        return None
    hits = [text for norm, text in names.items() if same_thing(key, norm)]
    return hits[0] if len(hits) == 1 else None


def current_facts(store: Store, user_id: str, subject_key: str, predicate: str,
                  now_ms: int, as_of: int | None = None) -> list[Row]:
    """The user's facts with this subject and predicate, valid now (or at ``as_of``)."""
    query = page_query(as_of=as_of, known_at=None, now=now_ms, history=False,
                       newest_first=None, after=None, limit=_CURRENT_LIMIT)
    return store.relations(user_id, subject=subject_key, predicate=normalize(predicate),
                           obj=None, page=query)


def current_objects(store: Store, user_id: str, subject_key: str, predicate: str,
                    now_ms: int, as_of: int | None = None) -> list[str]:
    """The objects of the user's facts with this subject and predicate, valid now (or at
    ``as_of``)."""
    return [str(r.get("object") or "")
            for r in current_facts(store, user_id, subject_key, predicate, now_ms, as_of)]


# A whole kind given up ends every liked thing of that kind: "I went vegetarian" (likes
# meat: stop) ends "likes steak" and "likes bacon sandwiches"; 我吃素三个月了 ends 红烧肉.
_KINDS = {
    "meat": re.compile(
        r"\b(?:meat|steaks?|ribeye|sirloin|beef|pork|chicken|bacon|burgers?|hamburgers?|ribs|"
        r"lamb|ham|sausages?|brisket|meatballs?|veal|turkey|duck|salami|pepperoni|chorizo|"
        r"barbecue|bbq|kebabs?|wings|hot\s+dogs?)\b|肉|牛排|香肠|火腿|培根|烤鸭|鸡翅|汉堡", re.I),
}
_KINDS["肉"] = _KINDS["meat"]


def is_kind(name: str) -> bool:
    """Whether ``name`` is a kind whose giving up ends its members (``of_kind``)."""
    return normalize(name) in _KINDS


def of_kind(kind: str, names: Iterable[str]) -> list[str]:
    """The ``names`` that are things of ``kind`` (a kind given up: "meat", 肉), itself
    left out; none for a name that is no such kind."""
    pattern = _KINDS.get(normalize(kind))
    if pattern is None:
        return []
    return [n for n in names if normalize(n) != normalize(kind) and pattern.search(n)]

