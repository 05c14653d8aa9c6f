"""Re-embedding a store with the configured embedder (``graphmem reembed``).

Vectors of two models are not comparable: after a change of embedder, recall's vector
search only finds what the new model embedded. This makes every stored vector again:

* per user and label (episodes, entities, relations, abstractions, and the passages of
  long episodes), the nodes whose ``embeddingModel`` is not the configured model are read
  ``batch`` at a time (by id), embedded from their text as an import embeds it
  (``transfer.embedding_text``; a passage from its span of the episode's content), and
  written with their new model id as one ``WritePlan`` (``set_vector``): a batch is
  applied whole or not at all;
* a vector the configured embedder would make the same is kept and only named anew: with
  ``minilm+use`` a MiniLM vector of a text in Latin script (``RoutedEmbedder.keeps``), so
  moving an English MiniLM store to the default embeds nothing again;
* a node written drops out of the next read, so a run cut short (a crash, Ctrl-C) is
  resumed by running it again, and a run over a store already done writes nothing;
* when the model's vectors have another length than one of the user's vector indexes
  takes, that index is made again for the new length first (embedded store: one index per
  user and label; recall searches them all). On the neo4j store the indexes are shared by
  all users and are not changed here (``Neo4jStore.rebuild_vector_index`` says what to do);
* an embedded store's vector index made with older options than the store makes now
  (``M`` 16 and ``efRuntime`` 10 before they became 32 and 200) is made again too, with the
  same length (``FalkorStore.vector_index_outdated``).

``dry_run`` counts, per user and label, the nodes that would be embedded again.

``add_passages`` (``graphmem reembed --passages``) writes the passages the current rules
make (``graphmem._passages.spans``) that a stored episode lacks: episodes written before a
rule was added (statements with the "I" left out, for one), imported ones (an import
writes one vector per episode) or written with ``GRAPHMEM_PASSAGES=false``. Episodes are
read ``batch`` at a time; the missing passages of one batch are embedded and written as
one plan, all or nothing. A passage already stored is never written again, so a second run
writes nothing and a run cut short is resumed by running it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from graphmem._passages import NOT_USER_ROLES, parse_id, passage_id, passage_writes, spans
from graphmem.embed import Embedder, engine
from graphmem.errors import GraphMemError
from graphmem.store.base import Row, Store, WritePlan
from graphmem.store.queries import PASSAGE
from graphmem.transfer import LABELS, embedding_text

_PLURAL = {"Entity": "entities"}


@dataclass(slots=True)
class ReembedReport:
    model: str
    dim: int
    dry_run: bool
    #: user -> label -> nodes whose vector was (dry run: would be) made again
    stale: dict[str, dict[str, int]] = field(default_factory=dict)
    #: user -> label -> nodes in all
    total: dict[str, dict[str, int]] = field(default_factory=dict)
    #: "user label" of every vector index made again for the new length
    rebuilt: list[str] = field(default_factory=list)
    #: of ``count``, the nodes whose vector was kept and only named anew (``keeps``)
    renamed: int = 0

    @property
    def count(self) -> int:
        return sum(n for labels in self.stale.values() for n in labels.values())

    def describe(self) -> str:
        verb = "would re-embed" if self.dry_run else "re-embedded"
        lines = [f"{verb} {self.count} nodes with {self.model} ({self.dim} dimensions)"]
        if self.renamed:
            lines.append(f"  of them {self.renamed} kept their vector (the same in this "
                         "model) and were only renamed")
        for user, labels in self.stale.items():
            parts = ", ".join(f"{_PLURAL.get(label, label.lower() + 's')} "
                              f"{n}/{self.total[user][label]}"
                              for label, n in labels.items() if self.total[user][label])
            lines.append(f"  {user}: {parts or 'no nodes'}")
        made = "would be made again" if self.dry_run else "made again"
        lines += [f"  vector index {made}: {r}" for r in self.rebuilt]
        return "\n".join(lines)


def reembed(store: Store, embedder: Embedder, user_ids: list[str], *, batch: int = 200,
            dry_run: bool = False,
            progress: Callable[[str], None] | None = None) -> ReembedReport:
    """Embed again every node of ``user_ids`` whose vector is not of ``embedder``'s model."""
    if batch < 1:
        raise GraphMemError("batch must be at least 1")
    model = embedder.model_id
    report = ReembedReport(model=model, dim=embedder.dim, dry_run=dry_run)
    for user in user_ids:
        report.stale[user], report.total[user] = {}, {}
        for label in (*LABELS, PASSAGE):
            stale, total = store.count_stale_vectors(label, user, model)
            report.total[user][label] = total
            report.stale[user][label] = stale
            # recall searches every label's index: one of another length fails the search
            dim = store.vector_index_dim(user, label)
            # ... and one made with older options (a smaller graph degree or search
            # breadth) is made again with the store's current ones
            if dim is not None and (dim != embedder.dim
                                    or store.vector_index_outdated(user, label)):
                if not dry_run:
                    store.rebuild_vector_index(user, label, embedder.dim)
                report.rebuilt.append(f"{user} {label}")
            if stale and not dry_run:
                report.stale[user][label] = _label(store, embedder, user, label, batch,
                                                   stale, progress, report)
    return report


