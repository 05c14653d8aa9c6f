"""How well episode versions are linked: SUPERSEDES edges between a user's messages against
the generated corpus's ground truth.

Corpus v2 (``corpus.py``) plants facts whose values change; each ``current`` question lists
the messages that said each version (``old`` ..., ``new``). The expected links are those
chains, newer -> older, one pair per change. The chats go in through GraphQL
(``addEpisodes`` per session, as ``single_user.py`` sends them); then every
``(later:Episode)-[:SUPERSEDES]->(earlier:Episode)`` of each user is read back.

Reported per language: links expected, links made, links right (both ends as expected),
precision and recall. A wrong link makes a present-tense question rank a stale message
first or mark a current one SUPERSEDED; a missing one leaves the old version beside the new.

    python bench/version_links.py                    # dev (seed 1), 4 chats per language
    python bench/version_links.py --seed 2 --users 10
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import RESULTS, header, log, table, write_json  # noqa: E402
from corpus import DEV_SEED, LANGS, generate  # noqa: E402
from single_user import GraphQL, ingest  # noqa: E402

LINKS = ("MATCH (a:Episode)-[r:SUPERSEDES]->(b:Episode) WHERE a.userId = $userId "
         "RETURN a.sourceRef, b.sourceRef, r.reason")


def expected_links(corpus: Any, user_id: str) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for q in corpus.questions:
        if q.user_id == user_id and q.kind == "current" and q.old:
            chain = [*q.old, *q.new]
            out.update(zip(chain[1:], chain[:-1], strict=True))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/version_links.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=DEV_SEED)
    p.add_argument("--users", type=int, default=4, help="chats per language (default 4)")
    p.add_argument("--lang", choices=("en", "zh", "both"), default="both")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    langs = LANGS if args.lang == "both" else (args.lang,)
    corpus = generate(args.seed, langs, args.users, "v2")

    from graphmem.bootstrap import build_service, settle
    from graphmem.settings import Settings

    tmp = tempfile.TemporaryDirectory(prefix="graphmem-version-links-")
    service = build_service(Settings(data_dir=Path(tmp.name)))
    service.open()
    settle(service)
    gql = GraphQL(service)
    results: dict[str, dict[str, Any]] = {}
    wrong: dict[str, list[str]] = {}
    try:
        started = time.perf_counter()
        for chat in corpus.chats:
            ingest(gql, chat, True)
        log(f"ingest: {len(corpus.chats)} chats in {time.perf_counter() - started:.0f}s")
        store: Any = service.store
        for lang in langs:
            expected = made = right = 0
            for chat in (c for c in corpus.chats if c.lang == lang):
                want = expected_links(corpus, chat.user_id)
                rows = store._query(LINKS, {"userId": chat.user_id})
                got = {(str(r[0]), str(r[1])): str(r[2]) for r in rows}
                expected += len(want)
                made += len(got)
                right += len(want & set(got))
                wrong.setdefault(lang, []).extend(
                    f"{a} -> {b}: {why}" for (a, b), why in sorted(got.items())
                    if (a, b) not in want)
            results[lang] = {"expected": expected, "made": made, "right": right,
                             "precision": round(right / made, 3) if made else None,
                             "recall": round(right / expected, 3) if expected else None}
    finally:
        gql.close()
        service.close()
        tmp.cleanup()
    print(table(["lang", "expected", "made", "right", "precision", "recall"],
                [[lang, r["expected"], r["made"], r["right"], r["precision"], r["recall"]]
                 for lang, r in results.items()]))
    out = args.json or RESULTS / f"version_links_seed{args.seed}.json"
    write_json(out, {**header("version-links"), "corpus": {
        "version": "v2", "seed": args.seed, "users_per_lang": args.users, "langs": langs},
        "results": results, "wrong_links": wrong})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
