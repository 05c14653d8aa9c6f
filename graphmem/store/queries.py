"""Named Cypher queries, loaded once from ``.cypher`` files.

Layout: ``<root>/<name>.cypher`` holds the common text; ``<root>/<dialect>/<name>.cypher``
overrides it for one backend where its dialect really differs. Values go in only as
``$parameters``. Template slots (``{label}``, ``{dir}``...) are filled only from fixed sets.
``{@name}`` includes ``<root>/fragments/<name>.cypher``: a condition several queries share
(the time-visibility rule) is written once.
A file may hold several statements separated by a line with a lone ``;`` (schema DDL).

The root is ``graphmem/cypher`` inside the installed package (the top-level ``cypher/``
folder of the repository is packaged there), so an installed wheel finds its queries.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from graphmem.errors import GraphMemError

LABELS = ("Episode", "Entity", "Relation", "Abstraction")
#: Passages of long episodes (``graphmem._passages``): vectors of an episode's spans, read
#: through vector search only, never a memory of their own (not among ``LABELS``).
PASSAGE = "Passage"

# Every query a backend needs; a missing file fails at start-up, not on first use.
REQUIRED = (
    "schema",
    "upsert_episodes", "upsert_entities", "upsert_relations", "upsert_abstractions",
    "upsert_passages",
    "set_props",
    "link", "expire_links",
    "nodes_by_ids", "recall_episodes", "recall_entities", "recall_relations",
    "recall_abstractions", "relation_group", "relations", "entity_relations", "chain_edges",
    "foreign_ids",
    "entities_by_norm", "vector_search", "fulltext_search",
    "entity_degrees", "adjacent_relations", "episode_mentions", "evidence_of",
    "count_nodes", "count_relations_by_status", "bump_access", "relation_sample",
    "export_nodes", "export_edges", "page_episodes", "page_entities", "event_nodes",
)

EDGE_TYPES = ("SUBJECT_OF", "OBJECT", "EVIDENCED_BY", "MENTIONS", "SUPERSEDES",
              "DISPUTED", "DERIVED_FROM")


_SLOTS: dict[str, tuple[str, ...] | type[int]] = {
    "label": (*LABELS, PASSAGE), "src": LABELS, "dst": LABELS, "edge": EDGE_TYPES, "dim": int,
    "dir": ("ASC", "DESC"), "cmp": ("<", ">"),
    "text": ("content", "name", "statement", "conclusion"),
}


def default_root() -> Path:
    packaged = Path(str(resources.files("graphmem") / "cypher"))
    if packaged.is_dir():
        return packaged
    # A source checkout (or an editable install): the repository's top-level folder.
    return Path(__file__).resolve().parents[2] / "cypher"


class Queries:
    """The named queries of one dialect."""

    def __init__(self, dialect: str, root: Path | None = None) -> None:
        self.dialect = dialect
        self._root = root or default_root()
        self._texts: dict[str, str] = {}

    def load(self) -> Queries:
        if not self._root.is_dir():
            raise GraphMemError(f"query folder not found: {self._root}")
        found: dict[str, str] = {}
        for path in sorted(self._root.glob("*.cypher")):
            found[path.stem] = path.read_text(encoding="utf-8")
        override = self._root / self.dialect
        if override.is_dir():
            for path in sorted(override.glob("*.cypher")):
                found[path.stem] = path.read_text(encoding="utf-8")
        missing = [name for name in REQUIRED if name not in found]
        if missing:
            raise GraphMemError(f"missing queries for {self.dialect}: {', '.join(missing)}")
        fragments = {path.stem: _strip_comments(path.read_text(encoding="utf-8")).strip()
                     for path in sorted((self._root / "fragments").glob("*.cypher"))}
        self._texts = {name: _include(_strip_comments(text), fragments)
                       for name, text in found.items()}
        return self

    def get(self, name: str, **slots: str | int) -> str:
        """The text of query ``name`` with its template slots filled.

        Slots are checked against fixed sets (labels, edge types, an integer dimension),
        so no caller-provided string ever reaches the query text.
        """
        try:
            text = self._texts[name]
        except KeyError:
            raise GraphMemError(f"unknown query: {name}") from None
        for slot, value in slots.items():
            allowed = _SLOTS.get(slot)
            if allowed is None:
                raise GraphMemError(f"unknown template slot {slot!r} in query {name}")
            if allowed is int:
                if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                    raise GraphMemError(f"slot {slot} of query {name} needs a positive int")
            elif value not in allowed:  # type: ignore[operator]
                raise GraphMemError(f"slot {slot} of query {name}: {value!r} not allowed")
            text = text.replace("{" + slot + "}", str(value))
        for slot in _SLOTS:
            if "{" + slot + "}" in text:
                raise GraphMemError(f"query {name} needs the slot {slot}")
        return text

    def statements(self, name: str, **slots: str | int) -> list[str]:
        text = self.get(name, **slots)
        parts = [p.strip() for p in text.split("\n;\n")]
        return [p.rstrip(";").strip() for p in parts if p.strip()]

    def has(self, name: str) -> bool:
        """Whether this dialect has query ``name`` (one a backend may do without)."""
        return name in self._texts

    @property
    def names(self) -> list[str]:
        return sorted(self._texts)


def _include(text: str, fragments: dict[str, str], depth: int = 0) -> str:
    """``text`` with every ``{@name}`` replaced by that fragment (fragments may include)."""
    if "{@" not in text:
        return text
    if depth > 8:
        raise GraphMemError("query fragments include each other in a loop")
    for name, body in fragments.items():
        text = text.replace("{@" + name + "}", body)
    if "{@" in text:
        unknown = text.split("{@", 1)[1].split("}", 1)[0]
        if unknown not in fragments:
            raise GraphMemError(f"unknown query fragment: {unknown}")
    return _include(text, fragments, depth + 1)


def _strip_comments(text: str) -> str:
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return "\n".join(lines).strip() + "\n"