def _label(store: Store, embedder: Embedder, user: str, label: str, batch: int,
           expected: int, progress: Callable[[str], None] | None,
           report: ReembedReport) -> int:
    model = embedder.model_id
    done: set[str] = set()
    while True:
        rows = store.stale_vectors(label, user, model, batch)
        if not rows:
            return len(done)
        if any(r["id"] in done for r in rows):  # a write that did not land: never loop
            raise GraphMemError(f"{label} vectors written for {user} were not stored")
        texts = _texts(store, user, label, rows)
        keeps = getattr(engine(embedder), "keeps", None)
        kept = {i for i, (row, text) in enumerate(zip(rows, texts, strict=True))
                if keeps is not None and keeps(row.get("embeddingModel"), text)}
        fresh = [i for i in range(len(rows)) if i not in kept]
        vectors = embedder.embed([texts[i] for i in fresh])
        plan = WritePlan(user_id=user, at=int(time.time() * 1000))
        for i in kept:  # the same vector: only its model's name changes
            plan.update(label, rows[i]["id"], {"embeddingModel": model})
        for i, vec in zip(fresh, vectors, strict=True):
            plan.set_vector(label, rows[i]["id"], vec, model)
        store.apply(plan)
        report.renamed += len(kept)
        done.update(r["id"] for r in rows)
        if progress:
            progress(f"{user}: {len(done)}/{expected} {label.lower()}s re-embedded")


def _texts(store: Store, user: str, label: str, rows: list[Row]) -> list[str]:
    """What each node's vector is made from: its own text, or for a passage its span of
    its episode's content."""
    if label != PASSAGE:
        return [embedding_text(label, r) for r in rows]
    spans = [parse_id(r["id"]) for r in rows]
    episodes = {e["id"]: str(e.get("content") or "") for e in store.nodes(
        "Episode", user, sorted({s[0] for s in spans if s}))}
    return [episodes.get(s[0], "")[s[1].start:s[1].end] if s else "" for s in spans]


@dataclass(slots=True)
class PassageReport:
    model: str
    dry_run: bool
    #: user -> passages written (dry run: that would be)
    added: dict[str, int] = field(default_factory=dict)
    #: user -> episodes that lacked one or more
    episodes: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        verb = "would add" if self.dry_run else "added"
        total = sum(self.added.values())
        lines = [f"{verb} {total} passages to {sum(self.episodes.values())} episodes "
                 f"with {self.model}"]
        lines += [f"  {user}: {n} passages, {self.episodes[user]} episodes"
                  for user, n in sorted(self.added.items()) if n]
        return "\n".join(lines)


def add_passages(store: Store, embedder: Embedder, user_ids: list[str], *, batch: int = 200,
                 dry_run: bool = False,
                 progress: Callable[[str], None] | None = None) -> PassageReport:
    """Write, for every episode of ``user_ids``, the passages it lacks (module docstring)."""
    if batch < 1:
        raise GraphMemError("batch must be at least 1")
    report = PassageReport(model=embedder.model_id, dry_run=dry_run)
    for user in user_ids:
        report.added[user] = report.episodes[user] = 0
        skip = 0
        while rows := store.export_nodes("Episode", user, skip, batch):
            skip += len(rows)
            contents = {str(r["id"]): str(r.get("content") or "") for r in rows}
            roles = {str(r["id"]): r.get("role") for r in rows}
            wanted = {passage_id(eid, s): eid for eid, text in contents.items()
                      for s in spans(text, roles[eid] not in NOT_USER_ROLES)}
            have = {str(r["id"]) for r in store.nodes(PASSAGE, user, sorted(wanted))} \
                if wanted else set()
            missing = set(wanted) - have
            lacking = sorted({wanted[pid] for pid in missing})
            if missing and not dry_run:
                writes = passage_writes(embedder.embed, embedder.model_id,
                                        [(eid, user, contents[eid], roles[eid])
                                         for eid in lacking],
                                        wanted=missing.__contains__)
                plan = WritePlan(user_id=user, at=int(time.time() * 1000))
                plan.passages.extend(w for eid in lacking for w in writes.get(eid, []))
                store.apply(plan)
            report.added[user] += len(missing)
            report.episodes[user] += len(lacking)
            if progress and missing:
                progress(f"{user}: {report.added[user]} passages added to "
                         f"{report.episodes[user]} episodes ({skip} episodes read)")
    return report
